// Feedback reports of the eight COLLIE structures the paper does not use. The paper has no wording
// for them; this is revloop's own, written in the paper's exact-feedback style: the same header,
// one "- key: observed=…, target=…" line per measured quantity, Python repr() for texts
// (`<missing>` for None), lower-case booleans, and the paper's closing instruction per variant
// (structured/prompt-feedback-text.ts). docs/verify.md shows an example of each.
import { display } from '../structured/prompt-feedback-text.ts';
import type { C01State, C02State, C03State, C04State, C06aState, C08State, C11State, C14State } from './types.ts';

const HEADER = 'DETERMINISTIC VERIFIER REPORT\n';
const flag = (b: boolean) => (b ? 'true' : 'false');

export function reportC01(s: C01State): string {
  return (
    HEADER +
    `- characters: observed=${s.observed_character_count}, minimum=${s.minimum_character_count}, below-minimum-by=${s.character_deficit}`
  );
}

function totalCharacters(s: { observed_character_count: number; target_character_count: number; count_residual: number }): string {
  return (
    `- total characters: observed=${s.observed_character_count}, target=${s.target_character_count}, ` +
    `residual(observed-target)=${s.count_residual}`
  );
}

export function reportC02(s: C02State): string {
  const lines = s.target_positions_zero_based.map(
    (p, i) =>
      `- character ${p + 1}: target=${display(s.target_characters[i])}, observed=${display(s.observed_characters[i])}, ` +
      `correct=${flag(s.position_matches[i])}`,
  );
  return HEADER + [totalCharacters(s), ...lines].join('\n');
}

export function reportC03(s: C03State): string {
  return (
    HEADER +
    `${totalCharacters(s)}\n` +
    `- last character: target=${display(s.target_last_character)}, observed=${display(s.observed_last_character)}, ` +
    `correct=${flag(s.last_character_match)}`
  );
}

export function reportC04(s: C04State): string {
  return HEADER + totalCharacters(s).replace('total characters', 'total characters (whitespace included)');
}

export function reportC06a(s: C06aState): string {
  const lines = [
    `- total words: observed=${s.observed_word_count}, minimum=${s.minimum_word_count}, below-minimum-by=${s.word_deficit}`,
    `- allowed characters per word: at most ${s.maximum_word_length}`,
  ];
  if (!s.long_words.length) lines.push('- words over the limit: none');
  for (const w of s.long_words)
    lines.push(`- word ${w.index}: ${display(w.word)}, characters=${w.characters}, above-maximum-by=${w.excess}`);
  return HEADER + lines.join('\n');
}

export function reportC08(s: C08State): string {
  const lines = [`- sentences: observed=${s.observed_sentence_count}`];
  if (!s.observed_first_words.length) lines.push('- no sentences detected');
  s.observed_first_words.forEach((w, i) =>
    lines.push(
      `- sentence ${i + 1} first word: target=${display(s.target_first_word)}, observed=${display(w)}, correct=${flag(s.first_word_matches[i])}`,
    ),
  );
  return HEADER + lines.join('\n');
}

export function reportC11(s: C11State): string {
  const lines = [
    `- sentences: observed=${s.observed_sentence_count}, minimum=${s.minimum_sentence_count}, below-minimum-by=${s.sentence_deficit}`,
    `- minimum words per sentence: ${s.minimum_words_per_sentence}`,
  ];
  if (!s.sentence_word_counts.length) lines.push('- no sentences detected');
  s.sentence_word_counts.forEach((n, i) => lines.push(`- sentence ${i + 1}: words=${n}, below-minimum-by=${s.word_deficits[i]}`));
  return HEADER + lines.join('\n');
}

export function reportC14(s: C14State): string {
  const lines = [
    `- paragraphs (separated by a blank line): observed=${s.observed_paragraph_count}, target=${s.target_paragraph_count}, ` +
      `residual(observed-target)=${s.paragraph_count_residual}`,
    `- minimum sentences per paragraph: ${s.minimum_sentences_per_paragraph}`,
  ];
  const n = Math.max(s.observed_paragraph_count, s.target_paragraph_count);
  for (let i = 0; i < n; i++) {
    if (i < s.observed_paragraph_count) {
      lines.push(`- paragraph ${i + 1}: sentences=${s.paragraph_sentence_counts[i]}, below-minimum-by=${s.sentence_deficits[i]}`);
    }
    if (i < s.target_paragraph_count) {
      const observed = i < s.observed_last_sentences.length ? s.observed_last_sentences[i] : null;
      lines.push(
        `- paragraph ${i + 1} final sentence: target=${display(s.target_last_sentences[i])}, observed=${display(observed)}, ` +
          `correct=${flag(s.last_sentence_matches[i])}`,
      );
    }
  }
  return HEADER + lines.join('\n');
}
