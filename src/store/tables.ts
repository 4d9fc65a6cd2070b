// The one owner of how the derived tables read back, for both backends (derive.ts owns how they
// are written): which cases a read selects, how trajectory and round rows fold into trajectories,
// and how a run's counts make its summary and status. Each backend keeps its own SQL; its flags
// arrive as 0/1 (SQLite) or false/true (PostgreSQL).
import type { RunPlannedPayload, TrajectoryRunPlanned } from './events.ts';
import { isTrajectoryPlan } from './plan.ts';
import { initialTrajectory } from './reduce.ts';
import type { MaterializedRun, RunStatus, RunSummary, TrajectorySummary } from './store.ts';
import type { TrajectoryStatus } from './types.ts';
import { decodeColumn } from './text-codec.ts';

/** A boolean column as a backend returns it. */
export type SqlFlag = boolean | number;

const isSet = (flag: SqlFlag): boolean => flag === true || flag === 1;

/** A row of `trajectories`. */
export interface TrajectoryRow {
  case_index: number;
  status: TrajectoryStatus;
  reason: string | null;
  n_rounds: number;
  attempts_started: number;
  attempts_finished: number;
  attempts_failed: number;
}

/** A row of `rounds`. */
export interface RoundRow {
  case_index: number;
  revision: number;
  text: string;
  state: string;
  energy: number;
  joint: SqlFlag;
  feedback: string | null;
}

/** What a read of a run's derived tables selects: its trajectory plan and case indexes, in case order. */
export interface CaseSelection {
  planned: TrajectoryRunPlanned;
  indexes: number[];
}

/**
 * Every case of a trajectory run (`only` absent), or the given ones that exist, once each, in case
 * order; null for a run without trajectories (none planned, or a study's plan).
 */
export function selectCases(found: RunPlannedPayload | null, only?: readonly number[] | null): CaseSelection | null {
  if (!found || !isTrajectoryPlan(found.plan)) return null;
  const planned = found as TrajectoryRunPlanned;
  const indexes = only
    ? [...new Set(only)].filter((i) => Number.isInteger(i) && i >= 0 && i < planned.cases.length).sort((a, b) => a - b)
    : planned.cases.map((_, i) => i);
  return { planned, indexes };
}

/** The selected trajectories from their rows (case order) and their rounds (case, then revision order). */
export function foldTables(
  runId: string,
  { planned, indexes }: CaseSelection,
  rows: readonly TrajectoryRow[],
  rounds: readonly RoundRow[],
): MaterializedRun {
  // Position of each case index in the output.
  const at = new Map(indexes.map((ix, k) => [ix, k]));
  const trajectories = indexes.map((i) => initialTrajectory(runId, planned, i));
  const attempts = indexes.map(() => ({ started: 0, finished: 0, failed: 0 }));
  const nRounds = indexes.map(() => 0);
  for (const r of rows) {
    const k = at.get(r.case_index);
    if (k === undefined) continue;
    const t = trajectories[k];
    t.status = r.status;
    if (r.reason !== null) {
      if (r.status === 'complete') t.termination = decodeColumn(r.reason);
      else t.incompleteReason = decodeColumn(r.reason);
    }
    attempts[k] = { started: r.attempts_started, finished: r.attempts_finished, failed: r.attempts_failed };
    nRounds[k] = r.n_rounds;
  }
  for (const r of rounds) {
    const k = at.get(r.case_index);
    if (k === undefined) continue;
    trajectories[k].rounds.push({
      revision: r.revision,
      text: decodeColumn(r.text),
      state: JSON.parse(decodeColumn(r.state)),
      energy: r.energy,
      joint: isSet(r.joint),
      feedback: decodeColumn(r.feedback),
    });
  }
  return { trajectories, attempts, nRounds };
}

/** A `trajectories` row with its case id and the energy of its last round (`trajectorySummaries`). */
export interface TrajectorySummaryRow extends TrajectoryRow {
  case_id: string;
  final_joint: SqlFlag | null;
  final_energy: number | null;
}

export function trajectorySummary(r: TrajectorySummaryRow): TrajectorySummary {
  return {
    caseIndex: r.case_index,
    caseId: decodeColumn(r.case_id),
    status: r.status,
    incompleteReason: decodeColumn(r.reason),
    rounds: r.n_rounds,
    finalJoint: r.final_joint === null ? null : isSet(r.final_joint),
    finalEnergy: r.final_energy,
    attempts: { started: r.attempts_started, finished: r.attempts_finished, failed: r.attempts_failed },
  };
}

/** A row of `runs`. */
export interface RunRow {
  kind: string;
  controller: string;
  model_spec: string;
  simulated: SqlFlag;
  budget: number;
  protocol: string;
  plan_sha256: string;
  n_cases: number;
  created_at: string;
  updated_at: string;
}

/** A run's trajectory counts: sums over its `trajectories` rows (null when it has none). */
export interface RunCounts {
  complete: number | null;
  incomplete: number | null;
  pending: number | null;
  successes: number | null;
  rounds: number | null;
  attempts: number | null;
  failed: number | null;
}

/**
 * A run's summary. `last`: its last event (id and time; a run was last updated when its last event
 * was written). `running`: someone is writing it now (a live lock or lease); otherwise a run with
 * pending trajectories is planned (no generation has ended yet) or interrupted. `leased` is given by
 * backends with leases.
 */
export function runSummary(
  runId: string,
  r: RunRow,
  c: RunCounts,
  last: { id: number; at: string } | null,
  running: boolean,
  leased?: number,
): RunSummary {
  const pending = c.pending ?? 0;
  const incomplete = c.incomplete ?? 0;
  const started = (c.complete ?? 0) + incomplete + (c.attempts ?? 0) + (c.failed ?? 0) > 0;
  const status: RunStatus = running
    ? 'running'
    : pending > 0
      ? started
        ? 'interrupted'
        : 'planned'
      : incomplete > 0
        ? 'incomplete'
        : 'complete';
  return {
    runId,
    kind: decodeColumn(r.kind),
    controller: decodeColumn(r.controller),
    modelSpec: decodeColumn(r.model_spec),
    simulated: isSet(r.simulated),
    budget: r.budget,
    protocol: decodeColumn(r.protocol),
    planSha256: r.plan_sha256,
    cases: r.n_cases,
    ...(leased === undefined ? {} : { leased }),
    complete: c.complete ?? 0,
    incomplete,
    pending,
    successes: c.successes ?? 0,
    rounds: c.rounds ?? 0,
    attempts: c.attempts ?? 0,
    failedAttempts: c.failed ?? 0,
    status,
    createdAt: r.created_at,
    updatedAt: last?.at ?? r.updated_at,
    lastEventId: last?.id ?? 0,
  };
}
