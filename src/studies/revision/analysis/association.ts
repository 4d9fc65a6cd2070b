// Controller-level association of the early hazards with final success (docs/protocol.md §3.8, Appendix C.1:
// "a preregistered early-capture/recurrence ratio ranks final success"): within each panel and family,
// Spearman's ρ across controllers between a hazard summary and final joint success, with a two-sided
// permutation p (exact enumeration for n ≤ 7, else B seeded permutations).
import { compareCodePoints } from '../../../core/stats/bootstrap.ts';
import { Xoshiro128 } from '../../../core/stats/prng.ts';
import { EXACT_MAX_N, spearmanTests, spearmanUndefinedReason } from '../../../core/stats/spearman.ts';
import {
  HAZARD_PREDICTORS,
  type CellSummary,
  type HazardAssociation,
  type HazardAssociationRow,
  type HazardPredictor,
} from './analysis-types.ts';

export const DEFAULT_PERMUTATIONS = 100_000;
const MIN_ASSOCIATION_CONTROLLERS = 3;

function predictorValue(cell: CellSummary, predictor: HazardPredictor): number | null {
  return cell.hazards[predictor];
}

/** One row per panel × family × predictor; `families` gives the family order. */
export function hazardAssociation(
  cells: readonly CellSummary[],
  families: readonly string[],
  options: { permutations: number; seed: number },
): HazardAssociation {
  const rows: HazardAssociationRow[] = [];
  const panels = [...new Set(cells.map((c) => c.panel))].sort(compareCodePoints);
  for (const panel of panels) {
    for (const family of families) {
      const members = cells.filter((c) => c.panel === panel && c.family === family);
      if (!members.length) continue;
      const pending: Array<{ row: HazardAssociationRow; x: number[]; y: number[] }> = [];
      for (const predictor of HAZARD_PREDICTORS) {
        const label = predictor.replace(/_/g, ' ');
        const used = members.filter((c) => c.final_success !== null && predictorValue(c, predictor) !== null);
        const x = used.map((c) => predictorValue(c, predictor)!);
        const y = used.map((c) => c.final_success!);
        const row: HazardAssociationRow = {
          panel,
          family,
          predictor,
          controllers: used.map((c) => c.controller),
          simulated: used.some((c) => c.simulated),
          n: used.length,
          rho: null,
          p: null,
          method: null,
          permutations: null,
        };
        const left = members.length - used.length;
        const reason =
          used.length < MIN_ASSOCIATION_CONTROLLERS
            ? `needs at least ${MIN_ASSOCIATION_CONTROLLERS} controllers with a ${label} and a final success rate (got ${used.length})`
            : x.every((v) => v === x[0])
              ? `the ${label} is the same (${x[0]}) for all ${used.length} controllers: ρ is undefined`
              : y.every((v) => v === y[0])
                ? `final success is the same (${y[0]}) for all ${used.length} controllers: ρ is undefined`
                : spearmanUndefinedReason(x, y);
        if (reason) row.null_reasons = { rho: reason, p: reason, method: reason, permutations: reason };
        else pending.push({ row, x, y });
        if (left) row.excluded = `${left} controller(s) left out: no ${label} or final success rate`;
        rows.push(row);
      }
      // Predictors over the same controllers share one permutation stream of final success.
      const byControllers = new Map<string, typeof pending>();
      for (const t of pending) {
        const key = t.row.controllers.join('\u001f');
        byControllers.set(key, [...(byControllers.get(key) ?? []), t]);
      }
      for (const [key, tests] of byControllers) {
        const results = spearmanTests(
          tests.map((t) => t.x),
          tests[0].y,
          {
            permutations: options.permutations,
            rng: Xoshiro128.fromKey(`revloop.spearman\u001f${options.seed}\u001f${panel}\u001f${family}\u001f${key}`),
          },
        );
        tests.forEach((t, j) => {
          const r = results[j];
          Object.assign(t.row, { rho: r.rho, p: r.p, method: r.method, permutations: r.permutations });
        });
      }
    }
  }
  return {
    outcome: 'final_success',
    predictors: [...HAZARD_PREDICTORS],
    permutations: options.permutations,
    exact_max_n: EXACT_MAX_N,
    rows,
    notes: [
      "Spearman's ρ across the controllers of a panel (average ranks for ties) between each hazard summary and final joint success, per family.",
      `Two-sided: p = share of pairings with |ρ| ≥ the observed |ρ| — all n! pairings when n ≤ ${EXACT_MAX_N} (exact), else (extreme + 1)/(B + 1) over B = ${options.permutations} seeded permutations.`,
    ],
  };
}
