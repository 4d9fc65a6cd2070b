// Leave-one-family-out prediction of late rescue at the landmark (docs/protocol.md §3.9, capture analysis;
// Appendix C.1: "recurrence adds no held-family Brier-score improvement"). Within a panel, the
// exact-length risk-set rows of every model family but one train an L2 logistic regression (C = 1)
// behind median imputation + standardisation of the numerics and one-hot source family and length
// band; the held-out family is predicted. Three nested numeric sets: B0 (current state), B1 (+ action
// history) and B2 (+ recurrence). Scores: pooled Brier, log loss and AUROC, and the equal-family Brier
// (mean of the families' Brier scores) with a stratified case bootstrap that reuses one case-weight
// matrix for every set and difference.
import { RESCUE_COVARIATES, notEstimableReason, type RescueRow } from './rescue.ts';
import { compareCodePoints, drawStratifiedCounts, strataGroups } from '../../../core/stats/bootstrap.ts';
import { fitL2Logistic, predictL2Logistic, type L2LogisticFit } from '../../../core/stats/l2-logistic.ts';
import { fitPreprocessor, type TabularRow } from '../../../core/stats/preprocess.ts';
import { Xoshiro128 } from '../../../core/stats/prng.ts';
import { percentileInterval95 } from '../../../core/stats/quantile.ts';
import { auroc, aurocUndefinedReason, brierScore, logLoss } from '../../../core/stats/scores.ts';
import {
  CAPTURE_FEATURE_SETS,
  type CaptureFeatureSet,
  type CapturePrediction,
  type CapturePredictionFamily,
  type CapturePredictionSet,
  type Interval,
} from './analysis-types.ts';

/** scikit-learn's C (inverse L2 strength) of the reference model. */
const CAPTURE_C = 1;
const RECURRENCE_FEATURES = [
  'repeat_fraction',
  'recurrence_count',
  'any_recurrence',
  'unique_output_ratio',
  'longest_identical_run',
  'period2_return',
] as const;
export const CAPTURE_NUMERIC: Record<CaptureFeatureSet, readonly string[]> = {
  B0: RESCUE_COVARIATES.slice(0, 5),
  B1: RESCUE_COVARIATES,
  B2: [...RESCUE_COVARIATES, ...RECURRENCE_FEATURES],
};
export const CAPTURE_CATEGORICAL = ['source_family', 'length_band'] as const;
export const CAPTURE_MODEL =
  'scikit-learn LogisticRegression(C=1, penalty=l2, lbfgs) optimum, reached by Newton; numerics median-imputed and standardised, source_family and length_band one-hot (unknown levels ignored), all fitted on the training families only';

/** The paper's seven model families, recognised in controller names. */
const PAPER_FAMILIES: Array<[RegExp, string]> = [
  [/llama/i, 'Llama'],
  [/gemma/i, 'Gemma'],
  [/glm/i, 'GLM'],
  [/m(in)?istral/i, 'Mistral'], // Mistral and Ministral
  [/qwen/i, 'Qwen'],
  [/granite/i, 'Granite'],
  [/falcon/i, 'Falcon-H1'],
];

/** A controller's model family: the explicit assignment, else a paper family named in it, else itself. */
export function modelFamily(
  controller: string,
  explicit?: Record<string, string>,
): { family: string; assigned_by: CapturePredictionFamily['assigned_by'] } {
  const given = explicit?.[controller];
  if (given !== undefined) return { family: given, assigned_by: 'option' };
  for (const [pattern, family] of PAPER_FAMILIES) if (pattern.test(controller)) return { family, assigned_by: 'name' };
  return { family: controller, assigned_by: 'controller' };
}

function featureValue(row: RescueRow, name: string): number {
  if (name in row.covariates) return row.covariates[name as keyof RescueRow['covariates']];
  const v = (row as unknown as Record<string, unknown>)[name];
  if (typeof v !== 'number') throw new Error(`capture prediction: risk-set row has no feature ${name}`);
  return v;
}

interface LofoFold {
  family: string;
  trainRows: number;
  testRows: number;
  /** Null when the fold was fitted. */
  reason: string | null;
  converged: boolean | null;
  iterations: number | null;
}

/**
 * Leave-one-family-out predictions: for each family (sorted), fit the pipeline and the L2 logit on
 * the other families' rows and predict this family's rows. A fold whose training rows hold a single
 * outcome class cannot be fitted (scikit-learn refuses it too): its rows get null.
 */
