// The kernel's vocabulary (kernel/loop.ts): a request, a verified round, the loop's state as stop
// conditions see it, what the sink is told, and how a loop ends.
import type { AttemptRecord, ChatMessage } from '../model.ts';
import type { CycleFinding, DraftNormalisation } from '../policy/recurrence.ts';
import type { HistoryAction } from '../policy/revision-messages.ts';

/** How drafts are identified for recurrence and cycles: `exact` (the stripped text, the paper's) or `normalised` (NFC, whitespace runs collapsed). */
export type Identity = DraftNormalisation;

/** What the policy did with the history to build a request, and which rule made it (reported with the cycle it answers). */
export interface RequestAction {
  action: HistoryAction;
  cause: 'recurrence' | 'cycle';
  /** The failed attempt the rule fired at. */
  attempt: number;
}

/** One generation's request: the messages, what is banned at decoding, the token limit. */
export interface LoopRequest {
  messages: ChatMessage[];
  /** Sequences the decoder must never complete (undefined: none; the `failed-drafts` ban). */
  bannedSequences?: string[];
  /** Complete answers the decoder must not stop at (undefined: none; the `complete-repeats` ban). */
  bannedAnswers?: string[];
  /** Completion tokens at most (undefined: the backend's own limit). */
  maxTokens?: number;
  /** What the history rules did to build this request (null: nothing fired at the latest attempt). */
  action?: RequestAction | null;
}

/** The verifier's verdict on a draft, as the kernel keeps it. */
export interface Verification<S> {
  ok: boolean;
  /** Whatever the verifier said (a family's state, a VerifyResult …): kept with the round. */
  state: S;
  /** The violated constraints as a sorted set of tags (empty when ok): compared for repeated violation sets. */
  violations: readonly string[];
  /** Lower is better (a score, else the number of violations). */
  measure: number;
}

/** A verified draft: what the verifier said, its identity, and what it repeats. */
export interface LoopRound<S> extends Verification<S> {
  /** 0 = the first draft; revision i is index i. */
  readonly index: number;
  /** The draft as verified: the model's text, stripped (Python str.strip). */
  readonly draft: string;
  /** Its identity under the loop's `identity` (equal keys: a recurrence). */
  readonly key: string;
  /** Index of the nearest earlier round with the same key, or null. */
  readonly recurrenceOf: number | null;
  /** The persistent cycle this round completes, if any (docs/revise.md §4). */
  readonly cycle: CycleFinding | null;
  /** The report sent back after it (null when the loop stopped at it, or before it was rendered). */
  feedback: string | null;
}

/** A round restored from elsewhere (a store, on resume): the kernel recomputes its identity. */
export interface PriorRound<S> extends Verification<S> {
  index: number;
  draft: string;
  feedback: string | null;
}

/** Token usage summed over every provider attempt (failed ones included) of this call. */
export interface LoopUsage {
  promptTokens: number;
  completionTokens: number;
  /** Provider attempts made, failed ones included. */
  providerAttempts: number;
  /** Attempts whose provider reported no usable usage (none, negative or not finite): 0 tokens in the counts above. */
  unreportedAttempts: number;
  /**
   * What the unreported attempts are estimated to have cost (the request's characters × the last
   * reported tokens per character, 0.5 before any; the text's characters × 0.5): the token and
   * money budgets count it, so a provider that reports nothing cannot run past them.
   */
  estimatedPromptTokens: number;
  estimatedCompletionTokens: number;
}

/** The loop so far, as stop conditions and guards see it. */
export interface LoopState<S> {
  readonly rounds: readonly LoopRound<S>[];
  readonly usage: Readonly<LoopUsage>;
  /** Generations started in this call. */
  readonly generations: number;
  /** When this call started (the kernel's clock, ms). */
  readonly startedAt: number;
  now(): number;
}

/** What the next generation would cost, projected before it starts. */
export interface Projection {
  index: number;
  request: LoopRequest;
  /** The request's characters × the prompt tokens per character the provider last reported (0.5 before any report). */
  promptTokens: number;
  /** `maxTokens` when set, else the last completion's reported size (its characters × 0.5 when unreported; 0 before any). */
  completionTokens: number;
}

/** A generation that starts: its index, request and projected cost. */
export interface GenerationStart {
  index: number;
  request: LoopRequest;
  projection: Projection;
}

/** A successful provider attempt, numbered from 1 within its generation (retries included). */
export interface NumberedAttempt {
  attempt: number;
  record: AttemptRecord;
}

/** One generation as it went: every provider attempt, their usage, the time it took. */
export interface Generation {
  index: number;
  request: LoopRequest;
  attempts: AttemptRecord[];
  usage: { promptTokens: number; completionTokens: number };
  latencyMs: number;
}

/** How a loop ended. */
export type LoopEnd =
  /** A stop condition (or the guard) held: `reason` is its name; `when` whether after a draft, before a generation, or during one (a deadline). */
  | { status: 'stopped'; reason: string; detail: string; when: 'draft' | 'generation' | 'during' }
  /**
   * Protocol-incomplete: the provider's attempts were exhausted or it failed (`provider`), the
   * verifier threw (`verifier`), or the guard's check failed (`guard`), at generation `index`.
   */
  | {
      status: 'incomplete';
      cause: 'provider' | 'verifier' | 'guard';
      index: number;
      message: string;
      /** Provider attempts made in that generation. */
      attempts: number;
      /** The last failed attempt's error, `kind: message`. */
      lastError: string | null;
    }
  /** The caller's signal aborted the loop. */
  | { status: 'aborted' };

/** Something the loop noticed without ending: usage it could not count, an answer that came too late. */
export type LoopNote =
  | { type: 'usage-rejected'; index: number; attempt: number; usage: unknown }
  | { type: 'late-attempt'; index: number; record: AttemptRecord };

/**
 * Receives every step of a loop, in order. `started` and `drafted` may return a promise (a store's
 * durable write): the kernel awaits it before the generation they announce starts, so a process
 * that dies loses at most the attempts in flight. (Typed `unknown` so that sinks returning anything
 * else stay valid, as with `void`.)
 */
export interface LoopSink<S> {
  /** The first generation of this call starts (later ones arrive with `drafted`). Awaited. */
  started?(start: GenerationStart): unknown;
  /** Each provider attempt of a generation in flight, numbered from 1, failed ones included. */
  attempt?(index: number, attempt: number, record: AttemptRecord): void;
  /**
   * A verified draft with the generation that produced it (`used`: its successful attempt). `end`
   * is set when the loop ends with it; otherwise `next` is the generation that starts now (null
   * only when `ended` follows: the guard's check failed). Awaited.
   */
  drafted?(
    round: LoopRound<S>,
    end: LoopEnd | null,
    generation: Generation & { used: NumberedAttempt },
    next: GenerationStart | null,
  ): unknown;
  /** The loop ended without a further draft: before a generation, during one (`generation`: what it did so far), or aborted. Awaited. */
  ended?(end: LoopEnd, rounds: readonly LoopRound<S>[], generation: Generation | null): unknown;
  note?(note: LoopNote): void;
}

/** What `runLoop` returns: how it ended, every round (restored ones first), the usage of this call. */
export interface LoopOutcome<S> {
  end: LoopEnd;
  rounds: LoopRound<S>[];
  usage: LoopUsage;
  generations: number;
}
