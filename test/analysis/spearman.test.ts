// §3.8: Spearman's ρ and its permutation p against scipy (test/fixtures/stats/spearman.json, made by
// scripts/stats-fixtures.py), and the hazard–success association inside analyzeTrajectories on
// hand-built panels that reach each branch: exact enumeration (n ≤ 7), random permutations (n > 7),
// and the degenerate inputs that must give a reason instead of a NaN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeTrajectories } from '../../src/studies/revision/analysis/analyze-trajectories.ts';
import { assertStrictJson } from '../../src/studies/revision/analysis/json.ts';
import { Xoshiro128 } from '../../src/core/stats/prng.ts';
import { averageRanks } from '../../src/core/stats/ranks.ts';
import { spearmanRho, spearmanTest, spearmanTests } from '../../src/core/stats/spearman.ts';
import type { HazardAssociationRow } from '../../src/studies/revision/analysis/analysis-types.ts';
import { traj } from './build.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/stats/spearman.json', import.meta.url), 'utf8'));
const rng = (key = 'test') => Xoshiro128.fromKey(key);
const B = 100_000;

test('average ranks follow scipy.stats.rankdata (ties share the mean rank)', () => {
  assert.deepEqual([...averageRanks([3, 1, 4, 1, 5])], [3, 1.5, 4, 1.5, 5]);
  assert.deepEqual([...averageRanks([2, 2, 2])], [2, 2, 2]);
});

test('ρ matches scipy.stats.spearmanr, ties included (1e-12)', () => {
  for (const { x, y, scipy_rho } of fixture.cases) {
    const rho = spearmanRho(x, y);
    assert.ok(Math.abs(rho - scipy_rho) <= 1e-12, `n=${x.length}: ${rho} vs ${scipy_rho}`);
  }
});

test('n ≤ 7: exact enumeration equals the fixture count of all n! pairings, and scipy permutation_test', () => {
  const small = fixture.cases.filter((c: { x: number[] }) => c.x.length <= 7);
  assert.ok(small.length >= 7);
  for (const c of small) {
    const r = spearmanTest(c.x, c.y, { permutations: B, rng: rng() });
    assert.equal(r.method, 'exact');
    assert.equal(r.permutations, c.pairings);
    assert.equal(r.extreme, c.exact_extreme, `n=${c.x.length}: pairings at least as extreme`);
    assert.equal(r.p, c.exact_p);
    assert.ok(Math.abs(r.p - c.scipy_permutation_test_p) <= 1e-12, `scipy ${c.scipy_permutation_test_p} vs ${r.p}`);
  }
});

test('n = 8, 9: enumeration (when asked for) is exact, and 100,000 permutations land within Monte-Carlo error', () => {
  for (const c of fixture.cases.filter((c: { x: number[]; exact_p?: number }) => c.x.length > 7 && c.exact_p !== undefined)) {
    const exact = spearmanTest(c.x, c.y, { permutations: B, rng: rng(), exactMaxN: 9 });
    assert.equal(exact.extreme, c.exact_extreme);
    assert.equal(exact.p, c.exact_p);
    const r = spearmanTest(c.x, c.y, { permutations: B, rng: rng(`n${c.x.length}`) });
    assert.equal(r.method, 'permutation');
    assert.equal(r.p, (r.extreme + 1) / (B + 1));
    const se = Math.sqrt((c.exact_p * (1 - c.exact_p)) / B);
    assert.ok(Math.abs(r.p - c.exact_p) <= 4.5 * se + 1 / B, `n=${c.x.length}: ${r.p} vs exact ${c.exact_p} (SE ${se})`);
  }
});

test('n = 12 (Table 9 local panel): 100,000 permutations agree with a 2,000,000-draw numpy reference', () => {
  for (const c of fixture.cases.filter((c: { monte_carlo_p?: number }) => c.monte_carlo_p !== undefined)) {
    const r = spearmanTest(c.x, c.y, { permutations: B, rng: rng(`n12 ${c.scipy_rho}`) });
    const p = c.monte_carlo_p;
    const se = Math.sqrt(Math.max(p * (1 - p), 1e-5) * (1 / B + 1 / c.monte_carlo_draws));
    assert.ok(Math.abs(r.p - p) <= 4.5 * se + 1 / B, `ρ=${c.scipy_rho}: ${r.p} vs ${p}`);
  }
});

test('the permutation test is seeded, and tests sharing y share their permutations', () => {
  const { x, y } = fixture.cases.find((c: { x: number[] }) => c.x.length === 12);
  const a = spearmanTest(x, y, { permutations: 5000, rng: rng('s') });
  const b = spearmanTest(x, y, { permutations: 5000, rng: rng('s') });
  assert.deepEqual(a, b);
  const [first, second] = spearmanTests([x, x.map((v: number) => -v)], y, { permutations: 5000, rng: rng('s') });
  assert.deepEqual(first, a);
  // −x has ρ = −ρ(x) and, two-sided, exactly the same extreme pairings.
  assert.equal(second.rho, -a.rho);
  assert.equal(second.extreme, a.extreme);
});

test('undefined ρ is refused with the reason, never NaN', () => {
  assert.throws(() => spearmanRho([1, 1, 1], [1, 2, 3]), /x is the same for every pair/);
  assert.throws(() => spearmanRho([1, 2, 3], [5, 5, 5]), /y is the same for every pair/);
  assert.throws(() => spearmanRho([1], [2]), /at least 2 pairs/);
  assert.throws(
    () => spearmanTest([1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 4, 5, 6, 8, 7], { permutations: 0, rng: rng() }),
    /whole number ≥ 1/,
  );
});

