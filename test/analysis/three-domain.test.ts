// §3.9 all-domain landmark: the Mantel–Haenszel common OR against statsmodels' StratifiedTable, the
// adjusted clustered logit against statsmodels Logit (test/fixtures/stats, made by
// scripts/stats-fixtures.py), and the per-trajectory rows (risk set, exposure, energy path) on
// hand-built trajectories, including the degenerate subsets that must say why they are empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeTrajectories } from '../../src/studies/revision/analysis/analyze-trajectories.ts';
import { assertStrictJson } from '../../src/studies/revision/analysis/json.ts';
import { mantelHaenszel } from '../../src/core/stats/mantel-haenszel.ts';
import { fitThreeDomain, roundEnergy, threeDomainRow, type ThreeDomainRow } from '../../src/studies/revision/analysis/three-domain.ts';
import { traj } from './build.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/stats/${name}`, import.meta.url), 'utf8'));

function close(actual: number | null, expected: number, rel: number, what: string): void {
  assert.ok(actual !== null, `${what} is null`);
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `${what}: ${actual} vs ${expected} (rel ${rel})`);
}

test('Mantel–Haenszel OR, RBG standard error and χ² match statsmodels StratifiedTable', () => {
  for (const c of fixture('mantel_haenszel.json').cases) {
    const mh = mantelHaenszel(c.tables);
    assert.equal(mh.strata, c.strata_used, 'strata with n < 2 are left out');
    close(mh.odds_ratio, c.oddsratio_pooled, 1e-13, 'OR');
    close(mh.log_se, c.logodds_pooled_se, 1e-13, 'SE of log OR');
    close(mh.ci95.low, c.ci95_1_96[0], 1e-13, 'CI low');
    close(mh.ci95.high, c.ci95_1_96[1], 1e-13, 'CI high');
    close(mh.chi2, c.chi2, 1e-12, 'MH χ²');
    close(mh.p, c.p_chi2_sf, 1e-12, 'p = chi2.sf');
  }
});

test('Mantel–Haenszel: degenerate tables give reasons, never NaN or Infinity', () => {
  const none = mantelHaenszel([{ a: 1, b: 0, c: 0, d: 0 }]);
  assert.equal(none.strata, 0);
  assert.match(none.null_reasons!.odds_ratio, /no stratum with at least 2 rows/);
  const infinite = mantelHaenszel([
    { a: 3, b: 0, c: 1, d: 2 },
    { a: 2, b: 0, c: 0, d: 4 },
  ]);
  assert.equal(infinite.odds_ratio, null);
  assert.match(infinite.null_reasons!.odds_ratio, /Σbc\/n = 0: the common odds ratio is infinite/);
  assert.ok(infinite.p !== null && infinite.p < 1, 'the χ² test is still defined');
  const zero = mantelHaenszel([{ a: 0, b: 3, c: 2, d: 0 }]);
  assert.match(zero.null_reasons!.odds_ratio, /Σad\/n = 0/);
  const flat = mantelHaenszel([{ a: 4, b: 0, c: 3, d: 0 }]);
  assert.match(flat.null_reasons!.p, /zero hypergeometric variance/);
  assertStrictJson([none, infinite, zero, flat]);
  assert.throws(() => mantelHaenszel([{ a: 1.5, b: 0, c: 0, d: 1 }]), /whole numbers/);
});

for (const fx of fixture('three_domain.json').datasets) {
  test(`adjusted three-domain logit (${fx.name}, design rank ${fx.design_rank}) matches statsmodels and the §3.9 sandwich`, () => {
    const rows = fx.rows as ThreeDomainRow[];
    const fit = fitThreeDomain('combined', 4, rows, false);
    assertStrictJson(fit);
    assert.equal(fit.rows, rows.length);
    close(fit.mantel_haenszel.odds_ratio, fx.mantel_haenszel.odds_ratio, 1e-13, 'MH OR');
    close(fit.mantel_haenszel.log_se, fx.mantel_haenszel.log_se, 1e-13, 'MH SE');
    close(fit.mantel_haenszel.p, fx.mantel_haenszel.p, 1e-11, 'MH p');
    assert.equal(fit.mantel_haenszel.strata, fx.mantel_haenszel.strata);
    const a = fit.adjusted;
    assert.deepEqual(a.columns, fx.adjusted.columns);
    assert.equal(a.rows, fx.adjusted.rows);
    assert.equal(a.dropped_rows, fx.adjusted.dropped_rows);
    assert.equal(a.dropped_strata, 1);
    assert.equal(a.converged, true);
    // Sources nested in tasks make the design rank-deficient; β₁ and its pinv-sandwich SE stay identified.
    close(a.coefficient, fx.adjusted.coefficient, 1e-8, 'coefficient');
    close(a.se, fx.adjusted.se, 1e-7, 'clustered SE');
    close(a.odds_ratio, fx.adjusted.odds_ratio, 1e-8, 'OR');
    close(a.ci95.low, fx.adjusted.ci95[0], 1e-7, 'CI low');
    close(a.ci95.high, fx.adjusted.ci95[1], 1e-7, 'CI high');
    close(a.p, fx.adjusted.p, 1e-6, 'p');
  });
}

