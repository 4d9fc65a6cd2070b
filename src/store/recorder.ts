// The engine's sink backed by the store: every step of a trajectory becomes events, written
// synchronously in one transaction per step. A round is one transaction (its successful attempt,
// the accepted draft, then the completion or the next generation's start), so the log never holds
// a finished loop without its end marker, and a dead process loses only attempts in flight.
import type { AcceptedRound, AttemptStart, NumberedAttempt, StopReason, TrajectorySink } from '../loop/engine.ts';
import type { AttemptRecord } from '../models/types.ts';
import type { NewEvent } from './events.ts';
import type { RunStore } from './store.ts';

export class StoreRecorder implements TrajectorySink {
  /** Set when the run is stopping: late callbacks from abandoned calls are not recorded. */
  closed = false;

  constructor(private readonly store: RunStore, private readonly runId: string, private readonly caseIndex: number) {}

  private write(events: NewEvent[]): void {
    if (!this.closed) this.store.append(this.runId, events);
  }

  private started(s: AttemptStart): NewEvent {
    const payload = { messages_sha256: s.messagesSha256, message_count: s.messageCount, max_tokens: s.maxTokens, ...(s.bannedSequences ? { banned_sequences: s.bannedSequences } : {}) };
    return { type: 'attempt_started', caseIndex: this.caseIndex, revision: s.revision, payload };
  }

  attemptStarted(s: AttemptStart): void {
    this.write([this.started(s)]);
  }

  attemptFinished(revision: number, attempt: number, record: AttemptRecord): void {
    this.write([{ type: 'attempt_finished', caseIndex: this.caseIndex, revision, payload: { attempt, record } }]);
  }

  draftAccepted(round: AcceptedRound, stop: StopReason | null, attempt: NumberedAttempt, next: AttemptStart | null): void {
    const events: NewEvent[] = [
      { type: 'attempt_finished', caseIndex: this.caseIndex, revision: round.revision, payload: { attempt: attempt.attempt, record: attempt.record } },
      {
        type: 'draft_accepted',
        caseIndex: this.caseIndex,
        revision: round.revision,
        payload: { text: round.text, state: round.state, energy: round.energy, joint: round.joint, feedback: round.feedback },
      },
    ];
    if (stop) {
      events.push({ type: 'trajectory_completed', caseIndex: this.caseIndex, revision: round.revision, payload: { stop, rounds: round.revision + 1, final_joint: round.joint } });
    } else if (next) events.push(this.started(next));
    this.write(events);
  }

  incomplete(revision: number, reason: string): void {
    this.write([{ type: 'trajectory_incomplete', caseIndex: this.caseIndex, revision, payload: { reason } }]);
  }
}
