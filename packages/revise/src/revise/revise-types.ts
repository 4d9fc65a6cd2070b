// The public types of `revise()` (docs/revise.md §1).
import type { AttemptRecord, ChatMessage, ReviseModel } from '../model.ts';
import type { CycleKind } from '../policy/recurrence.ts';
import type { PolicyName, RevisionPolicy } from '../policy/revision-policy.ts';
import type { LoopSink } from '../kernel/loop-types.ts';
import type { StopCondition, StopPredicate, Pricing } from '../kernel/stop.ts';
import type { RetryPolicy } from './retry.ts';
import type { ReviseTelemetry } from './telemetry.ts';
import type { LanguageModelLike } from './ai-sdk-types.ts';

export type { Pricing };

/** One thing the verifier found wrong. */
export interface Violation {
  /** A stable code (e.g. `too_long`, `invalid_type`); violation sets are compared by code and path. */
  code: string;
  message: string;
  /** Where in the output (a JSON path, a field name). */
  path?: string | ReadonlyArray<string | number>;
}

/** A verifier's verdict on one draft: ok, the violations (code, message, path) and an optional score. */
export interface VerifyResult {
  ok: boolean;
  violations: Violation[];
  /** Lower is better (e.g. a distance to the target); `best` prefers it over the violation count. */
  score?: number;
  /** The report to send back instead of the rendered violations (a registered family's exact report). */
  feedback?: string;
  /** The verifier's full state, recorded in a store (a registered family's state). */
  state?: Record<string, unknown>;
}

/** A user's verifier: a draft in, `{ ok, violations, score? }` out (sync or async). */
export type VerifyFunction = (draft: string, context: { attempt: number }) => VerifyResult | Promise<VerifyResult>;

/** A case of a constraint family: its id, its family's name, and whatever other fields the family reads. */
export interface FamilyCase {
  id: string;
  family: string;
}

/** The verifier state a family returns: joint success and one component per constraint (0 = satisfied). */
export interface FamilyState {
  joint_success: boolean;
  violation_vector: readonly number[];
  [field: string]: unknown;
}

/**
 * A constraint family as revloop's lab defines it (`revloop/core/verify`'s `getFamily(name)` returns
 * one): its prompt, verifier, energy, exact report and token limit per case.
 */
export interface FamilyLike {
  name: string;
  version: string;
  verify(text: string, c: any): FamilyState;
  energy(state: any): number;
  feedback(state: any, c: any, variant: any): string;
  initialPrompt(c: any, variant: any): string;
  maxNewTokens(c: any): number;
  validateCase(c: any): ReadonlyArray<readonly [string, string]>;
}

/**
 * A constraint family and one of its cases: the lab's verifier, exact report included. The family
 * is an object (`getFamily(name)` from `revloop/core/verify`), or its name where revise is imported from
 * `revloop/revise`, which knows every registered family.
 */
export interface FamilyVerify {
  family: string | FamilyLike;
  case: FamilyCase;
}

/** The budget of one `revise()` call, checked before every generation: revisions, tokens, USD, milliseconds. */
export interface ReviseBudget {
  /** Revisions after the first draft: at most revisions + 1 generations (default `PAPER_BUDGET`, 8). */
  revisions?: number;
  /** Prompt + completion tokens over every provider attempt. */
  tokens?: number;
  /** Money over every provider attempt (needs `pricing`). */
  usd?: number;
  /** Wall-clock milliseconds from the call. */
  ms?: number;
}

/** Your own feedback of a policy (`RevisionPolicy.feedback` in `revise()`): the text sent back after a failed draft, from its violations. */
export type FeedbackRenderer = (violations: Violation[], attempt: Attempt) => string;

/** Token usage summed over every provider attempt, failed ones included. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Generations requested (each may have taken several provider attempts). */
  generations: number;
  /** Provider attempts, failed ones included. */
  providerAttempts: number;
  /** Provider attempts whose usage the provider did not report, or reported negative or not finite (0 tokens above). */
  unreportedAttempts: number;
  /** When some attempts were unreported: the tokens the budgets counted for them (an estimate from characters, docs/revise.md §1). */
  estimatedTokens?: number;
}

/** One generation: what was sent, what came back, what the verifier said. */
export interface Attempt {
  /** 0 = the first draft. */
  index: number;
  messages: ChatMessage[];
  /** Earlier failed drafts banned in this generation: as token sequences (`failed-drafts`) or as complete answers (`complete-repeats`). */
  bannedSequences: string[];
  /** The output, stripped; null when every provider attempt failed. */
  draft: string | null;
  ok: boolean;
  violations: Violation[];
  score?: number;
  /** Every provider call of this generation, failed ones included. */
  providerAttempts: AttemptRecord[];
  usage: { promptTokens: number; completionTokens: number };
  /** Index of the earlier attempt with the same draft (under the policy's identity), or null. */
  recurrenceOf: number | null;
  /** The report sent back after this attempt (null when the loop stopped here). */
  feedback: string | null;
  latencyMs: number;
}

