// Fixed-draft crossover (docs/protocol.md §3.12). Cells are planner × controller: an off-diagonal
// cell is a crossover run (the planner run's frozen first drafts, continued by another model); the
// diagonal cell of a planner is its own run. Two crossover runs that cross the same two models make
// a full 2×2 pair; one alone gives the planner's row of it.
//
// Tests, paired by case id on final joint success: the controller effect with the planner fixed
// (exact McNemar, Holm over all such tests of the analysis), the same restricted to cases whose
// round-0 draft failed (its own Holm family), and the planner negative controls with the
// controller fixed (unadjusted). Integrity: identical case sets, byte-identical round-0 texts
// across cells that share a planner.
import { mcnemarExact } from '../../../core/stats/binomial.ts';
import { holmAdjust } from '../../../core/stats/holm.ts';
import type { RunStore } from '../../../store/store.ts';
import type { TrajectoryRecord } from '../../../store/types.ts';
import { rate, type ExperimentRunData } from './common.ts';
import type { CrossoverAnalysis, CrossoverCell, CrossoverPair, CrossoverTest } from './experiment-analysis-types.ts';

interface CellData {
  planner: string;
  controller: string;
  runId: string;
  diagonal: boolean;
  simulated: boolean;
  /** Complete trajectories by original case id. */
  byCase: Map<string, TrajectoryRecord>;
}

function cellOf(
  planner: string,
  controller: string,
  runId: string,
  diagonal: boolean,
  simulated: boolean,
  ts: readonly TrajectoryRecord[],
): CellData {
  const byCase = new Map<string, TrajectoryRecord>();
  for (const t of ts) if (t.status === 'complete' && t.rounds.length) byCase.set(t.caseId, t);
  return { planner, controller, runId, diagonal, simulated, byCase };
}

const cellName = (c: CellData) => `${c.planner} → ${c.controller}`;
const finalJoint = (t: TrajectoryRecord) => !!t.rounds[t.rounds.length - 1]?.joint;

function test(kind: CrossoverTest['kind'], fixed: string, first: CellData, second: CellData, conditional: boolean): CrossoverTest {
  let b = 0;
  let c = 0;
  let pairs = 0;
  for (const [id, t1] of first.byCase) {
    const t2 = second.byCase.get(id);
    if (!t2) continue;
    // Conditional: cases whose round-0 draft failed (in both cells: with a shared planner they are the same draft).
    if (conditional && (t1.rounds[0].joint || t2.rounds[0].joint)) continue;
    pairs++;
    const a = finalJoint(t1);
    const d = finalJoint(t2);
    if (a && !d) b++;
    if (!a && d) c++;
  }
  return {
    kind,
    fixed,
    first: cellName(first),
    second: cellName(second),
    pairs,
    b,
    c,
    difference: pairs ? (b - c) / pairs : null,
    p_mcnemar: pairs ? mcnemarExact(b, c) : null,
    p_holm: null,
  };
}

function cellSummary(c: CellData): CrossoverCell {
  const ts = [...c.byCase.values()];
  return {
    planner: c.planner,
    controller: c.controller,
    run_id: c.runId,
    diagonal: c.diagonal,
    simulated: c.simulated,
    n: ts.length,
    round0_joint: rate(ts.filter((t) => t.rounds[0].joint).length, ts.length),
    final_joint: rate(ts.filter(finalJoint).length, ts.length),
  };
}

export async function analyzeCrossover(store: RunStore, runs: readonly ExperimentRunData[]): Promise<CrossoverAnalysis> {
  const notes: string[] = [];
  const crossings = runs.filter((r) => r.experiment.design === 'crossover');
  // The diagonal cells: each planner run, loaded once.
  const diagonals = new Map<string, CellData>();
  for (const r of crossings) {
    const plannerRun = r.experiment.settings.planner_run as string;
    if (diagonals.has(plannerRun)) continue;
    const planned = await store.getPlanned(plannerRun);
    if (!planned) {
      notes.push(`planner run '${plannerRun}' of '${r.runId}' is not in this store; its diagonal cell is missing`);
      continue;
    }
    // The planner's own trajectories (an import may hold other controllers' too).
    const label = r.experiment.settings.planner as string;
    const own = (await store.loadTrajectories([plannerRun])).filter((t) => t.controller === label);
    diagonals.set(plannerRun, cellOf(label, label, plannerRun, true, planned.plan.controller.simulated, own));
  }
  // Group crossover runs by the unordered pair of models they cross.
  const groups = new Map<string, ExperimentRunData[]>();
  for (const r of crossings) {
    const models = [r.experiment.settings.planner as string, r.experiment.settings.controller as string].sort();
    const key = models.join('\u001f');
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const pairs: CrossoverPair[] = [];
  for (const [key, members] of groups) {
    const models = key.split('\u001f') as [string, string];
    const cells: CellData[] = [];
    for (const r of members) {
      const diag = diagonals.get(r.experiment.settings.planner_run as string);
      if (diag && !cells.includes(diag)) cells.push(diag);
      cells.push(
        cellOf(
          r.experiment.settings.planner as string,
          r.experiment.settings.controller as string,
          r.runId,
          false,
          r.planned.plan.controller.simulated,
          r.trajectories,
        ),
      );
    }
    const find = (planner: string, controller: string) => cells.find((c) => c.planner === planner && c.controller === controller);
    const tests: CrossoverTest[] = [];
    for (const planner of models) {
      for (const conditional of [false, true]) {
        const own = find(planner, planner);
        const other = find(
          planner,
          models.find((m) => m !== planner)!,
        );
        if (own && other)
          tests.push(test(conditional ? 'controller_effect_conditional' : 'controller_effect', planner, own, other, conditional));
      }
    }
    for (const controller of models) {
      const planner2 = models.find((m) => m !== controller)!;
      const own = find(controller, controller);
      const crossed = find(planner2, controller);
      if (own && crossed) tests.push(test('planner_control', controller, own, crossed, false));
    }
    // Integrity: the cells' case sets, and round-0 texts within a planner.
    const sizes: Record<string, number> = {};
    for (const c of cells) sizes[cellName(c)] = c.byCase.size;
    const sets = cells.map((c) => [...c.byCase.keys()].sort().join('\n'));
    let mismatches = 0;
    for (const planner of models) {
      const same = cells.filter((c) => c.planner === planner);
      for (let i = 1; i < same.length; i++) {
        for (const [id, t] of same[0].byCase) {
          const u = same[i].byCase.get(id);
          if (u && u.rounds[0].text !== t.rounds[0].text) mismatches++;
        }
      }
    }
    pairs.push({
      models,
      simulated: cells.some((c) => c.simulated),
      cells: cells.map(cellSummary),
      tests,
      integrity: { identical_case_sets: sets.every((s) => s === sets[0]), case_set_sizes: sizes, round0_mismatches: mismatches },
    });
  }
  // Holm across the analysis's controller-effect tests; the conditional tests are their own family.
  for (const kind of ['controller_effect', 'controller_effect_conditional'] as const) {
    const family = pairs.flatMap((p) => p.tests.filter((t) => t.kind === kind));
    const adjusted = holmAdjust(family.map((t) => t.p_mcnemar ?? NaN));
    family.forEach((t, i) => (t.p_holm = Number.isFinite(adjusted[i]) ? adjusted[i] : null));
  }
  if (pairs.some((p) => !p.integrity.identical_case_sets))
    notes.push(
      'some cells hold different case sets (trajectories not complete, or planner runs over different cases): tests use the cases common to both cells',
    );
  return { pairs, notes };
}
