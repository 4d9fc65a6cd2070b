// Percentiles exactly as numpy.percentile / numpy.quantile with the default 'linear' method:
// virtual index (n − 1)·q, gamma = index − floor(index), and NumPy's two-sided lerp. Selection
// (not a full sort) finds the two order statistics.

/** The q-quantile (0 ≤ q ≤ 1) of `values`, as numpy.quantile(values, q). Reorders `values` in place. */
function quantileInPlace(values: Float64Array, q: number): number {
  const n = values.length;
  if (n === 0) throw new Error('quantile of an empty sample');
  const virtual = (n - 1) * q;
  let below = Math.floor(virtual);
  let gamma = virtual - below;
  if (below < 0) {
    below = 0;
    gamma = 0;
  }
  if (below >= n - 1) {
    below = n - 1;
    gamma = 0;
  }
  const a = select(values, below);
  if (gamma === 0 && below === n - 1) return a;
  // After selecting `below`, the next order statistic is the minimum of the upper part.
  let b = Infinity;
  for (let i = below + 1; i < n; i++) if (values[i] < b) b = values[i];
  if (below + 1 >= n) b = a;
  return lerp(a, b, gamma);
}

/** numpy.quantile for several q at once, on a copy (the input is left as it was). */
export function quantiles(values: ArrayLike<number>, qs: number[]): number[] {
  const copy = Float64Array.from(values as ArrayLike<number>);
  return qs.map((q) => quantileInPlace(copy, q));
}

/** The 2.5% and 97.5% percentiles (a 95% percentile interval), reordering `values`. */
export function percentileInterval95(values: Float64Array): [number, number] {
  return [quantileInPlace(values, 0.025), quantileInPlace(values, 0.975)];
}

/** NumPy's _lerp: a + (b − a)·t, computed from the nearer end for t ≥ 0.5. */
function lerp(a: number, b: number, t: number): number {
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/** Floyd–Rivest-style quickselect (Hoare partition, median of three): k-th smallest, in place. */
function select(arr: Float64Array, k: number): number {
  let left = 0;
  let right = arr.length - 1;
  while (right > left) {
    const mid = (left + right) >>> 1;
    // median of three as pivot
    const pivot = medianOfThree(arr[left], arr[mid], arr[right]);
    let i = left;
    let j = right;
    while (i <= j) {
      while (arr[i] < pivot) i++;
      while (arr[j] > pivot) j--;
      if (i <= j) {
        const t = arr[i];
        arr[i] = arr[j];
        arr[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return arr[k];
  }
  return arr[k];
}

function medianOfThree(a: number, b: number, c: number): number {
  if (a > b) [a, b] = [b, a];
  return c < a ? a : c > b ? b : c;
}
