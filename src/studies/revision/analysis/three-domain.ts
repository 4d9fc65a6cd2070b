// The all-domain landmark (docs/protocol.md §3.9, "three_domain landmark"): over exact-length, lexical and
// compositional trajectories alike, is recurrence by revision L (any repeated text among r0…rL)
// associated with rescue later on? Risk set: trajectories with at least L+2 rounds (unresolved through
// L with a later revision, given stop-at-success). Two estimates: the Mantel–Haenszel common odds
// ratio over controller × task strata, and a clustered logit adjusting for the violation-energy path
// with controller×task and source fixed effects, clustered by "domain|case id".
import type { TrajectoryRecord } from '../../../store/types.ts';
import { fittedLogit, notEstimableReason, notEstimableReasons, sourceFamily, unfittedLogit } from './rescue.ts';
import { compareCodePoints } from '../../../core/stats/bootstrap.ts';
import { landmarkDesign } from '../../../core/stats/design.ts';
import { fitClusteredLogit } from '../../../core/stats/logistic.ts';
import { mantelHaenszel, type TwoByTwo } from '../../../core/stats/mantel-haenszel.ts';
import { exactRound, stateIds } from './trajectory.ts';
import { aggregateOf, type ThreeDomainFit } from './analysis-types.ts';

const ENERGY_COVARIATES = [
  'current_energy',
  'log_current_energy',
  'min_energy',
  'initial_to_current_energy_improvement',
  'energy_contraction_count',
  'energy_noop_count',
  'largest_abs_energy_change',
] as const;
const THREE_DOMAIN_FACTORS = ['controller_task', 'source'] as const;
/** |ΔE| below this is an energy no-op. */
const ENERGY_NOOP = 1e-12;

export interface ThreeDomainRow {
  controller: string;
  caseId: string;
  /** The member family (c05, exact-length, …). */
  task: string;
  /** exact-length, lexical, compositional, or a user family. */
  domain: string;
  source: string;
  recurrence_by_landmark: 0 | 1;
  later_rescue: 0 | 1;
  covariates: Record<(typeof ENERGY_COVARIATES)[number], number>;
}

/** Violation energy of a round: |error|/max(target, 1) + missing anchors for exact length, else the recorded energy. */
export function roundEnergy(t: TrajectoryRecord, r: TrajectoryRecord['rounds'][number]): number {
  if (t.family !== 'exact-length') {
    if (!Number.isFinite(r.energy))
      throw new Error(`run ${t.runId}, case ${t.caseId}, revision ${r.revision}: energy is not a finite number`);
    return r.energy;
  }
  const target = t.case.target;
  if (typeof target !== 'number') throw new Error(`run ${t.runId}, case ${t.caseId}: exact-length case has no target`);
  const { error, missing } = exactRound(t, r);
  return Math.abs(error) / Math.max(target, 1) + missing.length;
}

/** Landmark row of one protocol-complete trajectory, or null outside the risk set (< L+2 rounds). */
export function threeDomainRow(t: TrajectoryRecord, landmark: number): ThreeDomainRow | null {
  if (t.rounds.length < landmark + 2) return null;
  const observed = t.rounds.slice(0, landmark + 1);
  const states = stateIds(observed);
  const energy = observed.map((r) => roundEnergy(t, r));
  let contractions = 0;
  let noops = 0;
  let largest = 0;
  for (let i = 1; i < energy.length; i++) {
    const delta = energy[i] - energy[i - 1];
    if (energy[i] < energy[i - 1]) contractions++;
    if (Math.abs(delta) < ENERGY_NOOP) noops++;
    largest = Math.max(largest, Math.abs(delta));
  }
  const current = energy[energy.length - 1];
  return {
    controller: t.controller,
    caseId: t.caseId,
    task: t.family,
    domain: aggregateOf(t.family) ?? t.family,
    source: sourceFamily(t.source),
    recurrence_by_landmark: new Set(states).size < states.length ? 1 : 0,
    later_rescue: t.rounds.some((r) => r.joint) ? 1 : 0,
    covariates: {
      current_energy: current,
      log_current_energy: Math.log1p(current),
      min_energy: Math.min(...energy),
      initial_to_current_energy_improvement: energy[0] - current,
      energy_contraction_count: contractions,
      energy_noop_count: noops,
      largest_abs_energy_change: largest,
    },
  };
}

