// Holm step-down adjustment (docs/protocol.md §4, docs/harness.md §8), the one implementation for every study: sort
// the finite p-values ascending (stable), adjusted value = running maximum of (m − rank)·p, capped
// at 1, returned in the input order.
//
// Non-finite p-values (NaN: a cell with no estimate) are not tests: they stay NaN and do not count
// towards m, as docs/harness.md §8 specifies and R's p.adjust does with NA. Counting them would make every
// other adjustment depend on how many cells happened to be empty, and sorting them would break the
// comparator (NaN compares false both ways), which is why this rule is the one kept.

/**
 * Holm-adjusted p-values in input order; a non-finite p stays NaN and does not count towards the number of tests (as R's `p.adjust`
 * treats NA).
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const finite = pValues.map((p, i) => [p, i] as const).filter(([p]) => Number.isFinite(p));
  finite.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const m = finite.length;
  const adjusted = pValues.map(() => NaN);
  let running = 0;
  finite.forEach(([p, index], rank) => {
    running = Math.max(running, (m - rank) * p);
    adjusted[index] = Math.min(1, running);
  });
  return adjusted;
}
