// §3.9 leave-one-family-out capture prediction against scikit-learn (test/fixtures/stats/capture.json,
// made by scripts/stats-fixtures.py): the pipeline (median imputation, standardisation, one-hot with
// unknown levels ignored), the L2 logit optimum, Brier / log loss / AUROC, and the equal-family Brier
// under NumPy's multinomial case weights. Then the branches on hand-made risk-set rows: families
// named, assigned or missing, one family only, folds that cannot be fitted, B = 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  CAPTURE_CATEGORICAL,
  CAPTURE_NUMERIC,
  FamilyBrier,
  leaveOneFamilyOut,
  modelFamily,
  predictCapture,
} from '../../src/studies/revision/analysis/capture-prediction.ts';
import { assertStrictJson } from '../../src/studies/revision/analysis/json.ts';
import type { RescueRow } from '../../src/studies/revision/analysis/rescue.ts';
import { fitL2Logistic, predictL2Logistic } from '../../src/core/stats/l2-logistic.ts';
import { fitPreprocessor, type TabularRow } from '../../src/core/stats/preprocess.ts';
import { auroc, brierScore, logLoss } from '../../src/core/stats/scores.ts';
import { CAPTURE_FEATURE_SETS } from '../../src/studies/revision/analysis/analysis-types.ts';

const fx = JSON.parse(readFileSync(new URL('../fixtures/stats/capture.json', import.meta.url), 'utf8'));
const rows = fx.rows as RescueRow[];
const y = rows.map((r) => r.late_rescue);
const families = rows.map((r) => modelFamily(r.controller).family);
const feature = (r: RescueRow, f: string) => (f in r.covariates ? r.covariates[f as keyof RescueRow['covariates']] : (r as never)[f]);

