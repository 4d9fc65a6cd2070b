// The engine's sink backed by the store: every step of a trajectory becomes events, each step one
// atomic group. A round is one group (its successful attempt, the accepted draft, then the
// completion or the next generation's start), so the log never holds a finished loop without its
// end marker. Rounds and first starts go through the store's group commit (all the groups queued in
// one turn of the event loop share a transaction) and the engine waits for the commit before it
// starts the generation they announce, so a dead process loses only attempts in flight. Failed
// attempts (reported from inside a generation) join the next group commit, and every later write
// of the trajectory waits for them.
import type { AcceptedRound, AttemptStart, GuardStop, NumberedAttempt, StopReason, TrajectorySink } from './loop.ts';
import type { AttemptRecord } from '../models/types.ts';
import type { NewEvent } from '../store/events.ts';
import type { AppendOptions, Lease, RunStore } from '../store/store.ts';

export class StoreRecorder implements TrajectorySink {
  /** Set when the run is stopping: late callbacks from abandoned calls are not recorded. */
  closed = false;

  /** Every write carries the lease (when there is one): the store refuses it once the lease is taken over. */
  private readonly options: AppendOptions;

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    private readonly caseIndex: number,
    lease?: Lease,
  ) {
    this.options = lease ? { lease } : {};
  }

  /** Writes still in flight (failed attempts are reported from inside a generation, which cannot wait). */
  private pending: Array<Promise<void>> = [];

  private write(events: NewEvent[]): void {
    if (this.closed) return;
    const written = this.store.appendSoon(this.runId, events, this.options);
    // Awaited by the next settle(); a trajectory abandoned before that must not leave it unhandled.
    written.catch(() => undefined);
    this.pending.push(written);
  }

  /** Resolves once every earlier write is committed (rejects with the first failure). */
  private async settle(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
  }

  /** Resolves once the events are committed (group commit). */
  private writeSoon(events: NewEvent[]): Promise<void> {
    return this.closed ? Promise.resolve() : this.store.appendSoon(this.runId, events, this.options);
  }

  private started(s: AttemptStart): NewEvent {
    const payload = {
      messages_sha256: s.messagesSha256,
      message_count: s.messageCount,
      max_tokens: s.maxTokens,
      ...(s.bannedSequences ? { banned_sequences: s.bannedSequences } : {}),
      ...(s.bannedAnswers ? { banned_answers: s.bannedAnswers } : {}),
    };
    return { type: 'attempt_started', caseIndex: this.caseIndex, revision: s.revision, payload };
  }

  attemptStarted(s: AttemptStart): Promise<void> {
    return this.writeSoon([this.started(s)]);
  }

  attemptFinished(revision: number, attempt: number, record: AttemptRecord): void {
    this.write([{ type: 'attempt_finished', caseIndex: this.caseIndex, revision, payload: { attempt, record } }]);
  }

  async draftAccepted(
    round: AcceptedRound,
    stop: StopReason | null,
    attempt: NumberedAttempt,
    next: AttemptStart | null,
    detail?: string,
  ): Promise<void> {
    const events: NewEvent[] = [
      {
        type: 'attempt_finished',
        caseIndex: this.caseIndex,
        revision: round.revision,
        payload: { attempt: attempt.attempt, record: attempt.record },
      },
      {
        type: 'draft_accepted',
        caseIndex: this.caseIndex,
        revision: round.revision,
        payload: { text: round.text, state: round.state, energy: round.energy, joint: round.joint, feedback: round.feedback },
      },
    ];
    if (stop) {
      events.push({
        type: 'trajectory_completed',
        caseIndex: this.caseIndex,
        revision: round.revision,
        payload: { stop, rounds: round.revision + 1, final_joint: round.joint, ...(detail !== undefined ? { detail } : {}) },
      });
    } else if (next) events.push(this.started(next));
    await Promise.all([this.settle(), this.writeSoon(events)]);
  }

  /** A guard ended the trajectory before this session's first generation (after `rounds` rounds). */
  async terminated(rounds: number, halt: GuardStop): Promise<void> {
    const committed = this.writeSoon([
      {
        type: 'trajectory_completed',
        caseIndex: this.caseIndex,
        revision: rounds - 1,
        payload: { stop: halt.stop, rounds, final_joint: false, detail: halt.detail },
      },
    ]);
    await this.settle();
    await committed;
  }

  async incomplete(revision: number, reason: string): Promise<void> {
    this.write([{ type: 'trajectory_incomplete', caseIndex: this.caseIndex, revision, payload: { reason } }]);
    await this.settle();
  }
}
