// Landmark conditional rescue (Table 3, docs/protocol.md §3.9): among exact-length trajectories unresolved
// at revision L with at least one later revision (≥ L+2 rounds), does the fraction of revisions
// 1…L that repeated an earlier state predict success in revisions L+1…T, adjusting for the current
// state and the action history? Unpenalised logit, case-clustered sandwich covariance.
import type { TrajectoryRecord } from '../../../store/types.ts';
import { landmarkDesign } from '../../../core/stats/design.ts';
import { fitClusteredLogit, waldOddsRatio, type LogisticFit } from '../../../core/stats/logistic.ts';
import { exactRound, stateIds } from './trajectory.ts';
import type { RescueFit } from './analysis-types.ts';

/** B0 (current state) then B1 extras (action history), in the reference's column order. */
export const RESCUE_COVARIATES = [
  'current_error',
  'current_abs_error',
  'log_current_abs_error',
  'target',
  'current_missing_count',
  'min_abs_error',
  'initial_to_current_abs_improvement',
  'contraction_count',
  'sign_flip_count',
  'length_noop_count',
  'largest_abs_action',
  'escape_by_landmark',
] as const;
const RESCUE_FACTORS = ['model', 'source_family', 'length_band'] as const;
const MIN_ESTIMABLE_ROWS = 50;

export interface RescueRow {
  controller: string;
  caseId: string;
  model: string;
  source_family: string;
  length_band: string;
  late_rescue: 0 | 1;
  repeat_fraction: number;
  any_recurrence: 0 | 1;
  /** Recurrence features of revisions 0…L (the capture prediction's B2 block, §3.9). */
  recurrence_count: number;
  /** Distinct states among r0…rL / (L + 1). */
  unique_output_ratio: number;
  /** Longest run of consecutive identical states among r0…rL. */
  longest_identical_run: number;
  /** 1 if some state equals the one two steps back and differs from the previous one. */
  period2_return: 0 | 1;
  covariates: Record<(typeof RESCUE_COVARIATES)[number], number>;
}

/** The four exact-length source families of the paper; other sources stay as they are. */
export function sourceFamily(source: string): string {
  for (const prefix of ['dolly', 'no_robots', 'oasst1', 'writingprompts']) if (source.startsWith(prefix)) return prefix;
  return source;
}

/** Landmark features of one protocol-complete exact-length trajectory, or null outside the risk set. */
export function landmarkRow(t: TrajectoryRecord, landmark: number): RescueRow | null {
  const rounds = t.rounds;
  if (rounds.length < landmark + 2) return null;
  const observed = rounds.slice(0, landmark + 1);
  if (observed[observed.length - 1].joint) return null;
  const states = stateIds(observed);
  const exact = observed.map((r) => exactRound(t, r));
  const errors = exact.map((r) => r.error);
  let recurrences = 0;
  const seen = new Set<number>([states[0]]);
  for (const s of states.slice(1)) {
    if (seen.has(s)) recurrences++;
    seen.add(s);
  }
  let longestRun = 1;
  let run = 1;
  let period2 = 0;
  for (let i = 1; i < states.length; i++) {
    run = states[i] === states[i - 1] ? run + 1 : 1;
    longestRun = Math.max(longestRun, run);
    if (i >= 2 && states[i] === states[i - 2] && states[i] !== states[i - 1]) period2 = 1;
  }
  let signFlips = 0;
  let contractions = 0;
  let noops = 0;
  let largest = 0;
  let escape = 0;
  for (let i = 1; i < errors.length; i++) {
    const [l, r] = [errors[i - 1], errors[i]];
    // §3.9: flips only between consecutive entries that are both nonzero (a zero breaks the chain).
    if (l !== 0 && r !== 0 && Math.sign(l) !== Math.sign(r)) signFlips++;
    if (Math.abs(r) < Math.abs(l)) contractions++;
    if (r - l === 0) noops++;
    largest = Math.max(largest, Math.abs(r - l));
    if (Math.abs(l) > 0 && Math.abs(l) <= 20 && Math.abs(r) > 50) escape = 1;
  }
  const current = errors[errors.length - 1];
  const target = t.case.target;
  if (typeof target !== 'number') throw new Error(`run ${t.runId}, case ${t.caseId}: exact-length case has no target`);
  const band = t.case.row?.length_band;
  return {
    controller: t.controller,
    caseId: t.caseId,
    model: t.controller,
    source_family: sourceFamily(t.source),
    length_band: band === undefined || band === null ? '' : String(band),
    late_rescue: rounds.some((r) => r.joint) ? 1 : 0,
    repeat_fraction: recurrences / landmark,
    any_recurrence: recurrences > 0 ? 1 : 0,
    recurrence_count: recurrences,
    unique_output_ratio: new Set(states).size / states.length,
    longest_identical_run: longestRun,
    period2_return: period2 ? 1 : 0,
    covariates: {
      current_error: current,
      current_abs_error: Math.abs(current),
      log_current_abs_error: Math.log1p(Math.abs(current)),
      target,
      current_missing_count: exact[exact.length - 1].missing.length,
      min_abs_error: Math.min(...errors.map(Math.abs)),
      initial_to_current_abs_improvement: Math.abs(errors[0]) - Math.abs(current),
      contraction_count: contractions,
      sign_flip_count: signFlips,
      length_noop_count: noops,
      largest_abs_action: largest,
      escape_by_landmark: escape,
    },
  };
}

