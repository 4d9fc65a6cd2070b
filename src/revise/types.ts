// The public types of `revise()` (docs/revise.md §1).
import type { AttemptRecord, ChatMessage, Model } from '../models/types.ts';
import type { ConstraintCase } from '../core/verify/types.ts';
import type { CycleKind, HistorySpec, BanSpec, CycleAction, RevisionFeedback } from '../remedy/index.ts';
import type { RunStore } from '../store/store.ts';
import type { LanguageModelLike } from './ai-sdk-types.ts';

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

/** A registered constraint family and one of its cases (`revloop/verify`): the lab's verifier. */
export interface FamilyVerify {
  family: string;
  case: ConstraintCase;
}

/** The budget of one `revise()` call, checked before every generation: revisions, tokens, USD, milliseconds. */
export interface ReviseBudget {
  /** Revisions after the first draft: at most revisions + 1 generations (default 8). */
  revisions?: number;
  /** Prompt + completion tokens over every provider attempt. */
  tokens?: number;
  /** Money over every provider attempt (needs `pricing`). */
  usd?: number;
  /** Wall-clock milliseconds from the call. */
  ms?: number;
}

/** How `revise()` revises: history window, feedback form, bans of failed drafts, and what to do on a cycle. */
export interface RevisePolicy {
  history?: HistorySpec;
  /** `verbatim`, `abstract`, `drop`, or your own rendering of the violations (sent after the draft). */
  feedback?: RevisionFeedback | ((violations: Violation[], attempt: Attempt) => string);
  ban?: BanSpec;
  onCycle?: CycleAction;
}

/** Prices in USD per million tokens, for `revise()`'s money budget and cost report. */
export interface Pricing {
  /** US dollars per million prompt tokens. */
  inputPerMTok: number;
  /** US dollars per million completion tokens. */
  outputPerMTok: number;
}

/** Token usage summed over every provider attempt, failed ones included. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Generations requested (each may have taken several provider attempts). */
  generations: number;
  /** Provider attempts, failed ones included. */
  providerAttempts: number;
  /** Provider attempts whose usage the provider did not report (counted as 0 tokens). */
  unreportedAttempts: number;
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
  /** Index of the earlier attempt with the same (normalised) draft, or null. */
  recurrenceOf: number | null;
  /** The report sent back after this attempt (null when the loop stopped here). */
  feedback: string | null;
  latencyMs: number;
}

/** A cycle `revise()` hit: where, what kind, and what the policy did about it. */
export interface CycleReport {
  kind: CycleKind;
  period: number;
  /** The attempt that completed the pattern. */
  attempt: number;
  /** What followed (onCycle). */
  action: CycleAction;
}

/** Why `revise()` stopped: ok, budget, cycle, aborted, verifier_error or provider_error. */
export type ReviseStatus = 'ok' | 'budget' | 'cycle' | 'aborted' | 'verifier_error' | 'provider_error';

/** What `revise()` returns on every status: the output, the best draft, every attempt, usage, cost and cycles. */
export interface ReviseResult {
  status: ReviseStatus;
  /** Which limit a `budget` status hit. */
  limit?: 'revisions' | 'tokens' | 'usd' | 'ms';
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
  | { type: 'policy'; attempt: number; action: 'reset' | 'stop' | 'ban'; reason: string }
  | { type: 'done'; result: ReviseResult };

/** Everything `revise()` takes: the model, the prompt or messages (never mutated), the verifier, budget, policy, pricing, signal, events and an optional store. */
export interface ReviseOptions {
  /** A revloop Model (`createModel(spec)`), a model spec string, or an AI SDK LanguageModel (v2/v3). */
  model: Model | LanguageModelLike | string;
  /** The task: a string (one user message) or chat messages (never mutated). Optional with a family verify (its initial prompt). */
  prompt?: string | readonly ChatMessage[];
  verify: VerifyFunction | FamilyVerify;
  budget?: ReviseBudget;
  policy?: RevisePolicy;
  pricing?: Pricing;
  /** Maximum completion tokens per generation (default 1024): also the token budget's projection of a completion. */
  maxTokens?: number;
  /** Decoding temperature (default: the model's own). */
  temperature?: number;
  seed?: number;
  signal?: AbortSignal;
  onEvent?: (event: ReviseEvent) => void;
  /** Record the loop as a run (kind `revise`) in a revloop store, a RunStore or a location such as `runs.db`. */
  store?: RunStore | string;
  /** The run id in the store (default: `revise-<time>-<hash>`). */
  runId?: string;
  /** The case id recorded in the store (default `revise`). */
  caseId?: string;
}
