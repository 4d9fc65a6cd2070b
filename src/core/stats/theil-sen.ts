// The Theil–Sen slope (scipy.stats.theilslopes' estimate): the median of the slopes of every pair of
// points with distinct x. The system identification's local slope (docs/protocol.md §3.11) is this
// per case over its commands, then a median across cases.
import { median } from './summary.ts';

/** Median of (y_j − y_i)/(x_j − x_i) over pairs i < j with x_i ≠ x_j; NaN when there is no such pair. */
export function theilSenSlope(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new Error(`theilSenSlope: ${x.length} x values but ${y.length} y values`);
  const slopes: number[] = [];
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      if (x[i] !== x[j]) slopes.push((y[j] - y[i]) / (x[j] - x[i]));
    }
  }
  return median(slopes);
}
