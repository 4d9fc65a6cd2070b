// Summaries of a sample: mean, sample standard deviation (ddof 1), median, and how "mean ± SD"
// reads in tables. One owner for each, so the analyses, the probe statistics and the reports agree
// to the last bit.

/** Arithmetic mean (summed left to right); NaN for no values. */
export function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Standard deviation with ddof = 1 (NaN for fewer than 2 values). */
export function sampleSd(xs: readonly number[]): number {
  if (xs.length < 2) return NaN;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return Math.sqrt(ss / (xs.length - 1));
}

/** Python's statistics.median of values already sorted ascending: the middle one, or the mean of the middle two. */
export function medianSorted(sorted: readonly number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}

/** Python's statistics.median (sorts a copy); NaN for no values. */
export function median(xs: readonly number[]): number {
  return xs.length ? medianSorted([...xs].sort((a, b) => a - b)) : NaN;
}

/**
 * "mean ± SD" for tables: the mean alone when the SD is unknown, and `format(null)` (the table's
 * mark for a missing value) when the mean is.
 */
export function formatMeanSd(mean: number | null, sd: number | null, format: (x: number | null) => string): string {
  if (mean == null) return format(null);
  return sd == null ? format(mean) : `${format(mean)} ± ${format(sd)}`;
}
