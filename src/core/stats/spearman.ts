// Spearman's rank correlation with a two-sided permutation test (docs/protocol.md §3.8): p is the share of
// permutations of y whose |ρ| is at least the observed |ρ|. For n ≤ 7 every one of the n! pairings is
// enumerated (exact p = extreme / n!); above that, B seeded random permutations give
// p = (extreme + 1)/(B + 1).
//
// Exactness: average ranks are multiples of 0.5, so 2·rank − (n + 1) is an integer and the
// permutation statistic Σ (2rx − n − 1)(2ry − n − 1) is an exact integer in a double. Comparing those
// integers decides "at least as extreme" with no floating-point tolerance (scipy compares floats).
import type { Xoshiro128 } from './prng.ts';
import { averageRanks } from './ranks.ts';

export const EXACT_MAX_N = 7;

interface SpearmanTest {
  rho: number;
  p: number;
  method: 'exact' | 'permutation';
  /** Pairings compared: n! when exact, else B. */
  permutations: number;
  /** Pairings at least as extreme as the observed one (the identity included when exact). */
  extreme: number;
}

/** Integer centred ranks 2·rank − (n + 1). */
function centredRanks(values: ArrayLike<number>): Int32Array {
  const n = values.length;
  return Int32Array.from(averageRanks(values), (r) => 2 * r - (n + 1));
}

function dot(a: Int32Array, b: Int32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function sumSquares(a: Int32Array): number {
  return dot(a, a);
}

/** Why ρ is undefined for these samples, or null when it is defined. */
export function spearmanUndefinedReason(x: ArrayLike<number>, y: ArrayLike<number>): string | null {
  if (x.length !== y.length) return `x has ${x.length} values and y ${y.length}`;
  if (x.length < 2) return `ρ needs at least 2 pairs (got ${x.length})`;
  const constant = (v: ArrayLike<number>) => Array.prototype.every.call(v, (e: number) => e === v[0]);
  if (constant(x)) return 'x is the same for every pair (ρ undefined)';
  if (constant(y)) return 'y is the same for every pair (ρ undefined)';
  return null;
}

/** Spearman's ρ (scipy.stats.spearmanr); throws with the reason when it is undefined. */
export function spearmanRho(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const reason = spearmanUndefinedReason(x, y);
  if (reason) throw new RangeError(`spearman: ${reason}`);
  const rx = centredRanks(x);
  const ry = centredRanks(y);
  return dot(rx, ry) / Math.sqrt(sumSquares(rx) * sumSquares(ry));
}

/**
 * ρ and its two-sided permutation p. Exact enumeration for n ≤ `exactMaxN` (default 7); otherwise
 * `permutations` Fisher–Yates shuffles of y's ranks drawn from `rng`.
 */
export function spearmanTest(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  options: { permutations: number; rng: Xoshiro128; exactMaxN?: number },
): SpearmanTest {
  return spearmanTests([x], y, options)[0];
}

/**
 * Several x against one y, sharing the pairings: each permutation of y is compared with every x
 * (one shuffle serves all tests, so p-values of the same y come from the same permutations).
 */
export function spearmanTests(
  xs: ReadonlyArray<ArrayLike<number>>,
  y: ArrayLike<number>,
  options: { permutations: number; rng: Xoshiro128; exactMaxN?: number },
): SpearmanTest[] {
  const rhos = xs.map((x) => spearmanRho(x, y));
  const rxs = xs.map(centredRanks);
  const ry = centredRanks(y);
  const observed = rxs.map((rx) => Math.abs(dot(rx, ry)));
  const n = ry.length;
  const extreme = new Array<number>(xs.length).fill(0);
  const count = (perm: Int32Array) => {
    for (let j = 0; j < rxs.length; j++) if (Math.abs(dot(rxs[j], perm)) >= observed[j]) extreme[j]++;
  };
  if (n <= (options.exactMaxN ?? EXACT_MAX_N)) {
    const total = enumerate(ry, count);
    return rhos.map((rho, j) => ({ rho, p: extreme[j] / total, method: 'exact', permutations: total, extreme: extreme[j] }));
  }
  const b = options.permutations;
  if (!Number.isInteger(b) || b < 1) throw new RangeError(`spearman: permutations must be a whole number ≥ 1 (got ${b})`);
  const rng = options.rng;
  const perm = Int32Array.from(ry);
  for (let t = 0; t < b; t++) {
    for (let i = n - 1; i > 0; i--) {
      const j = rng.nextBelow(i + 1);
      const v = perm[i];
      perm[i] = perm[j];
      perm[j] = v;
    }
    count(perm);
  }
  return rhos.map((rho, j) => ({ rho, p: (extreme[j] + 1) / (b + 1), method: 'permutation', permutations: b, extreme: extreme[j] }));
}

/** Visits every ordering of `values` once (Heap's algorithm, the identity first); returns n!. */
function enumerate(values: Int32Array, visit: (perm: Int32Array) => void): number {
  const n = values.length;
  const a = Int32Array.from(values);
  const c = new Int32Array(n);
  visit(a);
  let total = 1;
  for (let i = 1; i < n;) {
    if (c[i] < i) {
      const j = i % 2 === 0 ? 0 : c[i];
      const v = a[j];
      a[j] = a[i];
      a[i] = v;
      total++;
      visit(a);
      c[i]++;
      i = 1;
    } else {
      c[i] = 0;
      i++;
    }
  }
  return total;
}
