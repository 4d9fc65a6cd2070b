// The paired-difference interval (Newcombe 1998, method 10) against the paper's own published
// examples and against reference values computed independently with scipy and statsmodels
// (scripts/paired-difference-fixtures.py, committed under test/fixtures/stats).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { newcombePairedDifference, normalUpperQuantile, wilsonInterval } from '../../src/core/stats/paired-difference.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/stats/paired_difference.json', import.meta.url), 'utf8')) as {
  cases: Array<{ table: [number, number, number, number]; confidence: number; estimate: number; lower: number; upper: number }>;
};

const table = (both: number, firstOnly: number, secondOnly: number, neither: number) => ({ both, firstOnly, secondOnly, neither });
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

test("Newcombe (1998)'s published examples of method 10, to the paper's four decimals", () => {
  // The paper's table is (e, f, g, h) with θ = (f − g)/n = p₁ − p₂; revloop reports p₂ − p₁, so the
  // published interval (L, U) is (−U, −L) here. Swapping the discordant cells gives the paper's sign.
  const published: Array<[[number, number, number, number], number, number]> = [
    [[36, 12, 2, 0], 0.0569, 0.3404],
    [[18, 12, 2, 18], 0.0562, 0.329],
    [[53, 0, 0, 1], -0.0729, 0.0729],
    [[0, 30, 0, 0], 0.8395, 1.0],
  ];
  for (const [[e, f, g, h], lo, hi] of published) {
    const r = newcombePairedDifference(table(e, g, f, h))!;
    assert.equal(round4(r.estimate), round4((f - g) / (e + f + g + h)));
    assert.deepEqual([round4(r.lower), round4(r.upper)], [lo, hi], `(${e}, ${f}, ${g}, ${h})`);
    const mirrored = newcombePairedDifference(table(e, f, g, h))!;
    assert.deepEqual([round4(mirrored.lower), round4(mirrored.upper)], [round4(-hi), round4(-lo)]);
  }
});

test('agrees with the independent scipy/statsmodels computation on 234 tables and three levels', () => {
  assert.ok(fixture.cases.length >= 200);
  for (const c of fixture.cases) {
    const r = newcombePairedDifference(table(...c.table), c.confidence)!;
    for (const k of ['estimate', 'lower', 'upper'] as const)
      assert.ok(Math.abs(r[k] - c[k]) <= 1e-12, `${JSON.stringify(c.table)} @${c.confidence} ${k}: ${r[k]} vs ${c[k]}`);
  }
});

test('the interval is informative without discordant pairs, contains the estimate, and narrows with n', () => {
  const none = newcombePairedDifference(table(20, 0, 0, 10))!;
  assert.equal(none.estimate, 0);
  assert.ok(none.lower < 0 && none.upper > 0, 'no discordant pairs is not certainty of no difference');
  const wider = newcombePairedDifference(table(20, 3, 0, 7))!;
  const narrower = newcombePairedDifference(table(200, 30, 0, 70))!;
  for (const r of [wider, narrower]) assert.ok(r.lower <= r.estimate && r.estimate <= r.upper);
  assert.ok(narrower.upper - narrower.lower < wider.upper - wider.lower);
  assert.equal(newcombePairedDifference(table(0, 0, 0, 0)), null);
  assert.throws(() => newcombePairedDifference(table(1, -1, 0, 0)), /firstOnly must be a non-negative integer/);
  assert.throws(() => newcombePairedDifference(table(1, 0, 0, 0), 1), /confidence must be in \(0, 1\)/);
});

test('the normal quantile and the Wilson interval behind it', () => {
  assert.ok(Math.abs(normalUpperQuantile(0.025) - 1.959963984540054) < 1e-13);
  assert.ok(Math.abs(normalUpperQuantile(0.5)) < 1e-13);
  // Wilson (1927) for 0 of 10: [0, z²/(n + z²)].
  const z = 1.959963984540054;
  const [lo, hi] = wilsonInterval(0, 10, z);
  assert.equal(lo, 0);
  assert.ok(Math.abs(hi - (z * z) / (10 + z * z)) < 1e-15);
});
