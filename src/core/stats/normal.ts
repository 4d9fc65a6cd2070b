// The standard normal upper tail, accurate to ~1e-15 relative across the whole range (needed for
// clustered p-values like 1e-9): erfc by its Maclaurin series for small x and by the Laplace
// continued fraction (modified Lentz) beyond.

const SQRT_PI = Math.sqrt(Math.PI);

function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 1) return 1 - erfSeries(x);
  if (x > 27.3) return 0; // below the smallest double
  // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …))))
  const tiny = 1e-300;
  let f = x;
  let C = f;
  let D = 0;
  for (let n = 1; n < 100000; n++) {
    const a = n / 2;
    D = x + a * D;
    if (D === 0) D = tiny;
    D = 1 / D;
    C = x + a / C;
    if (C === 0) C = tiny;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-17) break;
  }
  return expMinusSquare(x) / (SQRT_PI * f);
}

/** exp(−x²) without the rounding of x² (Cephes' expx2): x = m + r with m on a 1/128 grid, so m² is exact. */
function expMinusSquare(x: number): number {
  const m = Math.round(x * 128) / 128;
  const r = x - m;
  return Math.exp(-m * m) * Math.exp(-(2 * m * r + r * r));
}

function erfSeries(x: number): number {
  // erf(x) = 2/√π · Σ (−1)^n x^(2n+1) / (n! (2n+1))
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= -x2 / n;
    const add = term / (2 * n + 1);
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / SQRT_PI) * sum;
}

/** P(Z > z) for a standard normal Z (scipy.stats.norm.sf). */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/** Two-sided normal p-value 2·P(Z > |z|). */
export function twoSidedNormalP(z: number): number {
  return 2 * normalSf(Math.abs(z));
}