test('rows: risk set of L+2 rounds, exposure by L, and the energy path (exact length: |e|/max(target,1) + missing)', () => {
  const short = traj({ texts: 'ABCDE' }); // 5 rounds < L+2 = 6
  assert.equal(threeDomainRow(short, 4), null);
  const t = traj({ texts: 'ABACDEF*', errors: [20, 10, 20, 10, 10, 5, 4, 0], missingAt: [1], target: 40 });
  // energies r0…r4: 0.5, 0.25 + 1, 0.5, 0.25, 0.25
  assert.equal(roundEnergy(t, t.rounds[1]), 10 / 40 + 1);
  const r = threeDomainRow(t, 4)!;
  assert.equal(r.recurrence_by_landmark, 1, 'text A repeats at r2');
  assert.equal(r.later_rescue, 1);
  assert.equal(r.domain, 'exact-length');
  assert.equal(r.source, 'dolly');
  assert.deepEqual(r.covariates, {
    current_energy: 0.25,
    log_current_energy: Math.log1p(0.25),
    min_energy: 0.25,
    initial_to_current_energy_improvement: 0.25,
    energy_contraction_count: 2, // 1.25 → 0.5, 0.5 → 0.25
    energy_noop_count: 1, // 0.25 → 0.25
    largest_abs_energy_change: 0.75,
  });
  // Structured families use the recorded energy and map to their domain.
  const s = traj({ family: 'c07', texts: 'ABCDEFGH' });
  const row = threeDomainRow(s, 4)!;
  assert.equal(row.domain, 'lexical');
  assert.equal(row.recurrence_by_landmark, 0);
  assert.equal(row.covariates.current_energy, 1);
  // The exposure window stops at L: a repeat at r5 does not count.
  assert.equal(threeDomainRow(traj({ texts: 'ABCDEAG' }), 4)!.recurrence_by_landmark, 0);
});

test('in analyze: per panel and combined, simulated flagged, estimability reasons when the risk set is small', () => {
  const trajectories = [
    traj({ controller: 'a', caseId: 'e1', texts: 'ABABABAB*' }),
    traj({ controller: 'a', caseId: 'e2', texts: 'ABCDEFGHI' }),
    traj({ controller: 'b', caseId: 'e1', texts: 'ABCDEF*', simulated: true }),
    traj({ controller: 'b', family: 'c09', caseId: 'k1', texts: 'AAAAAAAAA', simulated: true }),
    traj({ controller: 'b', caseId: 'e3', texts: 'A*', simulated: true }), // outside the risk set
  ];
  const result = analyzeTrajectories(trajectories, { bootstrap: 0, panels: { a: 'one', b: 'two' } });
  assertStrictJson(result);
  const td = result.three_domain_landmark;
  assert.deepEqual(
    td.fits.map((f) => [f.subset, f.rows, f.exposed, f.late_rescues, f.simulated]),
    [
      ['one', 2, 1, 1, false],
      ['two', 2, 1, 1, true],
      ['combined', 4, 2, 2, true],
    ],
  );
  assert.deepEqual(td.tasks, [
    { task: 'exact-length', domain: 'exact-length' },
    { task: 'c09', domain: 'compositional' },
  ]);
  const combined = td.fits[2];
  assert.equal(combined.rescue_rate_exposed, 0.5);
  assert.equal(combined.rescue_rate_unexposed, 0.5);
  assert.equal(combined.adjusted.estimable, false);
  assert.match(
    combined.adjusted.null_reasons!.coefficient,
    /not estimable: 2 risk-set rows \(< 50\) after leaving out 2 rows of 2 single-outcome/,
  );
  // MH: the only informative stratum (a × exact-length) has a = 1, d = 1, b = c = 0 → Σbc/n = 0.
  assert.match(combined.mantel_haenszel.null_reasons!.odds_ratio, /infinite/);
});
