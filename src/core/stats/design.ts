// The design matrix of the landmark models (docs/protocol.md §3.9): intercept, the exposure entered raw as
// column 1, numeric covariates z-scored with the population SD (SD < 1e-12 → 1), then dummies for
// each factor with its first sorted level (by code point, as Python sorts) as the reference.
import { compareCodePoints } from './bootstrap.ts';

interface DesignRow {
  exposure: number;
  /** Covariates in `numericNames` order. */
  numeric: readonly number[];
  /** Factor levels in `factorNames` order. */
  factors: readonly string[];
}

interface Design {
  /** Row-major, rows × cols. */
  x: Float64Array;
  cols: number;
  /** intercept, the exposure, z(covariate)…, factor=level… */
  columns: string[];
}

export function landmarkDesign(
  rows: readonly DesignRow[],
  exposureName: string,
  numericNames: readonly string[],
  factorNames: readonly string[],
): Design {
  const n = rows.length;
  const columns = ['intercept', exposureName, ...numericNames.map((c) => `z(${c})`)];
  const stats = numericNames.map((_, j) => {
    const values = rows.map((r) => r.numeric[j]);
    const mean = values.reduce((a, b) => a + b, 0) / n;
    const variance = values.reduce((a, v) => a + (v - mean) * (v - mean), 0) / n;
    const sd = Math.sqrt(variance);
    return { mean, sd: sd < 1e-12 ? 1 : sd };
  });
  // Per factor: level → design column (the reference level has none).
  const dummyColumn: Array<Map<string, number>> = factorNames.map((factor, f) => {
    const levels = [...new Set(rows.map((r) => r.factors[f]))].sort(compareCodePoints);
    const map = new Map<string, number>();
    for (const level of levels.slice(1)) {
      map.set(level, columns.length);
      columns.push(`${factor}=${level}`);
    }
    return map;
  });
  const cols = columns.length;
  const x = new Float64Array(n * cols);
  rows.forEach((r, i) => {
    const base = i * cols;
    x[base] = 1;
    x[base + 1] = r.exposure;
    stats.forEach((s, j) => {
      x[base + 2 + j] = (r.numeric[j] - s.mean) / s.sd;
    });
    dummyColumn.forEach((map, f) => {
      const at = map.get(r.factors[f]);
      if (at !== undefined) x[base + at] = 1;
    });
  });
  return { x, cols, columns };
}
