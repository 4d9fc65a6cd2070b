// Number formatting shared by tables and charts: percentages with one decimal, as in the paper.
import { baseLabel } from '../core/simulated.ts';

export function pct(x: number | null | undefined, digits = 1): string {
  return x == null || !Number.isFinite(x) ? '–' : (100 * x).toFixed(digits);
}

export function pctInterval(lo: number | null | undefined, hi: number | null | undefined): string {
  return lo == null || hi == null || !Number.isFinite(lo) || !Number.isFinite(hi) ? '' : `${pct(lo)}–${pct(hi)}`;
}

/** Compact SVG coordinate: at most two decimals, no trailing zeros. */
export function coord(x: number): string {
  return String(Math.round(x * 100) / 100);
}

/**
 * A controller's visible name next to a SIMULATED badge: the badge says it once, so a sim label's
 * "[simulated]" is dropped there (core/simulated.ts). Data attributes keep the full name.
 */
export function shownName(name: string, simulated: boolean): string {
  return simulated ? baseLabel(name) : name;
}