export function leaveOneFamilyOut(
  rows: readonly TabularRow[],
  y: readonly number[],
  family: readonly string[],
  numericNames: readonly string[],
  categoricalNames: readonly string[],
  C = CAPTURE_C,
): { p: Array<number | null>; folds: LofoFold[] } {
  const p: Array<number | null> = rows.map(() => null);
  const folds: LofoFold[] = [];
  // Each fold starts from the previous fold's optimum when the design columns agree (same optimum, fewer steps).
  let previous: { columns: string[]; fit: L2LogisticFit } | null = null;
  for (const held of [...new Set(family)].sort(compareCodePoints)) {
    const train: number[] = [];
    const test: number[] = [];
    family.forEach((f, i) => (f === held ? test : train).push(i));
    const events = train.reduce((a, i) => a + y[i], 0);
    const fold: LofoFold = {
      family: held,
      trainRows: train.length,
      testRows: test.length,
      reason: null,
      converged: null,
      iterations: null,
    };
    folds.push(fold);
    if (events === 0 || events === train.length) {
      fold.reason = train.length
        ? `the other families' ${train.length} rows hold one outcome class only (${events ? 'all rescued' : 'none rescued'})`
        : 'no other family to train on';
      continue;
    }
    const pre = fitPreprocessor(
      numericNames,
      categoricalNames,
      train.map((i) => rows[i]),
    );
    const sameColumns = previous !== null && previous.columns.join('\u001f') === pre.columns.join('\u001f');
    const fit = fitL2Logistic({
      x: pre.transform(train.map((i) => rows[i])),
      rows: train.length,
      cols: pre.columns.length,
      y: train.map((i) => y[i]),
      C,
      ...(sameColumns ? { start: previous!.fit } : {}),
    });
    previous = { columns: pre.columns, fit };
    fold.converged = fit.converged;
    fold.iterations = fit.iterations;
    const predicted = predictL2Logistic(fit, pre.transform(test.map((i) => rows[i])), test.length);
    test.forEach((i, t) => (p[i] = predicted[t]));
  }
  return { p, folds };
}

/**
 * Equal-family Brier scores under case weights: each family's Brier is Σ w_case·(p − y)² / Σ w_case
 * over its rows, and the score is their mean. Rows are aggregated per (case, family) once and stored
 * case-major, so a resample visits only the cases it drew, each with its few family entries.
 */
export class FamilyBrier {
  readonly sets: number;
  private readonly families: number;
  /** Entries of case c are caseStart[c] … caseStart[c+1] − 1. */
  private readonly caseStart: Int32Array;
  private readonly entryFamily: Int32Array;
  /** Per entry: row count, then the squared-error sum of each set. */
  private readonly entryData: Float64Array;
  private readonly acc: Float64Array;

  /**
   * @param family family of each row; @param caseIndex the row's case in 0…cases−1;
   * @param predictions one probability array per feature set (rows long).
   */
  constructor(
    family: readonly string[],
    caseIndex: ArrayLike<number>,
    y: ArrayLike<number>,
    predictions: ReadonlyArray<ArrayLike<number>>,
  ) {
    this.sets = predictions.length;
    const names = [...new Set(family)].sort(compareCodePoints);
    const familyOf = new Map(names.map((f, i) => [f, i]));
    this.families = names.length;
    const width = 1 + this.sets;
    let cases = 0;
    for (let i = 0; i < family.length; i++) cases = Math.max(cases, caseIndex[i] + 1);
    const byCase: Array<Map<number, Float64Array>> = Array.from({ length: cases }, () => new Map());
    family.forEach((f, i) => {
      const fi = familyOf.get(f)!;
      const entries = byCase[caseIndex[i]];
      let e = entries.get(fi);
      if (!e) entries.set(fi, (e = new Float64Array(width)));
      e[0]++;
      for (let s = 0; s < this.sets; s++) e[1 + s] += (predictions[s][i] - y[i]) ** 2;
    });
    this.caseStart = new Int32Array(cases + 1);
    const total = byCase.reduce((a, m) => a + m.size, 0);
    this.entryFamily = new Int32Array(total);
    this.entryData = new Float64Array(total * width);
    let e = 0;
    byCase.forEach((entries, c) => {
      this.caseStart[c] = e;
      for (const [fi, data] of [...entries.entries()].sort((a, b) => a[0] - b[0])) {
        this.entryFamily[e] = fi;
        this.entryData.set(data, e * width);
        e++;
      }
    });
    this.caseStart[cases] = e;
    this.acc = new Float64Array(this.families * width);
  }