function close(actual: number, expected: number, tol: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected} (tol ${tol})`);
}

function table(numeric: readonly string[], missing: Set<string>): TabularRow[] {
  return rows.map((r, i) => ({
    numeric: numeric.map((f) => (missing.has(`${i}|${f}`) ? null : feature(r, f))),
    categorical: [r.source_family, r.length_band],
  }));
}

test('controller names map to the paper families as the fixture assigns them', () => {
  for (const [controller, family] of Object.entries(fx.families))
    assert.deepEqual(modelFamily(controller), { family, assigned_by: 'name' });
  assert.deepEqual(modelFamily('sim:steady [simulated]'), { family: 'sim:steady [simulated]', assigned_by: 'controller' });
  assert.deepEqual(modelFamily('qwen3-8b', { 'qwen3-8b': 'Alibaba' }), { family: 'Alibaba', assigned_by: 'option' });
});

for (const [variant, sets] of Object.entries<Record<string, any>>(fx.variants)) {
  const missing = new Set<string>(variant === 'with_missing' ? fx.missing.map(([i, f]: [number, string]) => `${i}|${f}`) : []);
  for (const name of CAPTURE_FEATURE_SETS) {
    const ref = sets[name];
    test(`LOFO ${name} (${variant}): the L2 logit optimum and held-out probabilities match scikit-learn`, () => {
      assert.deepEqual(ref.numeric, [...CAPTURE_NUMERIC[name]]);
      const data = table(ref.numeric, missing);
      const { p, folds } = leaveOneFamilyOut(data, y, families, ref.numeric, CAPTURE_CATEGORICAL);
      assert.deepEqual(
        folds.map((f) => f.family),
        ref.tight_folds.map((f: { family: string }) => f.family),
      );
      assert.ok(folds.every((f) => f.converged));
      // The optimum itself (newton-cholesky, tol 1e-12): held-out probabilities to 1e-11.
      p.forEach((v, i) => close(v!, ref.tight_p[i], 1e-11, `p[${i}]`));
      // The reference's configuration (lbfgs, tol 1e-4) stops short of it by up to ~2e-4.
      const gap = Math.max(...p.map((v, i) => Math.abs(v! - ref.lbfgs_default_p[i])));
      assert.ok(gap < 1e-3, `lbfgs default gap ${gap}`);
      // Coefficients of every fold, in scikit-learn's column order.
      for (const f of ref.tight_folds) {
        const train = rows.map((_, i) => i).filter((i) => families[i] !== f.family);
        const pre = fitPreprocessor(
          ref.numeric,
          CAPTURE_CATEGORICAL,
          train.map((i) => data[i]),
        );
        assert.deepEqual(
          pre.columns,
          f.columns.map((c: string) => c.replace(/^num__(.*)$/, 'z($1)').replace(/^cat__(source_family|length_band)_(.*)$/, '$1=$2')),
        );
        const fit = fitL2Logistic({
          x: pre.transform(train.map((i) => data[i])),
          rows: train.length,
          cols: pre.columns.length,
          y: train.map((i) => y[i]),
          C: 1,
        });
        close(fit.intercept, f.intercept, 1e-10, `${f.family} intercept`);
        fit.coefficients.forEach((b, j) => close(b, f.coef[j], 1e-10, `${f.family} β[${j}] ${pre.columns[j]}`));
        assert.ok(fit.gradientNorm < 1e-8, `gradient ${fit.gradientNorm}`);
      }
      // Scores (sklearn.metrics on the optimum's predictions).
      const probs = p as number[];
      close(brierScore(y, probs), ref.brier, 1e-11, 'Brier');
      close(logLoss(y, probs), ref.log_loss, 1e-11, 'log loss');
      close(auroc(y, probs), ref.auroc, 1e-12, 'AUROC');
      // Equal-family Brier, unweighted and under the fixture's NumPy multinomial case weights.
      const caseIndex = rows.map((r) => fx.case_ids.indexOf(r.caseId));
      const brier = new FamilyBrier(families, caseIndex, y, [probs]);
      close(brier.evaluate(null)![0], ref.equal_family_brier, 1e-11, 'equal-family Brier');
      fx.weights.forEach((w: number[], b: number) =>
        close(brier.evaluate(w)![0], ref.weighted_equal_family_brier[b], 1e-11, `weighted #${b}`),
      );
      for (const [family, value] of Object.entries<number>(ref.family_brier)) {
        const idx = rows.map((_, i) => i).filter((i) => families[i] === family);
        close(
          brierScore(
            idx.map((i) => y[i]),
            idx.map((i) => probs[i]),
          ),
          value,
          1e-11,
          `${family} Brier`,
        );
      }
    });
  }
}

test('predictCapture end to end on the fixture rows: pooled and equal-family scores, bootstrap intervals', () => {
  const options = { panel: 'p', landmark: 4, simulated: false, familyOf: (c: string) => modelFamily(c), bootstrap: 400, seed: 11 };
  const out = predictCapture(rows, options);
  assertStrictJson(out);
  assert.equal(out.estimable, true);
  assert.equal(out.evaluated_rows, rows.length);
  assert.deepEqual(
    out.families.map((f) => [f.family, f.assigned_by, f.estimable]),
    ['Falcon-H1', 'GLM', 'Gemma', 'Granite', 'Llama', 'Mistral', 'Qwen'].map((f) => [f, 'name', true]),
  );
  assert.deepEqual(out.families.find((f) => f.family === 'Qwen')!.controllers, ['qwen3-4b', 'qwen3-8b']);
  for (const set of out.feature_sets) {
    const ref = fx.variants.complete[set.name];
    close(set.brier!, ref.brier, 1e-11, `${set.name} Brier`);
    close(set.log_loss!, ref.log_loss, 1e-11, `${set.name} log loss`);
    close(set.auroc!, ref.auroc, 1e-12, `${set.name} AUROC`);
    close(set.equal_family_brier!, ref.equal_family_brier, 1e-11, `${set.name} equal-family Brier`);
    for (const f of out.families) close(f.brier[set.name]!, ref.family_brier[f.family], 1e-11, `${f.family} ${set.name}`);
    const { low, high } = set.equal_family_brier_ci95;
    assert.ok(low! < set.equal_family_brier! && set.equal_family_brier! < high!, `${set.name} interval brackets the estimate`);
    assert.equal(set.converged_folds, 7);
  }
  const [d10, d21] = out.differences;
  assert.equal(d10.equal_family_brier_delta, out.feature_sets[1].equal_family_brier! - out.feature_sets[0].equal_family_brier!);
  assert.equal(d21.equal_family_brier_delta, out.feature_sets[2].equal_family_brier! - out.feature_sets[1].equal_family_brier!);
  assert.ok(d21.ci95.low! < d21.equal_family_brier_delta! && d21.equal_family_brier_delta! < d21.ci95.high!);
  assert.deepEqual(out.bootstrap, { resamples: 400, cases: fx.case_ids.length, degenerate_resamples: 0 });
  assert.deepEqual(predictCapture(rows, options), out, 'seeded: the same numbers again');
});

