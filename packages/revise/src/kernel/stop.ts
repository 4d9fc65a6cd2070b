// Stop conditions of the kernel, composable in the manner of the AI SDK's `stopWhen`: a list of
// conditions, the first one that holds ends the loop. Each is checked at one of two moments:
//
// - after a verified draft (`afterDraft`): success, the revision budget, a persistent cycle, or a
//   predicate of your own over the loop so far (a plain function in the list is one of these);
// - before a generation starts (`beforeGeneration`), with the projection of what it would cost:
//   the token, money and time budgets. A generation is never started that would pass one.
//
// `ms` also sets a deadline: the kernel ends the loop on time even when the model or the verifier
// ignores its abort signal (their late answers are discarded; kernel/loop.ts).
import type { LoopRound, LoopState, Projection } from './loop-types.ts';

/** Why a condition ended the loop: its name, and in words what held. */
export interface StopVerdict {
  /** The condition's name: `success`, `revisions`, `cycle`, `tokens`, `usd`, `ms`, or your own. */
  reason: string;
  detail: string;
}

/** One stop condition; `name` is what the loop reports when it holds. */
export interface StopCondition<S = unknown> {
  readonly name: string;
  /** After each verified draft (and after the last restored draft of a resumed loop): does the loop end with it? */
  afterDraft?(state: LoopState<S>, round: LoopRound<S>): string | null;
  /** Before each generation: would starting it (at the projected cost) pass a limit? */
  beforeGeneration?(state: LoopState<S>, projection: Projection): string | null;
  /** The time (ms, on the kernel's clock) by which the loop must have ended. */
  deadline?(state: LoopState<S>): number | undefined;
}

/** A predicate of your own, checked after each verified draft: true ends the loop (reported as `name`). */
export type StopPredicate<S = unknown> = (state: LoopState<S>, round: LoopRound<S>) => boolean;

/** Stop at the first draft the verifier passes. */
export function stopOnSuccess<S = unknown>(): StopCondition<S> {
  return { name: 'success', afterDraft: (_s, r) => (r.ok ? `attempt ${r.index} passed` : null) };
}

/** Stop after revision `n`: at most n + 1 generations in all (the paper's budget T). */
export function stopAfterRevisions<S = unknown>(n: number): StopCondition<S> {
  return { name: 'revisions', afterDraft: (_s, r) => (r.index >= n ? `no draft passed within ${n} revisions` : null) };
}

/** Stop at a persistent cycle (docs/revise.md §4: a fixed point, a period-p cycle, a repeated violation set). */
export function stopOnCycle<S = unknown>(): StopCondition<S> {
  return {
    name: 'cycle',
    afterDraft: (_s, r) =>
      r.cycle
        ? `${r.cycle.kind === 'cycle' ? `a period-${r.cycle.period} cycle` : r.cycle.kind === 'fixed-point' ? 'a fixed point' : 'a repeated violation set'} at attempt ${r.index}`
        : null,
  };
}

/** Tokens spent so far as the budgets count them: what providers reported, plus the estimate for what they did not. */
export function spentTokens(s: LoopState<unknown>): number {
  const u = s.usage;
  return u.promptTokens + u.completionTokens + u.estimatedPromptTokens + u.estimatedCompletionTokens;
}

/** Never start a generation that would take prompt + completion tokens (over every provider attempt) past `n`. */
export function stopAtTokens<S = unknown>(n: number): StopCondition<S> {
  return {
    name: 'tokens',
    beforeGeneration: (s, p) =>
      spentTokens(s) + p.promptTokens + p.completionTokens > n
        ? `the tokens budget would be passed by generation ${p.index} (stopped before it)`
        : null,
  };
}

/** Prices in USD per million tokens. */
export interface Pricing {
  /** US dollars per million prompt tokens. */
  inputPerMTok: number;
  /** US dollars per million completion tokens. */
  outputPerMTok: number;
}

/** The money `prompt` and `completion` tokens cost. */
export function costOf(pricing: Pricing, prompt: number, completion: number): number {
  return (prompt * pricing.inputPerMTok + completion * pricing.outputPerMTok) / 1e6;
}

/** Never start a generation that would take the money spent (over every provider attempt) past `usd`. */
export function stopAtUsd<S = unknown>(usd: number, pricing: Pricing): StopCondition<S> {
  return {
    name: 'usd',
    beforeGeneration: (s, p) =>
      costOf(pricing, s.usage.promptTokens + s.usage.estimatedPromptTokens, s.usage.completionTokens + s.usage.estimatedCompletionTokens) +
        costOf(pricing, p.promptTokens, p.completionTokens) >
      usd
        ? `the usd budget would be passed by generation ${p.index} (stopped before it)`
        : null,
  };
}

/** End the loop `ms` milliseconds after it started: no generation starts later, and one in flight is abandoned then. */
export function stopAtMs<S = unknown>(ms: number): StopCondition<S> {
  return {
    name: 'ms',
    beforeGeneration: (s, p) =>
      s.now() - s.startedAt >= ms ? `the ms budget would be passed by generation ${p.index} (stopped before it)` : null,
    deadline: (s) => s.startedAt + ms,
  };
}

/** A predicate of your own as a condition (checked after each verified draft). */
export function stopWhen<S = unknown>(name: string, predicate: StopPredicate<S>): StopCondition<S> {
  return { name, afterDraft: (s, r) => (predicate(s, r) ? `${name} at attempt ${r.index}` : null) };
}

/** Conditions as the kernel takes them: plain predicates become `custom` conditions. */
export function stopConditions<S>(
  list: StopCondition<S> | StopPredicate<S> | ReadonlyArray<StopCondition<S> | StopPredicate<S>>,
): StopCondition<S>[] {
  const items = Array.isArray(list) ? list : [list];
  return items.map((c) => (typeof c === 'function' ? stopWhen('custom', c as StopPredicate<S>) : (c as StopCondition<S>)));
}
