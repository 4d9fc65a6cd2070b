// The message rules of revision policies (docs/revise.md §3): which earlier exchanges a revision
// request carries (the history window, restarted at recurrences or cycles) and how each failed
// draft appears in it. The lab's harnesses (src/engine/round-policy.ts) and `revise()` build their
// requests here, so a policy name means the same messages in both.
//
// - `verbatim`: the paper's turns, the stripped draft as the assistant turn and the verifier's
//   report as the next user turn (docs/protocol.md §1.1);
// - `abstract`: no failed draft is sent back; one user turn holds an abstracted record of each
//   kept failed attempt (its number and the report on it), as the agent study's abstract harness
//   does for failed tool calls (docs/harness.md §5.1);
// - `drop`: failed drafts and reports are deleted, every request is the initial one.
import type { ChatMessage } from '../model.ts';
import { abstractDraftNote } from './failure-record.ts';
import { selectExchanges, type Exchange, type HistoryWindow } from './history-window.ts';
import { cycleAt, recurrenceOf, type AttemptShape } from './recurrence.ts';

/** The feedback form of a revision loop: the verbatim report, or abstracted failure records. */
export type RevisionFeedback = 'verbatim' | 'abstract' | 'drop';
/** The feedback forms a revision loop can send: the verbatim report, or abstracted failure records. */
export const REVISION_FEEDBACKS: readonly RevisionFeedback[] = ['verbatim', 'abstract', 'drop'];

/**
 * The message rules of a revision policy (`messageRulesOf`): how a revision request is built from
 * the failed attempts so far — the feedback form, the parsed history window and its restart rules.
 */
export interface MessageRules {
  feedback: RevisionFeedback;
  window: HistoryWindow;
  /** Restart the window at every draft recurrence (`reset-on-recurrence`). */
  resetOnRecurrence: boolean;
  /** Restart the window at every cycle (`onCycle: 'reset'`). */
  resetOnCycle: boolean;
}

/** An earlier failed attempt: what was sent back, and its shape for the recurrence rules. */
export interface RevisionExchange extends Exchange, AttemptShape {}

/** What a restart rule did at a failed attempt: restarted the window there, restarted it with the attempt abstracted, or kept the history. */
export type HistoryAction = 'reset' | 'reset-abstract' | 'kept-no-replay';

/** The history window of the next request, and what the restart rules did at the latest attempt. */
export interface WindowPlan {
  /** Index of the first exchange the window keeps. */
  start: number;
  /** The first kept exchange goes as its abstracted record (a cycle reset that would have replayed an earlier request). */
  abstractHead: boolean;
  /** What the restart rules did at the latest exchange (null: no rule fired there), and which rule fired. */
  latest: { action: HistoryAction; cause: 'recurrence' | 'cycle' } | null;
}

/**
 * The history window of the next request (docs/revise.md §4). A restart rule fires at an exchange
 * whose draft recurs (`resetOnRecurrence`) or completes a persistent cycle (`resetOnCycle`); the
 * window then starts there (the exchange itself is kept, so the next request is [initial, that
 * draft, its report]). A restart that would replay an earlier request is not made: when the
 * repeated draft is one that an earlier request already carried alone (always so for a repeat of
 * the first draft), the reset request equals that request, and a deterministic model answers it as
 * before (the paper's trigger-state caveat, docs/revise.md §5). At a recurrence the history is then
 * kept (`kept-no-replay`); at a cycle under `onCycle: 'reset'` the window still restarts there,
 * with the cycling draft replaced by its abstracted record (`reset-abstract`: the request
 * [initial, "[attempt N failed; that draft is not repeatable]" + report] never went out before,
 * and does not carry the draft the model is stuck on). With `drop` feedback every request is the
 * initial one, so nothing can change (`kept-no-replay`).
 */
export function planWindow(
  exchanges: readonly RevisionExchange[],
  rules: Pick<MessageRules, 'resetOnRecurrence' | 'resetOnCycle'> & { feedback?: RevisionFeedback },
): WindowPlan {
  if (!rules.resetOnRecurrence && !rules.resetOnCycle) return { start: 0, abstractHead: false, latest: null };
  const keys = exchanges.map((e) => e.key);
  /** Keys of drafts that some request carried as the only exchange after the initial messages. */
  const alone = new Set<string>(keys.length ? [keys[0]] : []);
  let start = 0;
  let abstractHead = false;
  let latest: WindowPlan['latest'] = null;
  for (let i = 1; i < exchanges.length; i++) {
    const cycle = rules.resetOnCycle && cycleAt(exchanges, i) !== null;
    const recurrence = rules.resetOnRecurrence && recurrenceOf(keys, i) !== null;
    latest = null;
    if (!cycle && !recurrence) continue;
    const cause = cycle ? 'cycle' : 'recurrence';
    if (!alone.has(keys[i])) {
      start = i;
      abstractHead = false;
      alone.add(keys[i]);
      latest = { action: 'reset', cause };
    } else if (cycle && rules.feedback !== 'drop') {
      start = i;
      abstractHead = true;
      latest = { action: 'reset-abstract', cause };
    } else latest = { action: 'kept-no-replay', cause };
  }
  return { start, abstractHead, latest };
}

/** Where the window starts (see `planWindow`). */
export function windowStart(
  exchanges: readonly RevisionExchange[],
  rules: Pick<MessageRules, 'resetOnRecurrence' | 'resetOnCycle'> & { feedback?: RevisionFeedback },
): number {
  return planWindow(exchanges, rules).start;
}

/** The exchanges a request carries, oldest first. */
export function keptExchanges<T extends RevisionExchange>(exchanges: readonly T[], rules: MessageRules): T[] {
  return selectExchanges(exchanges.slice(windowStart(exchanges, rules)), rules.window);
}

/**
 * The request for the next revision: the initial messages (copied, never mutated), then the kept
 * exchanges under the feedback mode. With `verbatim`, the paper's window and no restart rule, this
 * is `buildHistoryMessages` byte for byte.
 */
export function buildRevisionMessages(
  initial: readonly ChatMessage[],
  exchanges: readonly RevisionExchange[],
  rules: MessageRules,
): ChatMessage[] {
  return planRevisionRequest(initial, exchanges, rules).messages;
}

/** The next request's messages, and what the restart rules did at the latest failed attempt (`planWindow`). */
export function planRevisionRequest(
  initial: readonly ChatMessage[],
  exchanges: readonly RevisionExchange[],
  rules: MessageRules,
): { messages: ChatMessage[]; latest: WindowPlan['latest'] } {
  const messages: ChatMessage[] = initial.map((m) => ({ role: m.role, content: m.content }));
  const plan = planWindow(exchanges, rules);
  if (rules.feedback === 'drop') return { messages, latest: plan.latest };
  const kept = selectExchanges(exchanges.slice(plan.start), rules.window);
  if (rules.feedback === 'abstract') {
    if (kept.length) messages.push({ role: 'user', content: kept.map((e) => abstractDraftNote(e.revision + 1, e.feedback)).join('\n\n') });
    return { messages, latest: plan.latest };
  }
  const head = plan.abstractHead ? exchanges[plan.start] : null;
  for (const e of kept) {
    if (e === head) messages.push({ role: 'user', content: abstractDraftNote(e.revision + 1, e.feedback) });
    else messages.push({ role: 'assistant', content: e.draft }, { role: 'user', content: e.feedback });
  }
  return { messages, latest: plan.latest };
}
