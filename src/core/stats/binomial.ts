// Exact McNemar test: a two-sided exact binomial test on the discordant pairs with p = 0.5,
// p = min(1, 2·Σ_{j ≤ min(b,c)} C(b+c, j) / 2^(b+c)), and p = 1 when there are no discordant pairs
// (docs/protocol.md §4.2). The tail sum is computed exactly with BigInt and rounded once to a double, so the
// value is the correctly rounded exact p (scipy's binomtest agrees to ~1e-15 relative).

/**
 * Exact two-sided McNemar p-value for b and c discordant pairs: min(1, 2·P(X ≤ min(b, c))) under Binomial(b + c, ½), summed exactly and
 * rounded once; 1 without discordant pairs. Throws a RangeError unless both are non-negative integers.
 */
export function mcnemarExact(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new RangeError(`mcnemarExact: counts must be non-negative integers (got ${b}, ${c})`);
  }
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // 2·k ≥ n means the lower tail already holds half the mass: the doubled tail is ≥ 1.
  if (2 * k >= n) return 1;
  return Math.min(1, binomialTailRatio(n, k, n - 1));
}

/** Σ_{j=0..k} C(n, j) / 2^shift as a correctly rounded double. */
function binomialTailRatio(n: number, k: number, shift: number): number {
  let term = 1n;
  let sum = 1n;
  const bn = BigInt(n);
  for (let j = 0; j < k; j++) {
    term = (term * (bn - BigInt(j))) / BigInt(j + 1);
    sum += term;
  }
  return bigIntTimesPow2(sum, -shift);
}

/** x · 2^e for a non-negative BigInt x, rounded once to the nearest double. */
function bigIntTimesPow2(x: bigint, e: number): number {
  if (x === 0n) return 0;
  const bits = x.toString(2).length;
  let mantissa: number;
  let exponent = e;
  if (bits > 64) {
    // Keep 64 leading bits plus a sticky bit, so Number() rounds exactly as the full value would.
    const drop = BigInt(bits - 64);
    let top = x >> drop;
    if ((x & ((1n << drop) - 1n)) !== 0n) top |= 1n;
    mantissa = Number(top);
    exponent += bits - 64;
  } else {
    mantissa = Number(x);
  }
  return scaleByPow2(mantissa, exponent);
}

function scaleByPow2(x: number, e: number): number {
  // Apply 2^e in steps that never overflow or underflow an intermediate power of two.
  while (e > 1000) {
    x *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    x *= 2 ** -1000;
    e += 1000;
    if (x === 0) return 0;
  }
  return x * 2 ** e;
}
