// Verifier states of the eight COLLIE structures the paper does not use. Field order is the order
// the verifiers write; every state has `joint_success` (COLLIE's own verdict) and a non-negative
// `violation_vector` whose sum is 0 exactly when `joint_success` is true.
import type { VerifierState } from '../types.ts';

/** COLLIE structures with a family here (the paper's c05/c07/c09/c10/c12 live in structured/). */
export type CollieCode = 'c01' | 'c02' | 'c03' | 'c04' | 'c06a' | 'c08' | 'c11' | 'c14';
export const COLLIE_CODES: readonly CollieCode[] = ['c01', 'c02', 'c03', 'c04', 'c06a', 'c08', 'c11', 'c14'];

/** c01: a word with at least N characters. */
export interface C01State extends VerifierState {
  observed_character_count: number;
  minimum_character_count: number;
  character_deficit: number;
}

/** c02: a word with exactly N characters and given characters at positions 4, 8 and 11. */
export interface C02State extends VerifierState {
  observed_character_count: number;
  target_character_count: number;
  count_residual: number;
  target_positions_zero_based: number[];
  target_characters: unknown[];
  observed_characters: Array<string | null>;
  position_matches: boolean[];
  position_mismatch_count: number;
}

/** c03: a word with exactly N characters whose last character is given. */
export interface C03State extends VerifierState {
  observed_character_count: number;
  target_character_count: number;
  count_residual: number;
  target_last_character: unknown;
  observed_last_character: string | null;
  last_character_match: boolean;
}

/** c04: a sentence with exactly N characters (whitespace included). */
export interface C04State extends VerifierState {
  observed_character_count: number;
  target_character_count: number;
  count_residual: number;
}

/** c06a: at least N words, every word at most M characters. */
export interface C06aState extends VerifierState {
  observed_word_count: number;
  minimum_word_count: number;
  word_deficit: number;
  maximum_word_length: number;
  /** Only the words over the limit (1-based index among all words), so long texts stay compact. */
  long_words: Array<{ index: number; word: string; characters: number; excess: number }>;
}

/** c08: every sentence starts with the given word. */
export interface C08State extends VerifierState {
  observed_sentence_count: number;
  target_first_word: unknown;
  observed_first_words: Array<string | null>;
  first_word_matches: boolean[];
  first_word_mismatch_count: number;
}

/** c11: at least N sentences, each with at least L words. */
export interface C11State extends VerifierState {
  observed_sentence_count: number;
  minimum_sentence_count: number;
  sentence_deficit: number;
  minimum_words_per_sentence: number;
  sentence_word_counts: number[];
  word_deficits: number[];
}

/** c14: paragraphs ending in the given sentences, each with at least M sentences. */
export interface C14State extends VerifierState {
  observed_paragraph_count: number;
  target_paragraph_count: number;
  paragraph_count_residual: number;
  target_last_sentences: unknown[];
  observed_last_sentences: Array<string | null>;
  last_sentence_matches: boolean[];
  minimum_sentences_per_paragraph: number;
  paragraph_sentence_counts: number[];
  sentence_deficits: number[];
}