// ---- inside analyzeTrajectories -------------------------------------------------------------------

/** Controller k of a panel: `captures` of 8 exact-length cases succeed at revision 1, the rest never (distinct texts). */
function controller(name: string, captures: number, simulated = false) {
  return Array.from({ length: 8 }, (_, i) =>
    traj({ controller: name, caseId: `e${i}`, texts: i < captures ? 'A*' : 'ABCDEFGHI', simulated }),
  );
}

const rowOf = (rows: HazardAssociationRow[], panel: string, predictor: string) => {
  const r = rows.find((x) => x.panel === panel && x.family === 'exact-length' && x.predictor === predictor);
  assert.ok(r, `${panel}/${predictor}`);
  return r;
};

test('association in analyze: exact for a 5-controller panel, permutations for 8, reasons for constants', () => {
  const small = ['s0', 's1', 's2', 's3', 's4'];
  const big = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7'];
  const trajectories = [...small.flatMap((c, k) => controller(c, k + 1)), ...big.flatMap((c, k) => controller(c, k, c === 'b3'))];
  const panels = Object.fromEntries([...small.map((c) => [c, 'small']), ...big.map((c) => [c, 'big'])]);
  const result = analyzeTrajectories(trajectories, { bootstrap: 0, panels, permutations: 2000, seed: 3 });
  assertStrictJson(result);
  const rows = result.hazard_association.rows;
  assert.equal(result.options.permutations, 2000);

  // Small panel: capture hazard and final success are both increasing in k → ρ = 1; of the 5! = 120
  // pairings exactly two (identity and reversal) reach |ρ| = 1, so p = 2/120.
  const s = rowOf(rows, 'small', 'early_capture_hazard');
  assert.equal(s.n, 5);
  assert.equal(s.rho, 1);
  assert.equal(s.method, 'exact');
  assert.equal(s.permutations, 120);
  assert.equal(s.p, 2 / 120);
  assert.equal(s.simulated, false);
  const ratio = rowOf(rows, 'small', 'capture_recurrence_ratio');
  assert.equal(ratio.rho, 1);
  assert.equal(ratio.p, 2 / 120);
  // No trajectory repeats a text: the recurrence hazard is 0 for everyone.
  const rec = rowOf(rows, 'small', 'early_recurrence_hazard');
  assert.equal(rec.rho, null);
  assert.equal(rec.p, null);
  assert.match(rec.null_reasons!.rho, /early recurrence hazard is the same \(0\) for all 5 controllers: ρ is undefined/);

  // Big panel, n = 8 > 7: seeded random permutations; ρ = 1 and only 2 of 8! pairings reach it.
  const b = rowOf(rows, 'big', 'early_capture_hazard');
  assert.equal(b.n, 8);
  assert.equal(b.method, 'permutation');
  assert.equal(b.permutations, 2000);
  assert.equal(b.rho, 1);
  assert.ok(b.p! >= 1 / 2001 && b.p! <= 3 / 2001, `p = ${b.p}`);
  assert.equal(b.simulated, true, 'b3 is simulated');
  // Same seed, same permutations, same p.
  const again = analyzeTrajectories(trajectories, { bootstrap: 0, panels, permutations: 2000, seed: 3 });
  assert.deepEqual(again.hazard_association, result.hazard_association);
});

test('association in analyze: too few controllers, constant success and incomplete-only controllers', () => {
  const two = [...controller('a', 1), ...controller('b', 2)];
  const r1 = analyzeTrajectories(two, { bootstrap: 0 });
  const row = rowOf(r1.hazard_association.rows, 'all', 'early_capture_hazard');
  assert.equal(row.rho, null);
  assert.match(row.null_reasons!.p, /needs at least 3 controllers .* \(got 2\)/);

  // Everyone succeeds on every case: final success is constant.
  const all = ['x', 'y', 'z'].flatMap((c, k) =>
    Array.from({ length: 3 }, (_, i) => traj({ controller: c, caseId: `e${i}`, texts: 'AB*'.slice(Math.min(k, 2)) })),
  );
  const r2 = analyzeTrajectories(all, { bootstrap: 0 });
  assert.match(rowOf(r2.hazard_association.rows, 'all', 'capture_recurrence_ratio').null_reasons!.rho, /final success is the same \(1\)/);

  // A controller with only protocol-incomplete trajectories has no final success rate: left out, said so.
  const withIncomplete = [
    ...controller('a', 1),
    ...controller('b', 2),
    ...controller('c', 3),
    ...controller('d', 5),
    traj({ controller: 'e', caseId: 'e0', texts: 'AB', status: 'incomplete', reason: 'provider error' }),
  ];
  const r3 = analyzeTrajectories(withIncomplete, { bootstrap: 0 });
  const r3row = rowOf(r3.hazard_association.rows, 'all', 'early_capture_hazard');
  assert.equal(r3row.n, 4);
  assert.equal(r3row.excluded, '1 controller(s) left out: no early capture hazard or final success rate');
  assert.equal(r3row.method, 'exact');
  assert.throws(() => analyzeTrajectories(two, { permutations: 0 }), /permutations must be an integer ≥ 1/);
});
