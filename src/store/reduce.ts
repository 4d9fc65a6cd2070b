// The reducer: a run's events, in log order, to its trajectories, and to its study's results by
// the reducer the study registered for the run's kind (run-kinds.ts). Pure and total (it never
// throws on odd logs; the audit judges them), so a fresh reduction can always be compared with the
// materialised tables.
import type { ConstraintCase } from '../core/verify/types.ts';
import { terminationOf, type PerCase, type RunPlannedPayload, type StoredEvent, type TrajectoryRunPlanned } from './events.ts';
import { isTrajectoryPlan, type Plan } from './plan.ts';
import { runKind } from './run-kinds.ts';
import type { TrajectoryRecord } from './types.ts';

export interface AttemptCounts {
  started: number;
  finished: number;
  failed: number;
}

/** A run reduced from its events: the plan, trajectories, records and sessions. */
export interface ReducedRun {
  runId: string;
  /** A trajectory plan has one trajectory per case; a study plan has none (its results are records). */
  plan: Plan;
  planSha256: string;
  cases: ConstraintCase[];
  perCase: PerCase[] | null;
  trajectories: TrajectoryRecord[];
  attempts: AttemptCounts[];
  createdAt: string;
  updatedAt: string;
  /** What the reducer its study registered for the run's kind returns (absent: no reducer registered here). */
  results?: unknown;
  /** Why that reducer failed on this log (the audit reports it); absent when it did not. */
  resultsError?: string;
}

/** A fresh trajectory for case `i` of a planned run. */
export function initialTrajectory(runId: string, planned: TrajectoryRunPlanned, i: number): TrajectoryRecord {
  const c = planned.cases[i];
  const per = planned.per_case?.[i];
  return {
    runId,
    caseIndex: i,
    caseId: c.id,
    controller: per?.controller ?? planned.plan.controller.label,
    simulated: planned.plan.controller.simulated,
    family: c.family,
    source: c.source,
    case: c,
    rounds: [],
    status: 'pending',
    budget: per?.budget ?? planned.plan.protocol.budget,
  };
}

/** Applies one trajectory event to its record (mutates; shared by the reducer and the materialiser). */
export function applyTrajectoryEvent(t: TrajectoryRecord, a: AttemptCounts, e: StoredEvent): void {
  switch (e.type) {
    case 'attempt_started':
      a.started++;
      break;
    case 'attempt_finished':
      a.finished++;
      if (!e.payload.record.ok) a.failed++;
      break;
    case 'draft_accepted': {
      const p = e.payload;
      t.rounds.push({ revision: e.revision ?? -1, text: p.text, state: p.state, energy: p.energy, joint: p.joint, feedback: p.feedback });
      break;
    }
    case 'trajectory_completed': {
      t.status = 'complete';
      delete t.incompleteReason;
      const termination = terminationOf(e.payload.stop);
      if (termination !== undefined) t.termination = termination;
      else delete t.termination;
      break;
    }
    case 'trajectory_incomplete':
      t.status = 'incomplete';
      t.incompleteReason = e.payload.reason;
      break;
    case 'trajectory_reopened':
      t.status = 'pending';
      delete t.incompleteReason;
      delete t.termination;
      break;
    default:
      break;
  }
}

/** Reduces one run's events (log order). Returns null when the log has no plan. */
export function reduceRun(events: readonly StoredEvent[]): ReducedRun | null {
  const first = events.find((e) => e.type === 'run_planned');
  if (!first || first.type !== 'run_planned') return null;
  const planned = first.payload;
  const runId = first.runId;
  const trajectoryPlan = isTrajectoryPlan(planned.plan) ? (planned as TrajectoryRunPlanned) : null;
  const trajectories = trajectoryPlan ? trajectoryPlan.cases.map((_, i) => initialTrajectory(runId, trajectoryPlan, i)) : [];
  const attempts = planned.cases.map(() => ({ started: 0, finished: 0, failed: 0 }));
  for (const e of events) {
    if (e.caseIndex === null || e.caseIndex === undefined) continue;
    const t = trajectories[e.caseIndex];
    if (t) applyTrajectoryEvent(t, attempts[e.caseIndex], e);
  }
  return {
    runId,
    plan: planned.plan,
    planSha256: planned.plan_sha256,
    cases: planned.cases,
    perCase: planned.per_case,
    trajectories,
    attempts,
    createdAt: first.at,
    updatedAt: events.length ? events[events.length - 1].at : first.at,
    ...studyResults(events, planned),
  };
}

/** The study's reduction of the run, where its kind has a registered reducer (a throw is kept as `resultsError`). */
function studyResults(events: readonly StoredEvent[], planned: RunPlannedPayload): Pick<ReducedRun, 'results' | 'resultsError'> {
  const reduce = runKind(planned.plan.kind)?.reduce;
  if (!reduce) return {};
  try {
    return { results: reduce(events, planned) };
  } catch (e) {
    return { resultsError: e instanceof Error ? e.message : String(e) };
  }
}