/** MH odds ratio and the adjusted clustered logit on one subset of risk-set rows. */
export function fitThreeDomain(subset: string, landmark: number, rows: readonly ThreeDomainRow[], simulated: boolean): ThreeDomainFit {
  const exposed = rows.filter((r) => r.recurrence_by_landmark === 1);
  const unexposed = rows.filter((r) => r.recurrence_by_landmark === 0);
  const rescues = (list: readonly ThreeDomainRow[]) => list.reduce((a, r) => a + r.later_rescue, 0);
  const lateRescues = rescues(rows);
  const strata = new Map<string, TwoByTwo>();
  for (const r of rows) {
    const key = `${r.controller}\u001f${r.task}`;
    let table = strata.get(key);
    if (!table) strata.set(key, (table = { a: 0, b: 0, c: 0, d: 0 }));
    if (r.recurrence_by_landmark) {
      if (r.later_rescue) table.a++;
      else table.b++;
    } else if (r.later_rescue) table.c++;
    else table.d++;
  }
  const reasons: Record<string, string> = {};
  const fit: ThreeDomainFit = {
    subset,
    landmark,
    simulated,
    rows: rows.length,
    clusters: new Set(rows.map((r) => `${r.domain}|${r.caseId}`)).size,
    exposed: exposed.length,
    late_rescues: lateRescues,
    rescue_rate_exposed: exposed.length ? rescues(exposed) / exposed.length : null,
    rescue_rate_unexposed: unexposed.length ? rescues(unexposed) / unexposed.length : null,
    mantel_haenszel: mantelHaenszel([...strata.keys()].sort(compareCodePoints).map((k) => strata.get(k)!)),
    adjusted: {
      rows: 0,
      dropped_strata: 0,
      dropped_rows: 0,
      ...unfittedLogit(),
    },
  };
  if (!exposed.length) reasons.rescue_rate_exposed = 'no risk-set row repeats a text by the landmark';
  if (!unexposed.length) reasons.rescue_rate_unexposed = 'every risk-set row repeats a text by the landmark';
  if (Object.keys(reasons).length) fit.null_reasons = reasons;

  // A controller × task stratum whose rows share one outcome has an infinite fixed effect: its rows
  // carry no information on the other coefficients (their weights and scores vanish in the limit), and
  // keeping them only stops Newton from converging. They are dropped from the adjusted fit and counted.
  const outcomes = new Map<string, Set<number>>();
  for (const r of rows) {
    const key = `${r.controller}\u001f${r.task}`;
    let set = outcomes.get(key);
    if (!set) outcomes.set(key, (set = new Set()));
    set.add(r.later_rescue);
  }
  const kept = rows.filter((r) => outcomes.get(`${r.controller}\u001f${r.task}`)!.size === 2);
  fit.adjusted.rows = kept.length;
  fit.adjusted.dropped_strata = [...outcomes.values()].filter((v) => v.size < 2).length;
  fit.adjusted.dropped_rows = rows.length - kept.length;
  const keptExposed = kept.reduce((a, r) => a + r.recurrence_by_landmark, 0);
  let keptReason = notEstimableReason(
    kept.length,
    kept.reduce((a, r) => a + r.later_rescue, 0),
  );
  if (keptReason && fit.adjusted.dropped_rows) {
    keptReason += ` after leaving out ${fit.adjusted.dropped_rows} rows of ${fit.adjusted.dropped_strata} single-outcome controller × task strata`;
  }
  const why =
    keptReason ??
    (keptExposed === 0 || keptExposed === kept.length ? 'not estimable: the exposure is the same for every row of the fit' : null);
  if (why) {
    fit.adjusted.null_reasons = notEstimableReasons(why);
    return fit;
  }
  const { x, cols, columns } = landmarkDesign(
    kept.map((r) => ({
      exposure: r.recurrence_by_landmark,
      numeric: ENERGY_COVARIATES.map((c) => r.covariates[c]),
      factors: [`${r.controller}|${r.task}`, r.source],
    })),
    'recurrence_by_landmark',
    ENERGY_COVARIATES,
    THREE_DOMAIN_FACTORS,
  );
  const logit = fitClusteredLogit({
    x,
    rows: kept.length,
    cols,
    y: kept.map((r) => r.later_rescue),
    clusters: kept.map((r) => `${r.domain}|${r.caseId}`),
  });
  const fitted = fittedLogit(logit, columns);
  fit.adjusted = { ...fit.adjusted, ...fitted.logit };
  if (Object.keys(fitted.reasons).length) fit.adjusted.null_reasons = fitted.reasons;
  return fit;
}
