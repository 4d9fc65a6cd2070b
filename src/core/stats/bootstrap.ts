// Seeded, stratified, paired bootstrap of binary outcome columns (docs/protocol.md §4.1, implementation 1):
// in each resample every stratum of n cases gets multinomial(n, 1/n) case weights, drawn as n uniform
// picks with replacement; the same weights apply to every column, which pairs the controllers.
// A column's resampled rate is Σ w_i·y_i / N (weights sum to each stratum's size, so N is fixed).
//
// Speed: weights are counted into an Int32Array per resample, and each column sums weights only over
// its sparse index list (the positions of its ones, or of its zeros when those are fewer).
import type { Xoshiro128 } from './prng.ts';

/** Input of `pairedBootstrapRates`: each case's stratum, the binary outcome columns, the resamples and the seed. */
export interface PairedBootstrapInput {
  /** Stratum of each case (length N). Strata are visited in sorted order. */
  strata: readonly string[];
  /** Binary outcome columns, each of length N (one per controller × outcome). */
  columns: ReadonlyArray<ArrayLike<number>>;
  resamples: number;
  rng: Xoshiro128;
  /** Called every `progressEvery` resamples with the number done. */
  onProgress?: (done: number) => void;
  progressEvery?: number;
}

/** Resampled rates, resample-major: value of column c in resample b at [b·K + c]. */
export function pairedBootstrapRates(input: PairedBootstrapInput): Float64Array {
  const { strata, columns, resamples, rng } = input;
  const n = strata.length;
  const k = columns.length;
  const out = new Float64Array(resamples * k);
  if (n === 0 || resamples === 0) return out;
  const groups = strataGroups(strata);

  // Sparse form of each column: sum the rarer value's positions.
  const sparse = columns.map((col) => {
    if (col.length !== n) throw new Error(`bootstrap column has ${col.length} values, expected ${n}`);
    const ones: number[] = [];
    const zeros: number[] = [];
    for (let i = 0; i < n; i++) {
      const v = col[i];
      if (v === 1) ones.push(i);
      else if (v === 0) zeros.push(i);
      else throw new Error(`bootstrap column value ${v} is not 0 or 1`);
    }
    return ones.length <= zeros.length
      ? { complement: false, index: Int32Array.from(ones) }
      : { complement: true, index: Int32Array.from(zeros) };
  });

  const counts = new Int32Array(n);
  const every = input.progressEvery ?? 1000;
  for (let b = 0; b < resamples; b++) {
    drawStratifiedCounts(groups, rng, counts);
    const row = b * k;
    for (let c = 0; c < k; c++) {
      const { complement, index } = sparse[c];
      let s = 0;
      for (let t = 0; t < index.length; t++) s += counts[index[t]];
      out[row + c] = (complement ? n - s : s) / n;
    }
    if (input.onProgress && ((b + 1) % every === 0 || b + 1 === resamples)) input.onProgress(b + 1);
  }
  return out;
}

/** The positions of each stratum's cases, strata in sorted (code-point) order. */
export function strataGroups(strata: readonly string[]): Int32Array[] {
  const byStratum = new Map<string, number[]>();
  strata.forEach((s, i) => {
    const list = byStratum.get(s);
    if (list) list.push(i);
    else byStratum.set(s, [i]);
  });
  return [...byStratum.keys()].sort(compareCodePoints).map((s) => Int32Array.from(byStratum.get(s)!));
}

/** One resample's case weights: multinomial(n, 1/n) within each stratum of n cases, as n uniform picks. */
export function drawStratifiedCounts(groups: readonly Int32Array[], rng: Xoshiro128, counts: Int32Array): void {
  counts.fill(0);
  for (const positions of groups) {
    const size = positions.length;
    for (let t = 0; t < size; t++) counts[positions[rng.nextBelow(size)]]++;
  }
}

/** Column c of a resample-major matrix with K columns, as its own array. */
export function column(values: Float64Array, k: number, c: number): Float64Array {
  const b = values.length / k;
  const out = new Float64Array(b);
  for (let i = 0; i < b; i++) out[i] = values[i * k + c];
  return out;
}

/** Python's default string order (by code point), unlike JS's UTF-16 order for astral characters. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}
