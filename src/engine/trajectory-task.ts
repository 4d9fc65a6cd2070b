// One trajectory of a stored run, continued from what the store holds and recorded through the
// store's sink: shared by the single-writer run (run.ts) and by workers holding leases (worker.ts).
import type { TrajectoryRecord } from '../store/types.ts';
import type { Family } from '../core/verify/types.ts';
import { runTrajectory, type AcceptedRound, type TrajectoryOutcome } from './loop.ts';
import type { ProtocolConfig } from './protocol.ts';
import type { StoreRecorder } from './recorder.ts';
import type { RunRequest } from './trajectory-run.ts';

/** What running a planned run's trajectories needs besides the store: model, protocol, families (a run request's). */
export type RunContext = Pick<
  RunRequest,
  'runId' | 'model' | 'protocol' | 'resolveFamily' | 'extraBody' | 'messagePolicy' | 'banProvider' | 'guard'
>;

/** Accepted rounds of a stored trajectory, with the feedback the model saw after each. */
export function priorRounds(t: TrajectoryRecord, family: Family, protocol: ProtocolConfig): AcceptedRound[] {
  return t.rounds.map((r, i) => {
    const last = i === t.rounds.length - 1;
    const feedback = r.feedback ?? (last && r.joint ? null : family.feedback(r.state, t.case, protocol.variant));
    // Object.assign, not a spread: docs/performance.md#hidden-classes
    return Object.assign({}, r, { feedback });
  });
}

/**
 * Continues `t` from its last accepted round, recording every step; `onRound` counts committed rounds.
 *
 * With `onFinalCommit`, the round that ends the trajectory is not waited for: its commit promise goes
 * to `onFinalCommit` and the outcome comes back at once, so the caller can start its next trajectory,
 * whose first start then joins the same group commit (one transaction instead of two at every
 * trajectory boundary). No generation waits on that round, so nothing runs ahead of what is durable;
 * the caller must wait for the promise (and treat its failure as the run's) before it reports the
 * trajectory or finishes.
 */
export function recordTrajectory(
  ctx: RunContext,
  t: TrajectoryRecord,
  recorder: StoreRecorder,
  signal: AbortSignal,
  onRound: () => void,
  onFinalCommit?: (committed: Promise<void>) => void,
): Promise<TrajectoryOutcome> {
  const family = ctx.resolveFamily(t.family);
  return runTrajectory(
    { caseIndex: t.caseIndex, case: t.case, family, prior: priorRounds(t, family, ctx.protocol) },
    ctx.model,
    {
      attemptStarted: (s) => recorder.attemptStarted(s),
      attemptFinished: (r, a, rec) => recorder.attemptFinished(r, a, rec),
      draftAccepted: (round, stop, attempt, next, detail) => {
        const committed = recorder.draftAccepted(round, stop, attempt, next, detail).then(() => {
          if (!recorder.closed) onRound();
        });
        if (!stop || !onFinalCommit) return committed;
        onFinalCommit(committed);
        return undefined;
      },
      incomplete: (r, reason) => recorder.incomplete(r, reason),
      terminated: (n, halt) => recorder.terminated(n, halt),
    },
    {
      protocol: ctx.protocol,
      messagePolicy: ctx.messagePolicy,
      banProvider: ctx.banProvider,
      guard: ctx.guard,
      extraBody: ctx.extraBody ?? undefined,
      signal,
    },
  );
}