// ---- branches on hand-made rows -------------------------------------------------------------------

function row(controller: string, i: number, rescued: 0 | 1): RescueRow {
  const e = ((i * 7) % 41) - 20 || 3;
  return {
    controller,
    caseId: `c${i}`,
    model: controller,
    source_family: ['dolly', 'oasst1'][i % 2],
    length_band: ['10-50', '51-100'][(i >> 1) % 2],
    late_rescue: rescued,
    repeat_fraction: (i % 5) / 4,
    any_recurrence: i % 5 ? 1 : 0,
    recurrence_count: i % 5,
    unique_output_ratio: 1 - (i % 5) / 5,
    longest_identical_run: 1 + (i % 3),
    period2_return: i % 4 === 0 ? 1 : 0,
    covariates: {
      current_error: e,
      current_abs_error: Math.abs(e),
      log_current_abs_error: Math.log1p(Math.abs(e)),
      target: 50 + i,
      current_missing_count: i % 3,
      min_abs_error: Math.abs(e) % 5,
      initial_to_current_abs_improvement: (i % 9) - 4,
      contraction_count: i % 4,
      sign_flip_count: i % 2,
      length_noop_count: (i >> 2) % 2,
      largest_abs_action: (i * 3) % 30,
      escape_by_landmark: i % 11 === 0 ? 1 : 0,
    },
  };
}
const mixed = (controller: string, n: number, offset = 0) =>
  Array.from({ length: n }, (_, i) => row(controller, i + offset, (i * 5) % 3 === 0 ? 1 : 0));
const base = { panel: 'p', landmark: 4, simulated: true, bootstrap: 200, seed: 1 };

test('controllers without a known family are families of their own; --model-family assignments group them', () => {
  const data = [...mixed('sim:a', 30), ...mixed('sim:b', 30, 30), ...mixed('sim:c', 30, 60)];
  const own = predictCapture(data, { ...base, familyOf: (c) => modelFamily(c) });
  assert.deepEqual(
    own.families.map((f) => [f.family, f.assigned_by, f.rows]),
    [
      ['sim:a', 'controller', 30],
      ['sim:b', 'controller', 30],
      ['sim:c', 'controller', 30],
    ],
  );
  assert.equal(own.estimable, true);
  const grouped = predictCapture(data, { ...base, familyOf: (c) => modelFamily(c, { 'sim:a': 'X', 'sim:b': 'X', 'sim:c': 'Y' }) });
  assert.deepEqual(
    grouped.families.map((f) => [f.family, f.assigned_by, f.controllers]),
    [
      ['X', 'option', ['sim:a', 'sim:b']],
      ['Y', 'option', ['sim:c']],
    ],
  );
});

