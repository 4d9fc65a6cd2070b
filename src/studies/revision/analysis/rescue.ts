// Landmark conditional rescue (Table 3, PROTOCOL §3.9): among exact-length trajectories unresolved
// at revision L with at least one later revision (≥ L+2 rounds), does the fraction of revisions
// 1…L that repeated an earlier state predict success in revisions L+1…T, adjusting for the current
// state and the action history? Unpenalised logit, case-clustered sandwich covariance.
import type { TrajectoryRecord } from '../../../store/types.ts';
import { compareCodePoints } from '../../../core/stats/bootstrap.ts';
import { fitClusteredLogit } from '../../../core/stats/logistic.ts';
import { twoSidedNormalP } from '../../../core/stats/normal.ts';
import { exactRound, stateIds } from './trajectory.ts';
import type { RescueFit } from './types.ts';

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
export const RESCUE_FACTORS = ['model', 'source_family', 'length_band'] as const;
export const MIN_ESTIMABLE_ROWS = 50;

export interface RescueRow {
  controller: string;
  caseId: string;
  model: string;
  source_family: string;
  length_band: string;
  late_rescue: 0 | 1;
  repeat_fraction: number;
  any_recurrence: 0 | 1;
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

/**
 * Design matrix of the common-effect model: intercept, repeat_fraction (raw), the covariates
 * z-scored with the population SD (SD < 1e-12 → 1), then dummies for model, source family and
 * length band with the first sorted level as reference.
 */
export function rescueDesign(rows: readonly RescueRow[]): { x: Float64Array; cols: number; columns: string[] } {
  const n = rows.length;
  const columns = ['intercept', 'repeat_fraction', ...RESCUE_COVARIATES.map((c) => `z(${c})`)];
  const stats = RESCUE_COVARIATES.map((c) => {
    const values = rows.map((r) => r.covariates[c]);
    const mean = values.reduce((a, b) => a + b, 0) / n;
    const variance = values.reduce((a, v) => a + (v - mean) * (v - mean), 0) / n;
    const sd = Math.sqrt(variance);
    return { mean, sd: sd < 1e-12 ? 1 : sd };
  });
  const dummies: Array<{ factor: (typeof RESCUE_FACTORS)[number]; level: string }> = [];
  for (const factor of RESCUE_FACTORS) {
    const levels = [...new Set(rows.map((r) => r[factor]))].sort(compareCodePoints);
    for (const level of levels.slice(1)) {
      dummies.push({ factor, level });
      columns.push(`${factor}=${level}`);
    }
  }
  const cols = columns.length;
  const x = new Float64Array(n * cols);
  rows.forEach((r, i) => {
    const base = i * cols;
    x[base] = 1;
    x[base + 1] = r.repeat_fraction;
    RESCUE_COVARIATES.forEach((c, j) => {
      x[base + 2 + j] = (r.covariates[c] - stats[j].mean) / stats[j].sd;
    });
    dummies.forEach((d, j) => {
      x[base + 2 + RESCUE_COVARIATES.length + j] = r[d.factor] === d.level ? 1 : 0;
    });
  });
  return { x, cols, columns };
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
  const reasons: Record<string, string> = {};
  if (!rows.length) reasons.late_rescue_rate = 'empty risk set';
  if (rows.length < MIN_ESTIMABLE_ROWS || lateRescues === 0 || lateRescues === rows.length) {
    const why =
      rows.length < MIN_ESTIMABLE_ROWS
        ? `not estimable: ${rows.length} risk-set rows (< ${MIN_ESTIMABLE_ROWS})`
        : 'not estimable: only one outcome class in the risk set';
    for (const f of ['converged', 'iterations', 'coefficient', 'se', 'z', 'p', 'odds_ratio', 'ci95']) reasons[f] = why;
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
  const coefficient = fit.coefficients[1];
  const se = fit.standardErrors[1];
  const out: RescueFit = {
    ...base,
    estimable: true,
    converged: fit.converged,
    iterations: fit.iterations,
    coefficient,
    se,
    columns,
    warnings: fit.warnings,
  };
  if (se > 0 && Number.isFinite(se)) {
    out.z = coefficient / se;
    out.p = twoSidedNormalP(out.z);
    out.odds_ratio = finiteOrNull(Math.exp(coefficient));
    out.ci95 = { low: finiteOrNull(Math.exp(coefficient - 1.96 * se)), high: finiteOrNull(Math.exp(coefficient + 1.96 * se)) };
    if (out.odds_ratio === null) reasons.odds_ratio = 'exp(coefficient) overflows';
  } else {
    for (const f of ['z', 'p', 'odds_ratio', 'ci95']) reasons[f] = 'clustered standard error is zero';
  }
  if (Object.keys(reasons).length) out.null_reasons = reasons;
  return out;
}

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}