/**
 * What the loop did after a draft that completed a cycle: `continue` (the next request was built as
 * usual), `reset` (the history window restarted at it), `reset-abstract` (restarted with the
 * cycling draft replaced by its abstracted record, because a plain reset would have replayed an
 * earlier request), `kept-no-replay` (the history was kept: any reset would have replayed an
 * earlier request), `stop` (the cycle ended the loop), `ended` (the loop ended there for another
 * reason, e.g. its revision budget).
 */
export type CycleOutcome = 'continue' | 'reset' | 'reset-abstract' | 'kept-no-replay' | 'stop' | 'ended';

/** A cycle `revise()` hit: where, what kind, and what was done about it. */
export interface CycleReport {
  kind: CycleKind;
  period: number;
  /** The attempt that completed the pattern. */
  attempt: number;
  /** What was done (docs/revise.md §4). */
  action: CycleOutcome;
}

/** Why `revise()` stopped: ok, budget, cycle, stopped (a stop condition of yours), aborted, verifier_error or provider_error. */
export type ReviseStatus = 'ok' | 'budget' | 'cycle' | 'stopped' | 'aborted' | 'verifier_error' | 'provider_error';

/** What `revise()` returns on every status: the output, the best draft, every attempt, usage, cost and cycles. */
export interface ReviseResult {
  status: ReviseStatus;
  /** Which limit a `budget` status hit. */
  limit?: 'revisions' | 'tokens' | 'usd' | 'ms';
  /** The name of the condition of yours that stopped it (status `stopped`). */
  stop?: string;
  /** The passing draft, or the last draft when none passed (null when there is none). */
  output: string | null;
  /** The draft with the lowest score, else the fewest violations (earliest on ties). */
  best: { attempt: number; draft: string; violations: Violation[]; score?: number } | null;
  attempts: Attempt[];
  usage: Usage;
  /** Present when `pricing` was given. */
  usd?: number;
  cycles: CycleReport[];
  /** Why the loop ended, in words (errors included). */
  reason: string;
  /** The run id in the store, when `store` was given. */
  runId?: string;
}

/** What `revise()` reports as it goes (attempt started, finished, verified, cycle, policy action, done). */
export type ReviseEvent =
  | { type: 'attempt-started'; attempt: number; messages: ChatMessage[]; bannedSequences: string[]; projectedTokens: number }
  | { type: 'attempt-finished'; attempt: number; record: AttemptRecord }
  | { type: 'verified'; attempt: number; draft: string; ok: boolean; violations: Violation[]; score?: number }
  | { type: 'cycle'; attempt: number; kind: CycleKind; period: number }
  | { type: 'policy'; attempt: number; action: 'reset' | 'reset-abstract' | 'kept-no-replay' | 'stop' | 'ban'; reason: string }
  /** Usage a provider reported that is not a finite non-negative number: counted as unreported. */
  | { type: 'usage-rejected'; attempt: number; usage: unknown }
  /** A provider attempt reported after its generation was abandoned (deadline or abort): not counted, not used; may arrive after `done`. */
  | { type: 'late-attempt'; attempt: number; record: AttemptRecord }
  | { type: 'done'; result: ReviseResult };

/** Everything `revise()` takes: the model, the prompt or messages (never mutated), the verifier, budget, policy, pricing, signal and events. */
export interface ReviseOptions {
  /** A model with `generate` (revloop's `createModel(spec)`, or your own), or an AI SDK LanguageModel (v2/v3). */
  model: ReviseModel | LanguageModelLike;
  /** The task: a string (one user message) or chat messages (never mutated). Optional with a family verify (its initial prompt). */
  prompt?: string | readonly ChatMessage[];
  verify: VerifyFunction | FamilyVerify;
  budget?: ReviseBudget;
  /** A policy object (every field optional: the default, docs/revise.md §5) or a named policy (the lab's harness names). */
  policy?: Partial<RevisionPolicy<FeedbackRenderer>> | PolicyName;
  /** More stop conditions (kernel/stop.ts, or predicates over the loop so far), after the built-in ones. */
  stopWhen?:
    StopCondition<VerifyResult> | StopPredicate<VerifyResult> | ReadonlyArray<StopCondition<VerifyResult> | StopPredicate<VerifyResult>>;
  pricing?: Pricing;
  /**
   * Maximum completion tokens per generation: sent only when set (a family verify sets its own).
   * Unset, the token budget projects the last completion's size.
   */
  maxTokens?: number;
  /** Decoding temperature (default: the model's own). */
  temperature?: number;
  seed?: number;
  /** How an AI SDK model's retryable provider errors are retried (default: 2 retries, 2 s then 4 s, `Retry-After` honoured). */
  retry?: RetryPolicy;
  signal?: AbortSignal;
  onEvent?: (event: ReviseEvent) => void;
  /** OpenTelemetry spans (docs/revise.md §6): on by default when `@opentelemetry/api` is installed; `false` turns them off. */
  telemetry?: ReviseTelemetry | false;
  /** Receives every step of the loop in order and may delay the next generation by returning a promise (e.g. a durable write). */
  sink?: LoopSink<VerifyResult>;
}
