// The five COLLIE-derived verifiers, reproducing the reference's verifier dicts field for field
// (constraint_protocol.verify_c05 / verify_c10, structured_data.verify_c07 / c09 / c12).
// Targets are the COLLIE targets exactly as stored in the case files.
import { pyEquals, pyInt, type JsonValue } from '../../py/values.ts';

/** Python `==` between the JSON values of targets and observations. */
const jsonEquals = (a: unknown, b: unknown): boolean => pyEquals(a as JsonValue, b as JsonValue);
import type { C05State, C07State, C09State, C10State, C12State } from '../types.ts';
import { normalizedLiteral, normalizedTokens, sentences, sentencesAndWords, words } from './units.ts';

/** Zero-based word positions of c05; COLLIE's prompt renders them as the 4th, 8th and 11th words. */
export const C05_POSITIONS: readonly number[] = [3, 7, 10];

function asList(x: unknown, what: string): unknown[] {
  if (!Array.isArray(x)) throw new TypeError(`${what} must be a list`);
  return x;
}

/** targets = [word count, [word at position 4, 8, 11]]. */
export function verifyC05(text: string, targets: unknown): C05State {
  const [targetCountRaw, targetWordsRaw] = asList(targets, 'c05 targets');
  const targetCount = pyInt(targetCountRaw);
  const targetWords = asList(targetWordsRaw, 'c05 target words');
  const tokens = words(text);
  const observedWords = C05_POSITIONS.map((pos) => (pos < tokens.length ? tokens[pos] : null));
  // zip(observed_words, target_words): stops at the shorter list.
  const n = Math.min(observedWords.length, targetWords.length);
  const matches: boolean[] = [];
  for (let i = 0; i < n; i++) matches.push(jsonEquals(normalizedLiteral(observedWords[i]), normalizedLiteral(targetWords[i])));
  const countResidual = tokens.length - targetCount;
  const mismatchCount = matches.filter((m) => !m).length;
  return {
    joint_success: countResidual === 0 && mismatchCount === 0,
    observed_word_count: tokens.length,
    target_word_count: targetCount,
    count_residual: countResidual,
    target_positions_zero_based: [...C05_POSITIONS],
    target_words: targetWords,
    observed_words: observedWords,
    position_matches: matches,
    position_mismatch_count: mismatchCount,
    violation_vector: [Math.abs(countResidual) / Math.max(targetCount, 1), ...matches.map((m) => (m ? 0.0 : 1.0))],
  };
}

/** targets = [sentence count, lower, upper] words per sentence. */
export function verifyC10(text: string, targets: unknown): C10State {
  const list = asList(targets, 'c10 targets');
  if (list.length !== 3) throw new TypeError('c10 targets must have 3 values');
  // By index, not `const [a, b, c] = list.map(pyInt)`: docs/performance.md#deoptimisations
  const targetSentences = pyInt(list[0]);
  const lower = pyInt(list[1]);
  const upper = pyInt(list[2]);
  const units = sentences(text);
  const counts = units.map((unit) => words(unit).length);
  const sentenceResidual = units.length - targetSentences;
  const lowerDeficits = counts.map((c) => Math.max(0, lower - c));
  const upperExcesses = counts.map((c) => Math.max(0, c - upper));
  const violations = [Math.abs(sentenceResidual) / Math.max(targetSentences, 1)];
  for (const v of lowerDeficits) violations.push(v / Math.max(lower, 1));
  for (const v of upperExcesses) violations.push(v / Math.max(upper, 1));
  return {
    joint_success: sentenceResidual === 0 && lowerDeficits.every((v) => v === 0) && upperExcesses.every((v) => v === 0),
    observed_sentence_count: units.length,
    target_sentence_count: targetSentences,
    sentence_count_residual: sentenceResidual,
    sentence_word_counts: counts,
    lower_bound: lower,
    upper_bound: upper,
    lower_deficits: lowerDeficits,
    upper_excesses: upperExcesses,
    violation_vector: violations,
  };
}

function includesPy(haystack: readonly unknown[], needle: unknown): boolean {
  if (typeof needle === 'string') return haystack.includes(needle);
  return haystack.some((x) => jsonEquals(x, needle));
}

/** targets = the required words. */
export function verifyC07(text: string, targets: unknown): C07State {
  const targetWords = asList(targets, 'c07 targets');
  const tokens = normalizedTokens(text);
  const tokenSet = new Set(tokens);
  const present = targetWords.map((t) => {
    const nt = normalizedLiteral(t);
    return typeof nt === 'string' ? tokenSet.has(nt) : includesPy(tokens, nt);
  });
  return {
    joint_success: present.every(Boolean),
    target_words: targetWords,
    target_present: present,
    missing_count: present.filter((p) => !p).length,
    violation_vector: present.map((p) => (p ? 0.0 : 1.0)),
  };
}

/** targets = [sentence count, forbidden word, forbidden word, …]. */
export function verifyC09(text: string, targets: unknown): C09State {
  const list = asList(targets, 'c09 targets');
  const targetSentences = pyInt(list[0]);
  const forbidden = list.slice(1);
  const { sentences: units, words: rawTokens } = sentencesAndWords(text);
  const tokens = rawTokens.map((w) => normalizedLiteral(w));
  const counts = forbidden.map((f) => {
    const nf = normalizedLiteral(f);
    let k = 0;
    for (const t of tokens) if (typeof nf === 'string' ? t === nf : jsonEquals(t, nf)) k++;
    return k;
  });
  const sentenceResidual = units.length - targetSentences;
  return {
    joint_success: sentenceResidual === 0 && counts.every((k) => k === 0),
    observed_sentence_count: units.length,
    target_sentence_count: targetSentences,
    sentence_count_residual: sentenceResidual,
    forbidden_words: forbidden,
    forbidden_word_counts: counts,
    violation_vector: [Math.abs(sentenceResidual) / Math.max(targetSentences, 1), ...counts],
  };
}

/** targets = [sentence count, [final word of sentence 1, 2, …]]. */
export function verifyC12(text: string, targets: unknown): C12State {
  const list = asList(targets, 'c12 targets');
  const targetSentences = pyInt(list[0]);
  const targetLastWords = [...asList(list[1], 'c12 target last words')];
  const units = sentences(text);
  const observedLastWords = units.map((unit) => {
    const tokens = words(unit);
    return tokens.length ? tokens[tokens.length - 1] : null;
  });
  const matches = targetLastWords.map(
    (target, i) => i < observedLastWords.length && jsonEquals(normalizedLiteral(observedLastWords[i]), normalizedLiteral(target)),
  );
  const sentenceResidual = units.length - targetSentences;
  return {
    joint_success: sentenceResidual === 0 && matches.every(Boolean),
    observed_sentence_count: units.length,
    target_sentence_count: targetSentences,
    sentence_count_residual: sentenceResidual,
    target_last_words: targetLastWords,
    observed_last_words: observedLastWords,
    last_word_matches: matches,
    last_word_mismatch_count: matches.filter((m) => !m).length,
    violation_vector: [Math.abs(sentenceResidual) / Math.max(targetSentences, 1), ...matches.map((m) => (m ? 0.0 : 1.0))],
  };
}
