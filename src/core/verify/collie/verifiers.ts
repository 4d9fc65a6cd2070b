// Verifiers of COLLIE's c01, c02, c03, c04, c06a, c08, c11 and c14 with COLLIE's official semantics
// (collie/constraints.py at efce1c8): `joint_success` is what `constraint(text, targets)` returns,
// and the other fields say why. The rules reproduced here:
// - units: characters are code points, words are NLTK words minus tokens that are substrings of
//   string.punctuation, sentences are Punkt sentences, paragraphs are split on "\n\n"; every unit is
//   strip()ped and stripped of "." (units.ts, structured/units.ts);
// - `Relation` compares "patched" literals: lower-cased, ASCII punctuation and spaces stripped, the
//   original kept when nothing remains (normalizedLiteral); a one-element target list is unwrapped;
// - `Position` gives None past either end; `Reduction('all')` is false when the number of units
//   differs from the number of targets.
import { pyEquals, pyInt, type JsonValue } from '../../py/values.ts';
import { normalizedLiteral, sentences, words } from '../structured/units.ts';
import type { C01State, C02State, C03State, C04State, C06aState, C08State, C11State, C14State } from './types.ts';
import { characterCount, characters, paragraphs } from './units.ts';

/** Zero-based character positions of c02; COLLIE's prompt renders them as the 4th, 8th and 11th. */
const C02_POSITIONS: readonly number[] = [3, 7, 10];

function asList(x: unknown, what: string): unknown[] {
  if (!Array.isArray(x)) throw new TypeError(`${what} must be a list`);
  return x;
}

/** COLLIE `Relation('==')` on two literals after patching. */
function same(observed: unknown, target: unknown): boolean {
  return pyEquals(normalizedLiteral(observed ?? null) as JsonValue, normalizedLiteral(target) as JsonValue);
}

/** COLLIE `Position.get`: the unit at a (possibly negative) index, or None past either end. */
function at<T>(units: readonly T[], position: number): T | null {
  if (units.length === 0 || position >= units.length || position < -units.length) return null;
  return units[position < 0 ? units.length + position : position];
}

/** COLLIE unwraps a one-element target list for ==, <, <=, >, >=. */
function scalarTarget(t: unknown): unknown {
  return Array.isArray(t) && t.length === 1 ? t[0] : t;
}

const ratio = (n: number, d: number) => n / Math.max(d, 1);
const flag = (ok: boolean) => (ok ? 0.0 : 1.0);

/** c01 — targets = [N]: at least N characters. */
export function verifyC01(text: string, targets: unknown): C01State {
  const minimum = pyInt(scalarTarget(targets));
  const count = characterCount(text);
  const deficit = Math.max(0, minimum - count);
  return {
    joint_success: count >= minimum,
    observed_character_count: count,
    minimum_character_count: minimum,
    character_deficit: deficit,
    violation_vector: [ratio(deficit, minimum)],
  };
}

/** c02 — targets = [N, [c4, c8, c11]]: exactly N characters, given characters at positions 4, 8, 11. */
export function verifyC02(text: string, targets: unknown): C02State {
  const [countRaw, charsRaw] = asList(targets, 'c02 targets');
  const target = pyInt(countRaw);
  const targetChars = asList(charsRaw, 'c02 target characters');
  const units = characters(text);
  const observed = C02_POSITIONS.map((p) => at(units, p));
  // `[..] == [..]` compares element-wise; a one-element target list would be unwrapped and never equal.
  const matches = C02_POSITIONS.map((_, i) => targetChars.length !== 1 && i < targetChars.length && same(observed[i], targetChars[i]));
  const residual = units.length - target;
  const mismatches = matches.filter((m) => !m).length;
  return {
    joint_success: residual === 0 && targetChars.length === C02_POSITIONS.length && mismatches === 0,
    observed_character_count: units.length,
    target_character_count: target,
    count_residual: residual,
    target_positions_zero_based: [...C02_POSITIONS],
    target_characters: targetChars,
    observed_characters: observed,
    position_matches: matches,
    position_mismatch_count: mismatches,
    violation_vector: [ratio(Math.abs(residual), target), ...matches.map(flag)],
  };
}

/** c03 — targets = [N, c]: exactly N characters, the last one c. */
export function verifyC03(text: string, targets: unknown): C03State {
  const [countRaw, last] = asList(targets, 'c03 targets');
  const target = pyInt(countRaw);
  const units = characters(text);
  const observed = at(units, -1);
  const match = same(observed, scalarTarget(last));
  const residual = units.length - target;
  return {
    joint_success: residual === 0 && match,
    observed_character_count: units.length,
    target_character_count: target,
    count_residual: residual,
    target_last_character: last,
    observed_last_character: observed,
    last_character_match: match,
    violation_vector: [ratio(Math.abs(residual), target), flag(match)],
  };
}

