// The system identification's statistics against scipy/numpy (test/fixtures/stats/response_curves.json,
// written by scripts/stats-fixtures.py): Theil–Sen slopes, numpy.interp, the weighted median the
// bootstrap uses, and the curve pipeline (median per command, monotone-pair fraction, local slopes,
// the 8-step capture simulation) on the same synthetic rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { interpClamped } from '../../src/core/stats/interp.ts';
import { weightedMedian } from '../../src/core/stats/stratified-bootstrap.ts';
import { theilSenSlope } from '../../src/core/stats/theil-sen.ts';
import {
  curveKnots,
  localSlopes,
  medianCurve,
  monotonePairFraction,
  simulateCapture,
  type SysidRow,
} from '../../src/studies/experiments/analysis/sysid.ts';
import type { PredictionSpec } from '../../src/studies/experiments/analysis/experiment-analysis-types.ts';

const fx = JSON.parse(readFileSync(new URL('../fixtures/stats/response_curves.json', import.meta.url), 'utf8'));
const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test('Theil–Sen slope equals scipy.stats.theilslopes', () => {
  assert.ok(fx.theil_sen.length >= 20);
  for (const c of fx.theil_sen) close(theilSenSlope(c.x, c.y), c.slope, `x=${c.x} y=${c.y}`);
  assert.ok(Number.isNaN(theilSenSlope([1, 1], [2, 3])), 'no pair with distinct x: undefined');
});

test('interpolation equals numpy.interp (clamped outside the knots)', () => {
  for (const c of fx.interp) c.x.forEach((x: number, i: number) => close(interpClamped(x, c.xp, c.fp), c.y[i], `x=${x}`));
});

test('weighted median equals statistics.median of the expanded multiset', () => {
  for (const c of fx.weighted_median) {
    const m = weightedMedian(c.values, c.weights);
    if (c.median === null) assert.ok(Number.isNaN(m));
    else close(m, c.median, `${c.values} × ${c.weights}`);
  }
});

test('the sysid curve pipeline equals the Python reference on the same rows', () => {
  const s = fx.sysid;
  const rows: SysidRow[] = s.rows.map((r: { case_id: string; source: string; command: number; realized: number }) => ({
    ...r,
    split: 'discovery',
    gain: r.realized / r.command,
    direction_correct: false,
    contraction: false,
    zero_action: false,
    overshoot: false,
    exact: false,
    anchors: false,
  }));
  const curve = medianCurve(rows, s.commands);
  assert.deepEqual(curve, s.median_curve);
  close(monotonePairFraction(curve)!, s.monotone_pair_fraction, 'monotone-pair fraction');
  for (const sl of localSlopes(rows, 0, 1, 'fixture')) {
    assert.equal(sl.cases, s.slopes[sl.subset].cases, `${sl.subset} cases`);
    close(sl.slope!, s.slopes[sl.subset].slope, `${sl.subset} slope`);
  }
  const spec: PredictionSpec = {
    estimator: '',
    controller: '',
    commands: s.commands,
    checkpoint: curve,
    pooled: curve,
    pooled_runs: [],
    gate: '',
  };
  for (const c of s.captures) assert.equal(simulateCapture(curveKnots(spec), c.e0), c.captured, `capture from e0 = ${c.e0}`);
});
