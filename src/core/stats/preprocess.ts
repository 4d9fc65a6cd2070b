// The feature pipeline of the capture prediction (docs/protocol.md §3.9), as scikit-learn 1.2 runs it:
// numerics → SimpleImputer(strategy='median') → StandardScaler; categoricals →
// OneHotEncoder(handle_unknown='ignore'). Fitted on training rows only, then applied to any rows.
// Column order is scikit-learn's ColumnTransformer order: the scaled numerics, then each
// categorical's levels in sorted (code-point) order.
import { compareCodePoints } from './bootstrap.ts';
import { quantiles } from './quantile.ts';

export interface TabularRow {
  /** Numeric features in the pipeline's order; null is a missing value (imputed). */
  numeric: ReadonlyArray<number | null>;
  /** Categorical features in the pipeline's order. */
  categorical: readonly string[];
}

interface Preprocessor {
  /** Output column names: z(feature) for scaled numerics, feature=level for indicators. */
  columns: string[];
  /** Numerics with no observed training value, dropped as scikit-learn's imputer drops them. */
  dropped: string[];
  transform(rows: readonly TabularRow[]): Float64Array;
}

const EPS = 2.220446049250313e-16;

export function fitPreprocessor(
  numericNames: readonly string[],
  categoricalNames: readonly string[],
  train: readonly TabularRow[],
): Preprocessor {
  if (!train.length) throw new RangeError('preprocessor: no training rows');
  const n = train.length;
  const numeric: Array<{ index: number; median: number; mean: number; scale: number }> = [];
  const dropped: string[] = [];
  numericNames.forEach((name, index) => {
    const observed = train.map((r) => r.numeric[index]).filter((v): v is number => v !== null);
    if (observed.some((v) => !Number.isFinite(v))) throw new RangeError(`preprocessor: feature ${name} has a non-finite value`);
    if (!observed.length) {
      dropped.push(name);
      return;
    }
    const [median] = quantiles(observed, [0.5]);
    const values = train.map((r) => r.numeric[index] ?? median);
    // scikit-learn's _incremental_mean_and_var for one batch: two passes plus the rounding correction.
    const mean = values.reduce((a, b) => a + b, 0) / n;
    let correction = 0;
    let squares = 0;
    for (const v of values) {
      correction += v - mean;
      squares += (v - mean) * (v - mean);
    }
    const variance = (squares - (correction * correction) / n) / n;
    // _is_constant_feature: the variance is within the rounding bound of the two-pass algorithm.
    const constant = variance <= n * EPS * variance + (n * mean * EPS) ** 2;
    numeric.push({ index, median, mean, scale: constant ? 1 : Math.sqrt(variance) });
  });
  const categorical = categoricalNames.map((name, index) => ({
    name,
    index,
    levels: [...new Set(train.map((r) => r.categorical[index]))].sort(compareCodePoints),
  }));
  const columns = [
    ...numeric.map((c) => `z(${numericNames[c.index]})`),
    ...categorical.flatMap((c) => c.levels.map((l) => `${c.name}=${l}`)),
  ];
  const width = columns.length;
  return {
    columns,
    dropped,
    transform(rows) {
      const out = new Float64Array(rows.length * width);
      rows.forEach((r, i) => {
        let j = i * width;
        for (const c of numeric) out[j++] = ((r.numeric[c.index] ?? c.median) - c.mean) / c.scale;
        for (const c of categorical) {
          const at = c.levels.indexOf(r.categorical[c.index]);
          if (at >= 0) out[j + at] = 1; // an unseen level is all zeros (handle_unknown='ignore')
          j += c.levels.length;
        }
      });
      return out;
    },
  };
}
