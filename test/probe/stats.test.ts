// Statistics of HARNESS §8: cluster bootstrap (checked against numpy values generated with the
// reference's own function, to Monte-Carlo precision: numpy's PCG64 stream is not reproduced),
// Cohen's d_z, the clamped bootstrap p-value, and Holm (checked against statsmodels).
import test from 'node:test';
import assert from 'node:assert/strict';
import { clusterBootstrap, holm, sampleSd } from '../../src/core/stats/cluster-bootstrap.ts';

// Generated with /usr/bin/python3 (numpy 1.24.2): the reference's cluster_bootstrap, B = 10,000,
// default_rng(20260808) -> (mean, ci_lo, ci_hi, n, n_clusters, dz, p).
const A = {
  values: [-3.1, -2.5, -4.0, 0.5, -1.2, -2.2, -0.7, -3.3, 1.1, -2.9, -1.8, -2.6, -0.4, -3.7, -2.0],
  clusters: ['t1', 't1', 't2', 't2', 't3', 't4', 't4', 't4', 't5', 't6', 't7', 't7', 't8', 't9', 't9'],
  numpy: {
    mean: -1.9200000000000002,
    ci_lo: -2.42224358974359,
    ci_hi: -1.1666666666666667,
    n: 15,
    n_clusters: 9,
    dz: -1.271073305462259,
    p: 0.0001,
  },
};
const B = {
  values: [0.2, -0.1, 0.05, 0.3, -0.25, 0.1, 0.0, -0.05],
  clusters: ['a', 'a', 'b', 'c', 'c', 'd', 'e', 'f'],
  numpy: {
    mean: 0.031249999999999993,
    ci_lo: -2.3322393399243565e-18,
    ci_hi: 0.061111111111111116,
    n: 8,
    n_clusters: 6,
    dz: 0.1805563516611539,
    p: 0.045,
  },
};

for (const [name, d] of Object.entries({ A, B })) {
  test(`cluster bootstrap ${name}: exact point, n, clusters, d_z; interval and p within Monte-Carlo error of numpy`, () => {
    const e = clusterBootstrap(d.values, d.clusters)!;
    assert.ok(Math.abs(e.mean - d.numpy.mean) < 1e-12);
    assert.equal(e.n, d.numpy.n);
    assert.equal(e.n_clusters, d.numpy.n_clusters);
    assert.ok(Math.abs(e.dz - d.numpy.dz) < 1e-12);
    const width = d.numpy.ci_hi - d.numpy.ci_lo;
    assert.ok(Math.abs(e.ci_lo - d.numpy.ci_lo) < 0.1 * width, `ci_lo ${e.ci_lo} vs ${d.numpy.ci_lo}`);
    assert.ok(Math.abs(e.ci_hi - d.numpy.ci_hi) < 0.1 * width, `ci_hi ${e.ci_hi} vs ${d.numpy.ci_hi}`);
    assert.ok(Math.abs(e.p - d.numpy.p) < 0.015, `p ${e.p} vs ${d.numpy.p}`);
  });
}

test('cluster bootstrap: same seed, same draws; fewer than 3 finite values gives no estimate; non-finite values drop out', () => {
  assert.deepEqual(clusterBootstrap(A.values, A.clusters), clusterBootstrap(A.values, A.clusters));
  assert.notDeepEqual(clusterBootstrap(A.values, A.clusters, { seed: 1 }), clusterBootstrap(A.values, A.clusters));
  assert.equal(clusterBootstrap([1, NaN, 2], ['a', 'b', 'c']), null);
  const withNaN = clusterBootstrap([...A.values, NaN, Infinity], [...A.clusters, 'zz', 'yy'])!;
  assert.equal(withNaN.n, 15);
  assert.equal(withNaN.n_clusters, 9);
});

test('cluster bootstrap: p is clamped to [1/B, 1]; constant values have no d_z; the median option', () => {
  const e = clusterBootstrap([5, 5, 5, 5], ['a', 'b', 'c', 'd'], { resamples: 500 })!;
  assert.equal(e.p, 1 / 500);
  assert.ok(Number.isNaN(e.dz));
  assert.deepEqual([e.ci_lo, e.ci_hi], [5, 5]);
  const zero = clusterBootstrap([1, -1, 2, -2], ['a', 'b', 'c', 'd'], { resamples: 500 })!;
  assert.equal(zero.p, 1);
  const med = clusterBootstrap([1, 2, 100], ['a', 'b', 'c'], { statistic: 'median', resamples: 200 })!;
  assert.equal(med.mean, 2);
});

test('sample sd uses ddof = 1', () => {
  assert.ok(Math.abs(sampleSd([1, 2, 3, 4]) - Math.sqrt(5 / 3)) < 1e-15);
  assert.ok(Number.isNaN(sampleSd([1])));
});

test('Holm matches statsmodels multipletests(method="holm"); NaN stays NaN and does not count', () => {
  // statsmodels 0.13.5: multipletests([0.01, 0.04, 0.03, 0.005, 0.5, 0.04], method='holm')[1]
  const expected = [0.05, 0.12, 0.12, 0.03, 0.5, 0.12];
  holm([0.01, 0.04, 0.03, 0.005, 0.5, 0.04]).forEach((p, i) => assert.ok(Math.abs(p - expected[i]) < 1e-12, `${i}: ${p}`));
  const withNaN = holm([0.01, NaN, 0.04]);
  assert.ok(Math.abs(withNaN[0] - 0.02) < 1e-15 && Number.isNaN(withNaN[1]) && Math.abs(withNaN[2] - 0.04) < 1e-15);
  assert.deepEqual(holm([0.9, 0.8]), [1, 1]);
  assert.deepEqual(holm([0.2, 0.6]), [0.4, 0.6]);
});
