// The verifier contract shared by every constraint family. A verifier is pure and deterministic:
// (text, case) → state. Feedback rendering and prompts are separate functions of the family.
import { COLLIE_CODES, type CollieCode } from './collie/types.ts';

/** Prompt/feedback wording variants. "baseline" is the reference protocol. */
export type PromptVariant = 'baseline' | 'structured' | 'concise';
/** The prompt variants every family renders: `baseline` (the paper's), `structured`, `concise`. */
export const PROMPT_VARIANTS: readonly PromptVariant[] = ['baseline', 'structured', 'concise'];

/** Built-in family names; users may register more. */
export type BuiltinFamily = 'exact-length' | 'c05' | 'c07' | 'c09' | 'c10' | 'c12' | CollieCode | 'ifeval';
/** The names of the built-in families, in registry order. */
export const BUILTIN_FAMILIES: readonly BuiltinFamily[] = ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12', ...COLLIE_CODES, 'ifeval'];

/**
 * A verifier state. Field names and order are the reference's (docs/protocol.md §1.6); every state has
 * `joint_success` and `violation_vector` (floats, in the reference's order).
 */
export interface VerifierState {
  joint_success: boolean;
  violation_vector: number[];
  [field: string]: unknown;
}

/** One case of any family, normalised from whichever file format it came from. */
export interface ConstraintCase {
  id: string;
  /** 'exact-length', 'c05', … or a registered family. */
  family: string;
  /** Source for stratification (e.g. ccnews, guten, wiki; dolly_creative_writing, …). */
  source: string;
  /** Exact length: the instruction and target word count, and the anchors in frozen order. */
  instruction?: string;
  target?: number;
  anchors?: string[];
  /** Structured (COLLIE) families: the task text and the COLLIE targets. IFEval: the prompt, and {instruction_id_list, kwargs, mode?}. */
  task?: string;
  targets?: unknown;
  /**
   * A human-written text known to satisfy the case: the COLLIE witness, or for exact-length the
   * reference response. When present, case validation checks that it passes its own verifier.
   */
  witness?: string;
  /** The original row, kept verbatim for exports in the paper's schema. */
  row?: Record<string, unknown>;
}

/**
 * Which text `revloop verify` and `verifyBatch` hand a family's verifier: the text `stripped` (Python
 * `str.strip()`, as the paper's protocol strips every draft) or the text `as-given` (as the
 * benchmark's own checker judges it: COLLIE's and IFEval's). The revision loop always verifies the
 * stripped draft, whatever the family (the paper's protocol). See text-rule.ts.
 */
export type TextRule = 'stripped' | 'as-given';

/**
 * A constraint family: a pure, deterministic verifier from text and case to state, plus its energy, feedback, prompts, token limit and
 * case validation. Implement it and pass it to `registerFamily` to add your own.
 */
export interface Family<S extends VerifierState = VerifierState> {
  name: string;
  /** Bumped whenever verification, feedback or prompts change; hashed into run plans. */
  version: string;
  verify(text: string, c: ConstraintCase): S;
  /**
   * The text `revloop verify` judges (default `stripped`): `as-given` when the benchmark's checker
   * sees the raw output (whitespace at the ends can change the verdict, e.g. COLLIE's c04 counts it).
   */
  textRule?: TextRule;
  /** Plain left-to-right float sum of the violation vector. */
  energy(state: S): number;
  feedback(state: S, c: ConstraintCase, variant?: PromptVariant): string;
  initialPrompt(c: ConstraintCase, variant?: PromptVariant): string;
  maxNewTokens(c: ConstraintCase): number;
  /** Problems with a case's fields, as [field, problem] pairs; empty when valid. */
  validateCase(c: ConstraintCase): Array<[string, string]>;
  /** One line saying what the family checks (for listings and documentation). */
  description?: string;
  /**
   * The reference's corruption checks for a witness (every value must be true): each perturbs the
   * witness in a way the verifier must detect. Only families with a published check define it.
   */
  corruptionChecks?(c: ConstraintCase): Record<string, boolean>;
}

/** Exact-length state (docs/protocol.md §1.6; paper Eq. 7 for the vector), fields in this order. */
export interface ExactLengthState extends VerifierState {
  word_count: number;
  /** word_count − target (signed). */
  error: number;
  exact_length: boolean;
  /** Anchors not found, in the frozen anchor order. */
  missing: string[];
  joint_success: boolean;
  /** [|error| / max(target, 1), then 1.0/0.0 per anchor: missing or not]. */
  violation_vector: number[];
}

/** The state of `c05` (word count and words at given positions). */
export interface C05State extends VerifierState {
  observed_word_count: number;
  target_word_count: number;
  count_residual: number;
  target_positions_zero_based: number[];
  target_words: unknown[];
  observed_words: Array<string | null>;
  position_matches: boolean[];
  position_mismatch_count: number;
}

/** The state of `c07` (required words present). */
export interface C07State extends VerifierState {
  target_words: unknown[];
  target_present: boolean[];
  missing_count: number;
}

/** The sentence-count fields shared by the states of `c09`, `c10` and `c12`. */
export interface SentenceCountFields {
  observed_sentence_count: number;
  target_sentence_count: number;
  sentence_count_residual: number;
}

/** The state of `c09` (sentence count and forbidden words). */
export interface C09State extends VerifierState, SentenceCountFields {
  forbidden_words: unknown[];
  forbidden_word_counts: number[];
}

/** The state of `c10` (sentence count and words per sentence within bounds). */
export interface C10State extends VerifierState, SentenceCountFields {
  sentence_word_counts: number[];
  lower_bound: number;
  upper_bound: number;
  lower_deficits: number[];
  upper_excesses: number[];
}

/** The state of `c12` (sentence count and the last word of each sentence). */
export interface C12State extends VerifierState, SentenceCountFields {
  target_last_words: unknown[];
  observed_last_words: Array<string | null>;
  last_word_matches: boolean[];
  last_word_mismatch_count: number;
}
