// The statistics against reference numbers computed by scripts/stats-fixtures.py with scipy,
// numpy and statsmodels (committed under test/fixtures/stats).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mcnemarExact } from '../../src/core/stats/binomial.ts';
import { holmAdjust } from '../../src/core/stats/holm.ts';
import { quantiles, percentileInterval95 } from '../../src/core/stats/quantile.ts';
import { normalSf } from '../../src/core/stats/normal.ts';
import { fitClusteredLogit } from '../../src/core/stats/logistic.ts';
import { fitRescue, rescueDesign, type RescueRow } from '../../src/studies/revision/analysis/rescue.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/stats/${name}`, import.meta.url), 'utf8'));

function close(actual: number, expected: number, rel: number, what: string): void {
  const scale = Math.max(Math.abs(expected), Number.MIN_VALUE);
  assert.ok(Math.abs(actual - expected) <= rel * scale, `${what}: ${actual} vs ${expected} (rel tol ${rel})`);
}

test('exact McNemar equals the exact rational value and scipy binomtest', () => {
  const { cases } = fixture('mcnemar.json');
  for (const { b, c, scipy_binomtest, exact_fraction } of cases) {
    const p = mcnemarExact(b, c);
    assert.equal(p, exact_fraction, `McNemar(${b}, ${c}) must be the correctly rounded exact value`);
    close(p, scipy_binomtest, 1e-12, `McNemar(${b}, ${c}) vs scipy`);
  }
  assert.equal(mcnemarExact(0, 0), 1, 'no discordant pairs → p = 1');
  assert.equal(mcnemarExact(4, 4), 1);
  assert.throws(() => mcnemarExact(-1, 2), /non-negative integers/);
});

test('Holm matches statsmodels multipletests exactly', () => {
  for (const { p, holm } of fixture('holm.json').cases) assert.deepEqual(holmAdjust(p), holm);
});

test('percentiles match numpy.quantile / numpy.percentile (linear) exactly', () => {
  for (const { values, q, numpy_quantile, numpy_percentile_2_5_97_5 } of fixture('quantile.json').cases) {
    assert.deepEqual(quantiles(values, q), numpy_quantile, `n=${values.length}`);
    assert.deepEqual(percentileInterval95(Float64Array.from(values)), numpy_percentile_2_5_97_5, `n=${values.length}`);
  }
});

test('normal upper tail matches scipy.stats.norm.sf (1e-13 relative; 1e-12 in the far tail)', () => {
  // Beyond |z| ≈ 8 both implementations are limited by the rounding of z/√2 (≈ x²·ε relative).
  for (const { z, sf } of fixture('normal.json').cases) close(normalSf(z), sf, Math.abs(z) > 8 ? 1e-12 : 1e-13, `sf(${z})`);
});

for (const ds of fixture('logistic.json').datasets) {
  test(`clustered logit (${ds.name}) matches statsmodels with use_correction=False`, () => {
    const rows = ds.rows as RescueRow[];
    const { x, cols, columns } = rescueDesign(rows);
    assert.deepEqual(columns, ds.columns, 'design columns and their order follow PROTOCOL §3.9');
    const fit = fitClusteredLogit({ x, rows: rows.length, cols, y: rows.map((r) => r.late_rescue), clusters: rows.map((r) => r.caseId) });
    assert.ok(fit.converged);
    assert.equal(fit.clusters, ds.clusters);
    fit.coefficients.forEach((b, j) => close(b, ds.statsmodels.params[j], 1e-8, `β[${j}] ${columns[j]}`));
    fit.standardErrors.forEach((s, j) => close(s, ds.statsmodels.bse_cluster_no_correction[j], 1e-7, `SE[${j}] ${columns[j]}`));
    close(fit.logLikelihood, ds.statsmodels.llf, 1e-12, 'log-likelihood');
    // The reference optimiser (L-BFGS-B, ftol 1e-12) lands on the same optimum, less tightly.
    close(fit.coefficients[1], ds.reference_lbfgsb_params[1], 1e-4, 'repeat_fraction vs reference L-BFGS-B');

    const summary = fitRescue('combined', 4, rows);
    assert.equal(summary.estimable, true);
    close(summary.coefficient!, ds.repeat_fraction.coefficient, 1e-8, 'coefficient');
    close(summary.se!, ds.repeat_fraction.se, 1e-7, 'clustered SE');
    close(summary.odds_ratio!, ds.repeat_fraction.odds_ratio, 1e-8, 'odds ratio');
    close(summary.ci95.low!, ds.repeat_fraction.ci95[0], 1e-7, 'CI low');
    close(summary.ci95.high!, ds.repeat_fraction.ci95[1], 1e-7, 'CI high');
    close(summary.p!, ds.repeat_fraction.p, 1e-6, 'two-sided normal p');
    close(summary.p!, ds.statsmodels.pvalue_repeat_fraction, 1e-6, 'statsmodels p');
  });
}

test('rescue fit is not estimable below 50 rows or with one outcome class', () => {
  const rows = (fixture('logistic.json').datasets[0].rows as RescueRow[]).slice(0, 49);
  const small = fitRescue('x', 4, rows);
  assert.equal(small.estimable, false);
  assert.equal(small.odds_ratio, null);
  assert.match(small.null_reasons!.odds_ratio, /49 risk-set rows/);
  const all = (fixture('logistic.json').datasets[0].rows as RescueRow[]).map((r) => ({ ...r, late_rescue: 1 as const }));
  const one = fitRescue('x', 4, all);
  assert.equal(one.estimable, false);
  assert.match(one.null_reasons!.coefficient, /one outcome class/);
});