test('one family, too few rows or one outcome: not estimable, with the reason and no NaN', () => {
  const single = predictCapture(mixed('llama-8b', 80), { ...base, familyOf: (c) => modelFamily(c) });
  assertStrictJson(single);
  assert.equal(single.estimable, false);
  assert.match(single.null_reasons!.estimable, /needs at least 2 model families to hold one out \(got 1\)/);
  assert.equal(single.feature_sets[0].brier, null);
  assert.match(single.feature_sets[2].null_reasons!.equal_family_brier, /at least 2 model families/);

  const few = predictCapture([...mixed('a', 10), ...mixed('b', 10, 10)], { ...base, familyOf: (c) => modelFamily(c) });
  assert.match(few.null_reasons!.estimable, /20 risk-set rows \(< 50\)/);

  const oneClass = [...mixed('a', 40), ...mixed('b', 40, 40)].map((r) => ({ ...r, late_rescue: 0 as const }));
  assert.match(predictCapture(oneClass, { ...base, familyOf: (c) => modelFamily(c) }).null_reasons!.estimable, /only one outcome class/);
});

test('a fold whose training families hold one outcome class is not fitted; its family is left out of every score', () => {
  // Families A and B never rescue; C is mixed. Holding out C leaves training rows of one class.
  const data = [
    ...mixed('A', 30).map((r) => ({ ...r, late_rescue: 0 as const })),
    ...mixed('B', 30, 30).map((r) => ({ ...r, late_rescue: 0 as const })),
    ...mixed('C', 40, 60),
  ];
  const out = predictCapture(data, { ...base, familyOf: (c) => ({ family: c, assigned_by: 'option' }) });
  assertStrictJson(out);
  const c = out.families.find((f) => f.family === 'C')!;
  assert.equal(c.estimable, false);
  assert.match(c.null_reasons!.brier, /the other families' 60 rows hold one outcome class only \(none rescued\)/);
  assert.equal(out.evaluated_rows, 60);
  assert.equal(out.feature_sets[0].folds, 2);
  // Only non-rescued rows are evaluated: the AUROC is undefined, the Brier is not.
  assert.equal(out.feature_sets[0].auroc, null);
  assert.match(out.feature_sets[0].null_reasons!.auroc, /AUROC needs both outcomes \(all 60 rows are 0\)/);
  assert.ok(out.feature_sets[0].brier! > 0);
});

test('B = 0 switches the equal-family Brier intervals off with a reason', () => {
  const data = [...mixed('a', 30), ...mixed('b', 30, 30)];
  const out = predictCapture(data, { ...base, bootstrap: 0, familyOf: (c) => modelFamily(c) });
  assert.deepEqual(out.feature_sets[0].equal_family_brier_ci95, { low: null, high: null });
  assert.equal(out.feature_sets[0].null_reasons!.equal_family_brier_ci95, 'bootstrap switched off (B = 0)');
  assert.equal(out.differences[1].null_reasons!.ci95, 'bootstrap switched off (B = 0)');
  assert.ok(out.feature_sets[0].equal_family_brier !== null);
});

test('pipeline pieces: unseen levels are all zeros, an unobserved numeric is dropped, constant columns scale by 1', () => {
  const train: TabularRow[] = [
    { numeric: [1, null, 5], categorical: ['a'] },
    { numeric: [3, null, 5], categorical: ['b'] },
    { numeric: [null, null, 5], categorical: ['a'] },
  ];
  const pre = fitPreprocessor(['u', 'v', 'w'], ['k'], train);
  assert.deepEqual(pre.columns, ['z(u)', 'z(w)', 'k=a', 'k=b']);
  assert.deepEqual(pre.dropped, ['v']);
  // u: median 2 imputed → [1, 3, 2], mean 2, population SD √(2/3); w is constant → (5 − 5)/1.
  const x = pre.transform([{ numeric: [2 + Math.sqrt(2 / 3), 7, 5], categorical: ['zzz'] }]);
  assert.deepEqual(
    [...x].map((v) => Math.round(v * 1e12) / 1e12),
    [1, 0, 0, 0],
  );
  const fit = fitL2Logistic({ x: pre.transform(train), rows: 3, cols: 4, y: [1, 0, 1], C: 1 });
  assert.ok(fit.converged);
  assert.equal(predictL2Logistic(fit, x, 1).length, 1);
  assert.throws(() => fitL2Logistic({ x: new Float64Array(3), rows: 1, cols: 3, y: [1], C: 0 }), /C must be positive/);
});
