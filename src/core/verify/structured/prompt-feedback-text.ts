// Prompts and feedback of the COLLIE-derived families (docs/protocol.md §1.3), byte for byte:
// values shown with Python repr(), None as <missing>, booleans lower-case. The three variants
// change only the preamble (initial prompt) and the suffix (feedback).
import { pyStrip } from '../../py/format.ts';
import { pyReprValue, zipShortest, type JsonValue } from '../../py/values.ts';
import type { C05State, C07State, C09State, C10State, C12State, ConstraintCase, PromptVariant } from '../types.ts';

const JSON_NUMBERS = { numbers: 'json' } as const;

/** `display()`: "<missing>" for None, else Python repr. */
export function display(value: unknown): string {
  return value === null || value === undefined ? '<missing>' : pyReprValue(value as JsonValue, JSON_NUMBERS);
}

/** Python `str(bool).lower()`. */
function flag(b: unknown): string {
  return b ? 'true' : 'false';
}

export function structuredInitialPrompt(c: ConstraintCase, variant: PromptVariant = 'baseline'): string {
  const task = pyStrip(c.task ?? '');
  switch (variant) {
    case 'structured':
      return (
        `TASK\n${task}\n\nCONSTRAINTS\nCHECKING: deterministic verifier\n` +
        'OUTPUT: only the requested text; no preface, analysis, count, or commentary.'
      );
    case 'concise':
      return (
        `${task}\n\nA deterministic verifier checks every constraint. Output only the requested ` +
        'text, without a preface, analysis, count, or commentary.'
      );
    case 'baseline':
      return (
        `${task}\n\nThe constraints are checked by a deterministic verifier. Return only ` +
        'the requested text, with no preface, analysis, count, or commentary.'
      );
    default:
      throw new RangeError(`unknown prompt variant ${String(variant)}`);
  }
}

export function structuredSuffix(variant: PromptVariant = 'baseline'): string {
  switch (variant) {
    case 'structured':
      return (
        'INSTRUCTION: Revise the complete previous response so every reported ' +
        'constraint is satisfied. Return only the revised text; no analysis, ' +
        'count, or commentary.'
      );
    case 'concise':
      return (
        'Revise the whole response to satisfy every reported constraint. Output ' +
        'only the revision, without analysis, a count, or commentary.'
      );
    case 'baseline':
      return (
        'Revise the complete previous response so every reported constraint is ' +
        'satisfied. Return only the revised text, with no analysis, count, or commentary.'
      );
    default:
      throw new RangeError(`unknown prompt variant ${String(variant)}`);
  }
}

const HEADER = 'DETERMINISTIC VERIFIER REPORT\n';

function sentencesLine(s: { observed_sentence_count: number; target_sentence_count: number; sentence_count_residual: number }): string {
  return (
    `- sentences: observed=${s.observed_sentence_count}, ` +
    `target=${s.target_sentence_count}, ` +
    `residual(observed-target)=${s.sentence_count_residual}\n`
  );
}

export function reportC05(s: C05State): string {
  const lines = zipShortest(s.target_positions_zero_based, s.target_words, s.observed_words, s.position_matches).map(
    ([position, target, observed, match]) =>
      `- word ${(position as number) + 1}: target=${display(target)}, observed=${display(observed)}, correct=${flag(match)}`,
  );
  return (
    HEADER +
    `- total words: observed=${s.observed_word_count}, target=${s.target_word_count}, ` +
    `residual(observed-target)=${s.count_residual}\n` +
    lines.join('\n')
  );
}

export function reportC07(s: C07State): string {
  return (
    HEADER +
    zipShortest(s.target_words, s.target_present)
      .map(([t, p]) => `- required word ${display(t)}: present=${flag(p)}`)
      .join('\n')
  );
}

export function reportC09(s: C09State): string {
  const lines = zipShortest(s.forbidden_words, s.forbidden_word_counts).map(
    ([w, k]) => `- forbidden word ${display(w)}: observed-count=${k}`,
  );
  return HEADER + sentencesLine(s) + lines.join('\n');
}

export function reportC10(s: C10State): string {
  const lines = zipShortest(s.sentence_word_counts, s.lower_deficits, s.upper_excesses).map(
    ([count, deficit, excess], i) => `- sentence ${i + 1}: words=${count}, below-minimum-by=${deficit}, above-maximum-by=${excess}`,
  );
  // The reference lists every *observed* sentence; with none it prints this line instead.
  const details = lines.length ? lines.join('\n') : '- no sentences detected';
  return HEADER + sentencesLine(s) + `- allowed words per sentence: ${s.lower_bound} to ${s.upper_bound} inclusive\n${details}`;
}

export function reportC12(s: C12State): string {
  const lines = s.target_last_words.map((target, i) => {
    const observed = i < s.observed_last_words.length ? s.observed_last_words[i] : null;
    return `- sentence ${i + 1} final word: target=${display(target)}, observed=${display(observed)}, correct=${flag(s.last_word_matches[i])}`;
  });
  return HEADER + sentencesLine(s) + lines.join('\n');
}
