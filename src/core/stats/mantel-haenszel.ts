// Mantel–Haenszel common odds ratio over stratified 2×2 tables (docs/protocol.md §3.9, three-domain
// landmark), with the Robins–Breslow–Greenland standard error of log OR and the MH χ² test of a common
// OR of 1 without continuity correction — statsmodels' StratifiedTable oddsratio_pooled,
// logodds_pooled_se and test_null_odds(correction=False). Strata with fewer than 2 rows carry no
// information (their hypergeometric variance is 0/0) and are left out.
import { twoSidedNormalP } from './normal.ts';

/** One stratum: a = exposed & event, b = exposed & no event, c = unexposed & event, d = unexposed & no event. */
export interface TwoByTwo {
  a: number;
  b: number;
  c: number;
  d: number;
}

export interface MantelHaenszel {
  /** Strata with at least 2 rows (the ones used). */
  strata: number;
  odds_ratio: number | null;
  /** SE of log OR (Robins–Breslow–Greenland). */
  log_se: number | null;
  ci95: { low: number | null; high: number | null };
  /** MH χ² (1 df) for a common OR of 1, no continuity correction. */
  chi2: number | null;
  p: number | null;
  null_reasons?: Record<string, string>;
}

export function mantelHaenszel(tables: readonly TwoByTwo[]): MantelHaenszel {
  let sumR = 0;
  let sumS = 0;
  let sumPR = 0;
  let sumPSQR = 0;
  let sumQS = 0;
  let observed = 0;
  let expected = 0;
  let variance = 0;
  let strata = 0;
  for (const { a, b, c, d } of tables) {
    for (const v of [a, b, c, d])
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`Mantel–Haenszel: cell counts must be whole numbers (got ${v})`);
    const n = a + b + c + d;
    if (n < 2) continue;
    strata++;
    const r = (a * d) / n;
    const s = (b * c) / n;
    const p = (a + d) / n;
    const q = (b + c) / n;
    sumR += r;
    sumS += s;
    sumPR += p * r;
    sumPSQR += p * s + q * r;
    sumQS += q * s;
    observed += a;
    expected += ((a + b) * (a + c)) / n;
    variance += ((a + b) * (c + d) * (a + c) * (b + d)) / (n * n * (n - 1));
  }
  const out: MantelHaenszel = { strata, odds_ratio: null, log_se: null, ci95: { low: null, high: null }, chi2: null, p: null };
  const reasons: Record<string, string> = {};
  if (!strata) {
    const why = 'no stratum with at least 2 rows';
    for (const f of ['odds_ratio', 'log_se', 'ci95', 'chi2', 'p']) reasons[f] = why;
    return { ...out, null_reasons: reasons };
  }
  if (sumR > 0 && sumS > 0) {
    const or = sumR / sumS;
    const se = Math.sqrt(sumPR / (2 * sumR * sumR) + sumPSQR / (2 * sumR * sumS) + sumQS / (2 * sumS * sumS));
    out.odds_ratio = or;
    out.log_se = se;
    out.ci95 = { low: Math.exp(Math.log(or) - 1.96 * se), high: Math.exp(Math.log(or) + 1.96 * se) };
  } else {
    const why =
      sumR === 0 && sumS === 0
        ? 'no stratum holds both exposed and unexposed rows with differing outcomes (Σad/n = Σbc/n = 0)'
        : sumS === 0
          ? 'Σbc/n = 0: the common odds ratio is infinite'
          : 'Σad/n = 0: the common odds ratio is 0 and its log is undefined';
    for (const f of ['odds_ratio', 'log_se', 'ci95']) reasons[f] = why;
  }
  if (variance > 0) {
    out.chi2 = (observed - expected) ** 2 / variance;
    // χ²(1) upper tail = 2·P(Z > √χ²).
    out.p = twoSidedNormalP(Math.sqrt(out.chi2));
  } else {
    for (const f of ['chi2', 'p']) reasons[f] = 'every stratum has a constant exposure or outcome (zero hypergeometric variance)';
  }
  if (Object.keys(reasons).length) out.null_reasons = reasons;
  return out;
}
