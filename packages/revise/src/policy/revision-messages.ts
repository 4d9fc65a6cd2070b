// Message policies for revision loops (docs/revise.md §3): which earlier exchanges a revision
// request carries (the history window, restarted at recurrences or cycles) and how each failed
// draft appears in it. The lab's harnesses (src/engine/harness.ts) and `revise()` build their
// requests here, so a policy name means the same messages in both.
//
// - `verbatim`: the paper's turns, the stripped draft as the assistant turn and the verifier's
//   report as the next user turn (docs/protocol.md §1.1);
// - `abstract`: no failed draft is sent back; one user turn holds an abstracted record of each
//   kept failed attempt (its number and the report on it), as the agent study's abstract harness
//   does for failed tool calls (docs/harness.md §5.1);
// - `drop`: failed drafts and reports are deleted, every request is the initial one.
import type { ChatMessage } from '../models/types.ts';
import { abstractDraftNote } from './failure-record.ts';
import { selectExchanges, type Exchange, type HistoryWindow } from './history-window.ts';
import { cycleAt, recurrenceOf, type AttemptShape } from './recurrence.ts';

/** The feedback form of a revision loop: the verbatim report, or abstracted failure records. */
export type RevisionFeedback = 'verbatim' | 'abstract' | 'drop';
/** The feedback forms a revision loop can send: the verbatim report, or abstracted failure records. */
export const REVISION_FEEDBACKS: readonly RevisionFeedback[] = ['verbatim', 'abstract', 'drop'];

/** How a revision request is built from the failed attempts so far. */
export interface RevisionMessagePolicy {
  feedback: RevisionFeedback;
  window: HistoryWindow;
  /** Restart the window at every draft recurrence (`reset-on-recurrence`). */
  resetOnRecurrence: boolean;
  /** Restart the window at every cycle (`onCycle: 'reset'`). */
  resetOnCycle: boolean;
}

/** An earlier failed attempt: what was sent back, and its shape for the recurrence rules. */
export interface RevisionExchange extends Exchange, AttemptShape {}

/**
 * Where the window starts: the latest exchange at which a restart rule fired (the exchange itself
 * is kept, so the next request is [initial, that draft, its report]), or 0. A restart that would
 * replay an earlier request is skipped: when the repeated draft is one that an earlier request
 * already carried alone (always so for a repeat of the first draft), the reset request equals that
 * request, and a deterministic model answers it as before (the paper's trigger-state caveat,
 * docs/revise.md §5).
 */
export function windowStart(
  exchanges: readonly RevisionExchange[],
  policy: Pick<RevisionMessagePolicy, 'resetOnRecurrence' | 'resetOnCycle'>,
): number {
  if (!policy.resetOnRecurrence && !policy.resetOnCycle) return 0;
  const keys = exchanges.map((e) => e.key);
  /** Keys of drafts that some request carried as the only exchange after the initial messages. */
  const alone = new Set<string>(keys.length ? [keys[0]] : []);
  let start = 0;
  for (let i = 1; i < exchanges.length; i++) {
    const fires = (policy.resetOnRecurrence && recurrenceOf(keys, i) !== null) || (policy.resetOnCycle && cycleAt(exchanges, i) !== null);
    if (fires && !alone.has(keys[i])) {
      start = i;
      alone.add(keys[i]);
    }
  }
  return start;
}

/** The exchanges a request carries, oldest first. */
export function keptExchanges<T extends RevisionExchange>(exchanges: readonly T[], policy: RevisionMessagePolicy): T[] {
  return selectExchanges(exchanges.slice(windowStart(exchanges, policy)), policy.window);
}

/**
 * The request for the next revision: the initial messages (copied, never mutated), then the kept
 * exchanges under the feedback mode. With `verbatim`, the paper's window and no restart rule, this
 * is `buildHistoryMessages` byte for byte.
 */
export function buildRevisionMessages(
  initial: readonly ChatMessage[],
  exchanges: readonly RevisionExchange[],
  policy: RevisionMessagePolicy,
): ChatMessage[] {
  const messages: ChatMessage[] = initial.map((m) => ({ role: m.role, content: m.content }));
  if (policy.feedback === 'drop') return messages;
  const kept = keptExchanges(exchanges, policy);
  if (policy.feedback === 'abstract') {
    if (kept.length) messages.push({ role: 'user', content: kept.map((e) => abstractDraftNote(e.revision + 1, e.feedback)).join('\n\n') });
    return messages;
  }
  for (const e of kept) messages.push({ role: 'assistant', content: e.draft }, { role: 'user', content: e.feedback });
  return messages;
}