  /** Equal-family Brier per set (null weights = every case once); null when a family gets zero weight. */
  evaluate(weights: ArrayLike<number> | null, out = new Float64Array(this.sets)): Float64Array | null {
    const width = 1 + this.sets;
    const acc = this.acc;
    acc.fill(0);
    const cases = this.caseStart.length - 1;
    for (let c = 0; c < cases; c++) {
      const w = weights ? weights[c] : 1;
      if (w === 0) continue;
      for (let e = this.caseStart[c]; e < this.caseStart[c + 1]; e++) {
        const base = this.entryFamily[e] * width;
        const d = e * width;
        for (let j = 0; j < width; j++) acc[base + j] += w * this.entryData[d + j];
      }
    }
    out.fill(0);
    for (let f = 0; f < this.families; f++) {
      const total = acc[f * width];
      if (total === 0) return null;
      for (let s = 0; s < this.sets; s++) out[s] += acc[f * width + 1 + s] / total;
    }
    for (let s = 0; s < this.sets; s++) out[s] /= this.families;
    return out;
  }
}

const NO_INTERVAL: Interval = { low: null, high: null };

/** The capture prediction of one panel from its primary-landmark risk-set rows. */
export function predictCapture(
  rows: readonly RescueRow[],
  options: {
    panel: string;
    landmark: number;
    simulated: boolean;
    familyOf: (controller: string) => { family: string; assigned_by: CapturePredictionFamily['assigned_by'] };
    bootstrap: number;
    seed: number;
  },
): CapturePrediction {
  const y = rows.map((r) => r.late_rescue);
  const events = y.reduce<number>((a, b) => a + b, 0);
  const families = rows.map((r) => options.familyOf(r.controller).family);
  const familyNames = [...new Set(families)].sort(compareCodePoints);
  const emptySet = (name: CaptureFeatureSet): CapturePredictionSet => ({
    name,
    numeric_features: [...CAPTURE_NUMERIC[name]],
    brier: null,
    log_loss: null,
    auroc: null,
    equal_family_brier: null,
    equal_family_brier_ci95: NO_INTERVAL,
    folds: 0,
    converged_folds: 0,
  });
  const out: CapturePrediction = {
    panel: options.panel,
    landmark: options.landmark,
    simulated: options.simulated,
    rows: rows.length,
    evaluated_rows: 0,
    late_rescues: events,
    estimable: false,
    families: familyNames.map((family) => {
      const members = rows.filter((_, i) => families[i] === family);
      const controllers = [...new Set(members.map((r) => r.controller))].sort(compareCodePoints);
      return {
        family,
        controllers,
        assigned_by: options.familyOf(controllers[0]).assigned_by,
        rows: members.length,
        late_rescues: members.reduce((a, r) => a + r.late_rescue, 0),
        estimable: false,
        brier: { B0: null, B1: null, B2: null },
      };
    }),
    feature_sets: CAPTURE_FEATURE_SETS.map(emptySet),
    differences: (['B1 − B0', 'B2 − B1'] as const).map((comparison) => ({ comparison, equal_family_brier_delta: null, ci95: NO_INTERVAL })),
    bootstrap: { resamples: 0, cases: 0, degenerate_resamples: 0 },
  };
  const overall =
    notEstimableReason(rows.length, events) ??
    (familyNames.length < 2 ? `needs at least 2 model families to hold one out (got ${familyNames.length})` : null);
  if (overall) {
    const reason = overall.replace(/^not estimable: /, '');
    out.null_reasons = { estimable: reason };
    for (const s of out.feature_sets)
      s.null_reasons = Object.fromEntries(
        ['brier', 'log_loss', 'auroc', 'equal_family_brier', 'equal_family_brier_ci95'].map((f) => [f, reason]),
      );
    for (const d of out.differences) d.null_reasons = { equal_family_brier_delta: reason, ci95: reason };
    for (const f of out.families) f.null_reasons = { brier: reason };
    return out;
  }

  // ---- the three nested sets, fold by fold --------------------------------------------------------
  const predictions: Array<Array<number | null>> = [];
  const foldsBySet: LofoFold[][] = [];
  for (const name of CAPTURE_FEATURE_SETS) {
    const numeric = CAPTURE_NUMERIC[name];
    const table: TabularRow[] = rows.map((r) => ({
      numeric: numeric.map((f) => featureValue(r, f)),
      categorical: [r.source_family, r.length_band],
    }));
    const { p, folds } = leaveOneFamilyOut(table, y, families, numeric, CAPTURE_CATEGORICAL);
    predictions.push(p);
    foldsBySet.push(folds);
  }
  // Fold estimability depends on outcomes and families only, so it is the same for every set.
  const evaluated = rows.map((_, i) => i).filter((i) => predictions[0][i] !== null);
  out.evaluated_rows = evaluated.length;
  for (const f of out.families) {
    const fold = foldsBySet[0].find((x) => x.family === f.family)!;
    f.estimable = fold.reason === null;
    if (fold.reason) f.null_reasons = { brier: fold.reason };
  }
  if (!evaluated.length) {
    const reason = 'no fold could be fitted: every training set held one outcome class';
    out.null_reasons = { estimable: reason };
    for (const s of out.feature_sets)
      s.null_reasons = Object.fromEntries(
        ['brier', 'log_loss', 'auroc', 'equal_family_brier', 'equal_family_brier_ci95'].map((f) => [f, reason]),
      );
    for (const d of out.differences) d.null_reasons = { equal_family_brier_delta: reason, ci95: reason };
    return out;
  }
  out.estimable = true;
  const ys = evaluated.map((i) => y[i]);
  const evaluatedFamilies = evaluated.map((i) => families[i]);
  const probs = predictions.map((p) => Float64Array.from(evaluated, (i) => p[i]!));
  const caseIds = [...new Set(evaluated.map((i) => rows[i].caseId))].sort(compareCodePoints);
  const caseOf = new Map(caseIds.map((c, j) => [c, j]));
  const caseIndex = Int32Array.from(evaluated, (i) => caseOf.get(rows[i].caseId)!);
  const brier = new FamilyBrier(evaluatedFamilies, caseIndex, ys, probs);
  const point = brier.evaluate(null)!;
  const aucReason = aurocUndefinedReason(ys);
  CAPTURE_FEATURE_SETS.forEach((name, s) => {
    const set = out.feature_sets[s];
    set.brier = brierScore(ys, probs[s]);
    set.log_loss = logLoss(ys, probs[s]);
    if (aucReason) set.null_reasons = { auroc: aucReason };
    else set.auroc = auroc(ys, probs[s]);
    set.equal_family_brier = point[s];
    const fitted = foldsBySet[s].filter((f) => f.reason === null);
    set.folds = fitted.length;
    set.converged_folds = fitted.filter((f) => f.converged).length;
    for (const f of out.families) {
      if (!f.estimable) continue;
      const idx = evaluated.map((_, t) => t).filter((t) => evaluatedFamilies[t] === f.family);
      f.brier[name] = brierScore(
        idx.map((t) => ys[t]),
        idx.map((t) => probs[s][t]),
      );
    }
  });
  out.differences[0].equal_family_brier_delta = point[1] - point[0];
  out.differences[1].equal_family_brier_delta = point[2] - point[1];

  // ---- equal-family Brier bootstrap: one case-weight matrix, cases stratified by source family ----
  out.bootstrap.cases = caseIds.length;
  const b = options.bootstrap;
  if (b === 0) {
    for (const s of out.feature_sets) s.null_reasons = { ...s.null_reasons, equal_family_brier_ci95: 'bootstrap switched off (B = 0)' };
    for (const d of out.differences) d.null_reasons = { ci95: 'bootstrap switched off (B = 0)' };
    return out;
  }
  const stratumOf = new Map(evaluated.map((i) => [rows[i].caseId, rows[i].source_family]));
  const groups = strataGroups(caseIds.map((c) => stratumOf.get(c)!));
  const rng = Xoshiro128.fromKey(`revloop.capture-bootstrap\u001f${options.seed}\u001f${options.panel}`);
  const counts = new Int32Array(caseIds.length);
  const draws = CAPTURE_FEATURE_SETS.map(() => new Float64Array(b));
  const deltas = [new Float64Array(b), new Float64Array(b)];
  const scratch = new Float64Array(CAPTURE_FEATURE_SETS.length);
  let valid = 0;
  for (let r = 0; r < b; r++) {
    drawStratifiedCounts(groups, rng, counts);
    const v = brier.evaluate(counts, scratch);
    if (!v) continue;
    for (let s = 0; s < v.length; s++) draws[s][valid] = v[s];
    deltas[0][valid] = v[1] - v[0];
    deltas[1][valid] = v[2] - v[1];
    valid++;
  }
  out.bootstrap.resamples = b;
  out.bootstrap.degenerate_resamples = b - valid;
  const interval = (values: Float64Array): Interval => {
    if (!valid) return NO_INTERVAL;
    const [low, high] = percentileInterval95(values.subarray(0, valid));
    return { low, high };
  };
  const noValid = 'every resample left some family with zero case weight';
  CAPTURE_FEATURE_SETS.forEach((_, s) => {
    out.feature_sets[s].equal_family_brier_ci95 = interval(draws[s]);
    if (!valid) out.feature_sets[s].null_reasons = { ...out.feature_sets[s].null_reasons, equal_family_brier_ci95: noValid };
  });
  out.differences.forEach((d, j) => {
    d.ci95 = interval(deltas[j]);
    if (!valid) d.null_reasons = { ci95: noValid };
  });
  return out;
}