/** Design matrix of the common-effect model (stats/design.ts): repeat_fraction raw, the covariates z-scored, dummies for model, source family and length band. */
export function rescueDesign(rows: readonly RescueRow[]): { x: Float64Array; cols: number; columns: string[] } {
  return landmarkDesign(
    rows.map((r) => ({
      exposure: r.repeat_fraction,
      numeric: RESCUE_COVARIATES.map((c) => r.covariates[c]),
      factors: RESCUE_FACTORS.map((f) => r[f]),
    })),
    'repeat_fraction',
    RESCUE_COVARIATES,
    RESCUE_FACTORS,
  );
}

/** Why a landmark model cannot be fitted on `rows` rows with `events` outcomes of 1, or null. */
export function notEstimableReason(rows: number, events: number): string | null {
  if (rows < MIN_ESTIMABLE_ROWS) return `not estimable: ${rows} risk-set rows (< ${MIN_ESTIMABLE_ROWS})`;
  if (events === 0 || events === rows) return 'not estimable: only one outcome class in the risk set';
  return null;
}

/** A landmark logit's estimates (the rescue model, and the three-domain study's adjusted model). */
type LandmarkLogit = Pick<
  RescueFit,
  'estimable' | 'converged' | 'iterations' | 'coefficient' | 'se' | 'z' | 'p' | 'odds_ratio' | 'ci95' | 'columns' | 'warnings'
>;

/** A landmark logit not fitted (yet): every estimate null. */
export function unfittedLogit(): LandmarkLogit {
  return {
    estimable: false,
    converged: null,
    iterations: null,
    coefficient: null,
    se: null,
    z: null,
    p: null,
    odds_ratio: null,
    ci95: { low: null, high: null },
    columns: [],
    warnings: [],
  };
}

/** The null reasons of a landmark logit that cannot be fitted: `why` for every estimate. */
export function notEstimableReasons(why: string): Record<string, string> {
  const reasons: Record<string, string> = {};
  for (const f of ['converged', 'iterations', 'coefficient', 'se', 'z', 'p', 'odds_ratio', 'ci95']) reasons[f] = why;
  return reasons;
}

/**
 * A fitted landmark logit: the exposure's coefficient (design column 1), its clustered SE and Wald
 * odds ratio; `reasons` says why a Wald estimate is null.
 */
export function fittedLogit(fit: LogisticFit, columns: string[]): { logit: LandmarkLogit; reasons: Record<string, string> } {
  const coefficient = fit.coefficients[1];
  const se = fit.standardErrors[1];
  const wald = waldOddsRatio(coefficient, se);
  return {
    logit: {
      estimable: true,
      converged: fit.converged,
      iterations: fit.iterations,
      coefficient,
      se,
      z: wald.z,
      p: wald.p,
      odds_ratio: wald.odds_ratio,
      ci95: wald.ci95,
      columns,
      warnings: fit.warnings,
    },
    reasons: wald.reasons,
  };
}

/** Fit the rescue model on one subset of risk-set rows. */
export function fitRescue(subset: string, landmark: number, rows: readonly RescueRow[]): RescueFit {
  const lateRescues = rows.reduce((a, r) => a + r.late_rescue, 0);
  const clusters = new Set(rows.map((r) => r.caseId)).size;
  const base: RescueFit = {
    subset,
    landmark,
    rows: rows.length,
    clusters,
    late_rescues: lateRescues,
    late_rescue_rate: rows.length ? lateRescues / rows.length : null,
    ...unfittedLogit(),
  };
  const reasons: Record<string, string> = {};
  if (!rows.length) reasons.late_rescue_rate = 'empty risk set';
  const why = notEstimableReason(rows.length, lateRescues);
  if (why) {
    Object.assign(reasons, notEstimableReasons(why));
    return { ...base, null_reasons: reasons };
  }
  const { x, cols, columns } = rescueDesign(rows);
  const fit = fitClusteredLogit({
    x,
    rows: rows.length,
    cols,
    y: rows.map((r) => r.late_rescue),
    // Cluster = case, shared across controllers and panels.
    clusters: rows.map((r) => r.caseId),
  });
  const fitted = fittedLogit(fit, columns);
  const out: RescueFit = { ...base, ...fitted.logit };
  Object.assign(reasons, fitted.reasons);
  if (Object.keys(reasons).length) out.null_reasons = reasons;
  return out;
}
