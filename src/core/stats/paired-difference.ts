// A confidence interval for the difference of two paired proportions (the same cases under two
// conditions): Newcombe's hybrid score interval, method 10 of Newcombe (1998, Statistics in Medicine
// 17:2635–2650). It combines the Wilson score intervals of the two marginal proportions with the
// correlation φ of the paired outcomes. Chosen over the alternatives because it is closed-form
// (no iteration, no random draws), stays inside [−1, 1], is informative when there are no
// discordant pairs (a Wald or a bootstrap interval collapses to [0, 0] there), and its coverage is
// close to nominal for the small discordant counts a policy comparison produces (Newcombe's
// evaluation). Reference values: Newcombe's published examples and scripts/paired-difference-fixtures.py.
import { normalSf } from './normal.ts';

/** A paired 2×2 table: both succeed, only the first, only the second, neither. */
export interface PairedTable {
  both: number;
  firstOnly: number;
  secondOnly: number;
  neither: number;
}

/** The difference second − first of the two success proportions, with its interval. */
export interface PairedDifference {
  estimate: number;
  lower: number;
  upper: number;
}

/** The standard normal quantile z with P(Z > z) = p, by bisection on the upper tail (0 < p < 1). */
export function normalUpperQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalUpperQuantile: p must be in (0, 1), got ${p}`);
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 200 && hi - lo > 1e-15; i++) {
    const mid = (lo + hi) / 2;
    if (normalSf(mid) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Wilson's score interval for x successes in n trials at normal quantile z. */
export function wilsonInterval(x: number, n: number, z: number): [number, number] {
  const p = x / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * Newcombe's method 10 for the paired difference p₂ − p₁ (p₁ = (both + firstOnly)/n, p₂ = (both +
 * secondOnly)/n) at the given confidence (default 0.95). φ's numerator AD − BC is replaced by
 * max(AD − BC − n/2, 0) when positive, as in the paper; φ = 0 when a margin is empty. Null when n = 0.
 */
export function newcombePairedDifference(t: PairedTable, confidence = 0.95): PairedDifference | null {
  for (const [k, v] of Object.entries(t))
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`newcombePairedDifference: ${k} must be a non-negative integer (got ${v})`);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`newcombePairedDifference: confidence must be in (0, 1), got ${confidence}`);
  const { both: a, firstOnly: b, secondOnly: c, neither: d } = t;
  const n = a + b + c + d;
  if (n === 0) return null;
  const z = normalUpperQuantile((1 - confidence) / 2);
  const p1 = (a + b) / n;
  const p2 = (a + c) / n;
  const [l1, u1] = wilsonInterval(a + b, n, z);
  const [l2, u2] = wilsonInterval(a + c, n, z);
  const margins = (a + b) * (c + d) * (a + c) * (b + d);
  let num = a * d - b * c;
  if (num > 0) num = Math.max(num - n / 2, 0);
  const phi = margins === 0 ? 0 : num / Math.sqrt(margins);
  const estimate = p2 - p1;
  // Newcombe writes θ = p₁ − p₂; for p₂ − p₁ the roles of the two margins swap.
  const down = Math.sqrt(Math.max(0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2));
  const up = Math.sqrt(Math.max(0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2));
  return { estimate, lower: Math.max(-1, estimate - down), upper: Math.min(1, estimate + up) };
}
