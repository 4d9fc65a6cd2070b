// One-dimensional piecewise-linear interpolation as numpy.interp: knots with increasing x, the
// value at a knot is its own, and queries outside the range take the end values (clamped). The
// frozen response curve's transfer to natural trajectories uses it (docs/protocol.md §3.11).

/** numpy.interp(x, xp, fp) for one query; xp strictly increasing. */
export function interpClamped(x: number, xp: readonly number[], fp: readonly number[]): number {
  const n = xp.length;
  if (n === 0 || n !== fp.length) throw new Error(`interpClamped: ${n} knots and ${fp.length} values`);
  if (Number.isNaN(x)) return NaN;
  if (x <= xp[0]) return fp[0];
  if (x >= xp[n - 1]) return fp[n - 1];
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xp[mid] <= x) lo = mid;
    else hi = mid;
  }
  if (x === xp[lo]) return fp[lo];
  // numpy's formula: slope·(x − xp[lo]) + fp[lo].
  const slope = (fp[hi] - fp[lo]) / (xp[hi] - xp[lo]);
  return slope * (x - xp[lo]) + fp[lo];
}
