// The verifier contract shared by every constraint family. A verifier is pure and deterministic:
// (text, case) → state. Feedback rendering and prompts are separate functions of the family.

/** Prompt/feedback wording variants. "baseline" is the reference protocol. */
export type PromptVariant = 'baseline' | 'structured' | 'concise';
export const PROMPT_VARIANTS: readonly PromptVariant[] = ['baseline', 'structured', 'concise'];

/** Built-in family names; users may register more. */
export type BuiltinFamily = 'exact-length' | 'c05' | 'c07' | 'c09' | 'c10' | 'c12';
export const BUILTIN_FAMILIES: readonly BuiltinFamily[] = ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12'];

/**
 * A verifier state. Field names and order are the reference's (PROTOCOL.md §1.6); every state has
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
  /** Structured (COLLIE) families: the task text, the COLLIE targets and the witness. */
  task?: string;
  targets?: unknown;
  witness?: string;
  /** The original row, kept verbatim for exports in the paper's schema. */
  row?: Record<string, unknown>;
}

export interface Family<S extends VerifierState = VerifierState> {
  name: string;
  /** Bumped whenever verification, feedback or prompts change; hashed into run plans. */
  version: string;
  verify(text: string, c: ConstraintCase): S;
  /** Plain left-to-right float sum of the violation vector. */
  energy(state: S): number;
  feedback(state: S, c: ConstraintCase, variant?: PromptVariant): string;
  initialPrompt(c: ConstraintCase, variant?: PromptVariant): string;
  maxNewTokens(c: ConstraintCase): number;
  /** Problems with a case's fields, as [field, problem] pairs; empty when valid. */
  validateCase(c: ConstraintCase): Array<[string, string]>;
}
