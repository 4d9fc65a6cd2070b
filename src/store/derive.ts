// The one owner of how events change the derived tables (runs, trajectories, rounds), for both
// backends: what a batch of appended events (in log order) changes — new runs and their
// trajectories, rounds, and one delta per trajectory (attempt counters, rounds, final joint,
// status) — as column arrays, applied by PostgreSQL in one set-based statement per table (unnest)
// and by SQLite one row at a time, inside the append's transaction. Aggregating per trajectory
// makes a round one UPDATE instead of three. The audit checks the tables against a fresh reduction.
import { terminationOf, type StoredEvent, type RunPlannedPayload } from './events.ts';
import { isTrajectoryPlan } from './plan.ts';
import { encodeColumn } from './text-codec.ts';

export interface PlannedRun {
  runId: string;
  position: number;
  kind: string;
  controller: string;
  modelSpec: string;
  simulated: boolean;
  budget: number;
  protocol: string;
  planSha256: string;
  caseIds: string[];
  at: string;
}

interface TrajectoryDelta {
  runId: string;
  caseIndex: number;
  started: number;
  finished: number;
  failed: number;
  rounds: number;
  finalJoint: boolean | null;
  status: string | null;
  reason: string | null;
}

/** Column arrays (unnest parameters) of the derived-table changes of a batch. */
export interface DerivedChanges {
  plans: PlannedRun[];
  rounds: [string[], number[], number[], string[], string[], number[], boolean[], Array<string | null>];
  deltas: [string[], number[], number[], number[], number[], number[], Array<boolean | null>, Array<string | null>, Array<string | null>];
  /** The run_planned payloads seen (the store caches them). */
  planned: Map<string, RunPlannedPayload>;
}

export function plannedRun(e: StoredEvent & { type: 'run_planned' }): PlannedRun {
  const p = e.payload;
  const plan = p.plan;
  const [budget, protocol] = isTrajectoryPlan(plan) ? [plan.protocol.budget, plan.protocol.name] : [0, plan.kind];
  return {
    runId: e.runId,
    position: e.id,
    kind: encodeColumn(plan.kind),
    controller: encodeColumn(plan.controller.label),
    modelSpec: encodeColumn(plan.controller.spec),
    simulated: plan.controller.simulated,
    budget,
    protocol: encodeColumn(protocol),
    planSha256: p.plan_sha256,
    caseIds: p.cases.map((c) => encodeColumn(c.id)),
    at: e.at,
  };
}

/** The derived-table changes of events appended in this order (ids must be set for run_planned). */
export function deriveChanges(events: readonly StoredEvent[]): DerivedChanges {
  const plans: PlannedRun[] = [];
  const planned = new Map<string, RunPlannedPayload>();
  const rounds: DerivedChanges['rounds'] = [[], [], [], [], [], [], [], []];
  const byTrajectory = new Map<string, TrajectoryDelta>();
  const delta = (e: StoredEvent): TrajectoryDelta => {
    const k = `${e.caseIndex}\u0000${e.runId}`;
    let d = byTrajectory.get(k);
    if (!d) {
      d = {
        runId: e.runId,
        caseIndex: e.caseIndex!,
        started: 0,
        finished: 0,
        failed: 0,
        rounds: 0,
        finalJoint: null,
        status: null,
        reason: null,
      };
      byTrajectory.set(k, d);
    }
    return d;
  };
  for (const e of events) {
    switch (e.type) {
      case 'run_planned':
        plans.push(plannedRun(e));
        planned.set(e.runId, e.payload);
        break;
      case 'attempt_started':
        delta(e).started++;
        break;
      case 'attempt_finished': {
        const d = delta(e);
        d.finished++;
        if (!e.payload.record.ok) d.failed++;
        break;
      }
      case 'draft_accepted': {
        const p = e.payload;
        rounds[0].push(e.runId);
        rounds[1].push(e.caseIndex!);
        rounds[2].push(e.revision!);
        // Text columns hold any string the events hold (text-codec.ts).
        rounds[3].push(encodeColumn(p.text));
        rounds[4].push(encodeColumn(JSON.stringify(p.state)));
        rounds[5].push(p.energy);
        rounds[6].push(p.joint);
        rounds[7].push(encodeColumn(p.feedback));
        const d = delta(e);
        d.rounds++;
        d.finalJoint = p.joint;
        break;
      }
      case 'trajectory_completed':
        // A complete trajectory's reason is its termination when it ended before the stop rule.
        Object.assign(delta(e), { status: 'complete', reason: encodeColumn(terminationOf(e.payload.stop) ?? null) });
        break;
      case 'trajectory_incomplete':
        Object.assign(delta(e), { status: 'incomplete', reason: encodeColumn(e.payload.reason) });
        break;
      case 'trajectory_reopened':
        Object.assign(delta(e), { status: 'pending', reason: null });
        break;
      default:
        break;
    }
  }
  const deltas: DerivedChanges['deltas'] = [[], [], [], [], [], [], [], [], []];
  for (const d of byTrajectory.values()) {
    deltas[0].push(d.runId);
    deltas[1].push(d.caseIndex);
    deltas[2].push(d.started);
    deltas[3].push(d.finished);
    deltas[4].push(d.failed);
    deltas[5].push(d.rounds);
    deltas[6].push(d.finalJoint);
    deltas[7].push(d.status);
    deltas[8].push(d.reason);
  }
  return { plans, rounds, deltas, planned };
}
