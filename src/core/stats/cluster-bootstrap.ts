// Statistics of the probe and agent studies (docs/harness.md §8): a cluster bootstrap over tasks with a
// two-sided bootstrap p-value and Cohen's d_z, and the inclusion rule (Holm's adjustment across
// cells is holm.ts). The reference draws with numpy's default_rng(REFERENCE_SEED); PCG64 is not reproduced here, so
// intervals agree with the reference's to Monte-Carlo precision only. What is kept: a fresh stream
// per call from the same seed, so every measure of a cell reuses the same resample sequence.
import { Xoshiro128 } from './prng.ts';
import { REFERENCE_SEED } from '../reference-seed.ts';
import { quantiles } from './quantile.ts';
import { compareCodePoints } from './bootstrap.ts';
import { mean, median as medianOf, sampleSd } from './summary.ts';

export { sampleSd };

export const BOOTSTRAP_SEED = REFERENCE_SEED;
export const BOOTSTRAP_RESAMPLES = 10_000;
/** A (model, env) cell is published only when its G has at least this many items. */
export const MIN_PUBLISHED_ITEMS = 30;
/** Fewer finite values than this: no estimate. */
const MIN_VALUES = 3;

export interface Estimate {
  mean: number;
  ci_lo: number;
  ci_hi: number;
  n: number;
  n_clusters: number;
  /** mean / sd (ddof 1); NaN when sd is 0 or undefined. */
  dz: number;
  /** Two-sided bootstrap p-value against 0, clamped to [1/B, 1]. */
  p: number;
}

interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  statistic?: 'mean' | 'median';
}

/** The stream of resample indices for a seed: the same for every call with that seed. */
function bootstrapRng(seed: number): Xoshiro128 {
  return Xoshiro128.fromKey(`revloop.cluster-bootstrap:${seed}`);
}

/**
 * Cluster bootstrap of the mean (or median): clusters are the sorted unique labels; each resample
 * picks as many clusters as there are, uniformly with replacement, and pools their values.
 * Returns null with fewer than MIN_VALUES finite values (non-finite values are dropped first,
 * together with their labels).
 */
export function clusterBootstrap(values: readonly number[], clusters: readonly string[], options: BootstrapOptions = {}): Estimate | null {
  if (values.length !== clusters.length) throw new Error(`clusterBootstrap: ${values.length} values but ${clusters.length} cluster labels`);
  const v: number[] = [];
  const c: string[] = [];
  values.forEach((x, i) => {
    if (Number.isFinite(x)) {
      v.push(x);
      c.push(clusters[i] ?? 'na');
    }
  });
  if (v.length < MIN_VALUES) return null;
  const B = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const median = options.statistic === 'median';
  const labels = [...new Set(c)].sort(compareCodePoints);
  const index = new Map(labels.map((l, i) => [l, i]));
  const groups: number[][] = labels.map(() => []);
  c.forEach((l, i) => groups[index.get(l)!].push(v[i]));
  const sums = groups.map((g) => g.reduce((s, x) => s + x, 0));
  const sizes = groups.map((g) => g.length);
  const stat = (xs: number[]) => (median ? medianOf(xs) : mean(xs));
  const point = stat(v);

  const rng = bootstrapRng(options.seed ?? BOOTSTRAP_SEED);
  const G = groups.length;
  const draws = new Float64Array(B);
  for (let b = 0; b < B; b++) {
    if (median) {
      const pooled: number[] = [];
      for (let k = 0; k < G; k++) pooled.push(...groups[rng.nextBelow(G)]);
      draws[b] = medianOf(pooled);
    } else {
      let s = 0;
      let n = 0;
      for (let k = 0; k < G; k++) {
        const j = rng.nextBelow(G);
        s += sums[j];
        n += sizes[j];
      }
      draws[b] = s / n;
    }
  }
  const [lo, hi] = B > 0 ? quantiles(draws, [0.025, 0.975]) : [NaN, NaN];
  let below = 0;
  let above = 0;
  const a = Math.abs(point);
  for (let b = 0; b < B; b++) {
    const centred = draws[b] - point;
    if (centred <= -a) below++;
    if (centred >= a) above++;
  }
  const p = B > 0 ? Math.min(1, Math.max((2 * Math.min(below, above)) / B, 1 / B)) : NaN;
  const sd = sampleSd(v);
  const dz = Number.isFinite(sd) && sd > 0 ? point / sd : NaN;
  return { mean: point, ci_lo: lo, ci_hi: hi, n: v.length, n_clusters: G, dz, p };
}
