// What every experiment analysis shares: the runs read from the store with their experiment block,
// rates, and paired bootstrap intervals (docs/protocol.md §4.1 with revloop's own generator).
import { pairedBootstrapRates } from '../../../core/stats/bootstrap.ts';
import { Xoshiro128 } from '../../../core/stats/prng.ts';
import { percentileInterval95 } from '../../../core/stats/quantile.ts';
import type { TrajectoryRunPlanned } from '../../../store/events.ts';
import { experimentOf, type ExperimentPlan, type ExperimentTrajectory } from '../plan.ts';
import type { RunStore, RunSummary } from '../../../store/store.ts';
import type { TrajectoryRecord } from '../../../store/types.ts';
import type { Interval, Rate } from './experiment-analysis-types.ts';

export interface ExperimentRunData {
  runId: string;
  planned: TrajectoryRunPlanned;
  experiment: ExperimentPlan;
  trajectories: TrajectoryRecord[];
  summary: RunSummary;
}

export async function loadExperimentRuns(store: RunStore, runIds: readonly string[]): Promise<ExperimentRunData[]> {
  const out: ExperimentRunData[] = [];
  for (const runId of runIds) {
    const run = await store.getRun(runId);
    const experiment = run && experimentOf(run.planned.plan);
    if (!run || !experiment) continue;
    out.push({
      runId,
      planned: run.planned as TrajectoryRunPlanned,
      experiment,
      trajectories: await store.loadTrajectories([runId]),
      summary: run.summary,
    });
  }
  return out;
}

/** A trajectory's experiment entry. */
export function specOf(run: ExperimentRunData, t: TrajectoryRecord): ExperimentTrajectory {
  return run.experiment.trajectories[t.caseIndex];
}

export function rate(k: number, n: number): Rate {
  return { k, n, rate: n ? k / n : null };
}

/** A rate over the defined values of a boolean-or-null list. */
export function rateOf(values: ReadonlyArray<boolean | null>): Rate {
  const defined = values.filter((v): v is boolean => v !== null);
  return rate(defined.filter(Boolean).length, defined.length);
}

export function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

export function meanOrNull(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null;
}

/** The bootstrap stream of one analysis part: the seed and a key naming what it resamples. */
export function streamFor(seed: number, key: string): Xoshiro128 {
  return Xoshiro128.fromKey(`revloop.experiments:${seed}:${key}`);
}

/**
 * The 95% interval of mean(second) − mean(first) over paired binary columns, resampled within
 * strata (null bounds with no resamples or no pairs).
 */
export function pairedDifferenceInterval(
  strata: readonly string[],
  first: readonly number[],
  second: readonly number[],
  resamples: number,
  seed: number,
  key: string,
): Interval {
  if (!resamples || !strata.length) return { lo: null, hi: null };
  const rates = pairedBootstrapRates({ strata, columns: [first, second], resamples, rng: streamFor(seed, key) });
  const diffs = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) diffs[b] = rates[2 * b + 1] - rates[2 * b];
  const [lo, hi] = percentileInterval95(diffs);
  return { lo, hi };
}

/** The 95% percentile interval of bootstrap values, ignoring undefined (NaN) resamples. */
export function intervalOf(values: Float64Array): Interval {
  const finite = Float64Array.from(values.filter((v) => Number.isFinite(v)));
  if (!finite.length) return { lo: null, hi: null };
  const [lo, hi] = percentileInterval95(finite);
  return { lo, hi };
}

/** Cumulative share of trajectories with a joint success at revision ≤ cap, for each cap. */
export function cumulativeSuccess(successRevisions: ReadonlyArray<number | null>, caps: readonly number[]): Array<number | null> {
  const n = successRevisions.length;
  return caps.map((cap) => (n ? successRevisions.filter((r) => r !== null && r <= cap).length / n : null));
}

/** The first revision with a joint success at or after `from`, or null. */
export function successRevision(t: TrajectoryRecord, from = 0): number | null {
  return t.rounds.find((r) => r.revision >= from && r.joint)?.revision ?? null;
}

/** The word error of an exact-length round, or null for other families. */
export function wordErrorOf(t: TrajectoryRecord, revision: number): number | null {
  const e = t.rounds[revision]?.state.error;
  return t.family === 'exact-length' && typeof e === 'number' ? e : null;
}
