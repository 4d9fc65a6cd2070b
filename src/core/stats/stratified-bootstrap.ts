// A stratified bootstrap of any statistic of cases (docs/protocol.md §4.1, implementation 1's
// resampling): each resample draws multinomial(n, 1/n) case weights within every stratum (the same
// draws as the paired bootstrap of rates, bootstrap.ts) and evaluates the statistic on the weights.
// The system identification's medians and slopes, and the crossover and history differences that
// are not plain rates, are bootstrapped through it.
import { drawStratifiedCounts, strataGroups } from './bootstrap.ts';
import type { Xoshiro128 } from './prng.ts';

export interface StratifiedBootstrapInput {
  /** Stratum of each case. */
  strata: readonly string[];
  resamples: number;
  rng: Xoshiro128;
  /** The statistic of one resample, from each case's weight (how often it was drawn). */
  statistic: (counts: Int32Array) => number;
}

/** The statistic over `resamples` resamples (NaN where it is undefined on a resample). */
export function stratifiedBootstrap(input: StratifiedBootstrapInput): Float64Array {
  const out = new Float64Array(input.resamples);
  if (!input.strata.length) return out.fill(NaN);
  const groups = strataGroups(input.strata);
  const counts = new Int32Array(input.strata.length);
  for (let b = 0; b < input.resamples; b++) {
    drawStratifiedCounts(groups, input.rng, counts);
    out[b] = input.statistic(counts);
  }
  return out;
}

/**
 * Python's statistics.median of a multiset given as values with whole-number weights: the middle
 * value, or the mean of the two middle ones when the total weight is even. NaN for no weight.
 */
export function weightedMedian(values: readonly number[], weights: ArrayLike<number>): number {
  const order = values.map((v, i) => [v, weights[i]] as const).filter(([, w]) => w > 0);
  order.sort((a, b) => a[0] - b[0]);
  const total = order.reduce((s, [, w]) => s + w, 0);
  if (!total) return NaN;
  const at = (k: number): number => {
    // The k-th smallest (0-based) of the expanded multiset.
    let seen = 0;
    for (const [v, w] of order) {
      seen += w;
      if (k < seen) return v;
    }
    return order[order.length - 1][0];
  };
  return total % 2 ? at((total - 1) / 2) : (at(total / 2 - 1) + at(total / 2)) / 2;
}