/** c04 — targets = N: exactly N characters, whitespace included. */
export function verifyC04(text: string, targets: unknown): C04State {
  const target = pyInt(scalarTarget(targets));
  const count = characterCount(text);
  const residual = count - target;
  return {
    joint_success: residual === 0,
    observed_character_count: count,
    target_character_count: target,
    count_residual: residual,
    violation_vector: [ratio(Math.abs(residual), target)],
  };
}

/** c06a — targets = [N, M]: at least N words, every word at most M characters. */
export function verifyC06a(text: string, targets: unknown): C06aState {
  const list = asList(targets, 'c06a targets');
  const minimum = pyInt(scalarTarget(list[0]));
  const maxLength = pyInt(list[1]);
  const ws = words(text);
  const deficit = Math.max(0, minimum - ws.length);
  const longWords: C06aState['long_words'] = [];
  let excess = 0;
  ws.forEach((word, i) => {
    const n = characterCount(word);
    if (n > maxLength) {
      longWords.push({ index: i + 1, word, characters: n, excess: n - maxLength });
      excess += n - maxLength;
    }
  });
  return {
    joint_success: ws.length >= minimum && longWords.length === 0,
    observed_word_count: ws.length,
    minimum_word_count: minimum,
    word_deficit: deficit,
    maximum_word_length: maxLength,
    long_words: longWords,
    violation_vector: [ratio(deficit, minimum), ratio(excess, maxLength)],
  };
}

/** c08 — targets = w: every sentence's first word is w (a text without sentences passes, as in COLLIE). */
export function verifyC08(text: string, targets: unknown): C08State {
  const target = targets;
  const firsts = sentences(text).map((s) => at(words(s), 0));
  const matches = firsts.map((w) => same(w, target));
  const mismatches = matches.filter((m) => !m).length;
  return {
    joint_success: mismatches === 0,
    observed_sentence_count: firsts.length,
    target_first_word: target,
    observed_first_words: firsts,
    first_word_matches: matches,
    first_word_mismatch_count: mismatches,
    violation_vector: matches.map(flag),
  };
}

/** c11 — targets = [N, L]: at least N sentences, each with at least L words. */
export function verifyC11(text: string, targets: unknown): C11State {
  const list = asList(targets, 'c11 targets');
  const minimum = pyInt(scalarTarget(list[0]));
  const minWords = pyInt(list[1]);
  const counts = sentences(text).map((s) => words(s).length);
  const deficit = Math.max(0, minimum - counts.length);
  const wordDeficits = counts.map((c) => Math.max(0, minWords - c));
  return {
    joint_success: counts.length >= minimum && wordDeficits.every((d) => d === 0),
    observed_sentence_count: counts.length,
    minimum_sentence_count: minimum,
    sentence_deficit: deficit,
    minimum_words_per_sentence: minWords,
    sentence_word_counts: counts,
    word_deficits: wordDeficits,
    violation_vector: [ratio(deficit, minimum), ...wordDeficits.map((d) => ratio(d, minWords))],
  };
}

/** c14 — targets = [[s1, s2, …], M]: one paragraph per sentence s_i, ending in it, each with at least M sentences. */
export function verifyC14(text: string, targets: unknown): C14State {
  const list = asList(targets, 'c14 targets');
  const lastTargets = asList(list[0], 'c14 target sentences');
  const minSentences = pyInt(list[1]);
  const units = paragraphs(text).map((p) => sentences(p));
  const lasts = units.map((s) => at(s, -1));
  const counts = units.map((s) => s.length);
  const residual = units.length - lastTargets.length;
  const matches = lastTargets.map((t, i) => i < lasts.length && same(lasts[i], t));
  const deficits = counts.map((c) => Math.max(0, minSentences - c));
  return {
    joint_success: residual === 0 && matches.every(Boolean) && deficits.every((d) => d === 0),
    observed_paragraph_count: units.length,
    target_paragraph_count: lastTargets.length,
    paragraph_count_residual: residual,
    target_last_sentences: lastTargets,
    observed_last_sentences: lasts,
    last_sentence_matches: matches,
    minimum_sentences_per_paragraph: minSentences,
    paragraph_sentence_counts: counts,
    sentence_deficits: deficits,
    violation_vector: [ratio(Math.abs(residual), lastTargets.length), ...matches.map(flag), ...deficits.map((d) => ratio(d, minSentences))],
  };
}
