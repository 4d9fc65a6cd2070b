// From an AnalysisResult (src/studies/revision/analysis) and the trajectories it was computed on to the report's
// view model. Every number shown comes from the analysis; this module only selects, orders and
// labels. Per-trajectory labels for the drill-down filters use the analysis's own classifier.
import type { AnalysisResult, CellSummary } from './analysis/analysis-types.ts';
import { EXACT_CATEGORIES, FAMILY_ORDER, REPEAT_CLASSES } from './analysis/analysis-types.ts';
import { trajectoryFacts } from './analysis/trajectory.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import type {
  AssaySummary,
  BudgetReplay,
  CategoryDef,
  CompositionChart,
  ControllerInfo,
  CurvePanel,
  EndpointCell,
  EndpointTable,
  ReportModel,
  RunInfo,
  TrajectoryLabel,
} from '../kit/report-model.ts';
import { DEFAULT_REPORT_TITLE, type DrilldownLabels } from '../kit/report-model.ts';
import { baseLabel } from '../../core/simulated.ts';
import { formatCount } from '../../core/util/count.ts';

const REPEAT_CLASS_DEFS: CategoryDef[] = [
  { key: 'terminal_fixed_point', label: 'terminal fixed point', description: 'the last three drafts are identical (at least 3 rounds)' },
  {
    key: 'terminal_cycle',
    label: 'terminal cycle',
    description: 'the last p drafts repeat the p before them, p = 2, 3 or 4, with at least two distinct drafts',
  },
  { key: 'other_repeat', label: 'other repeat', description: 'some draft repeats an earlier one, without a terminal fixed point or cycle' },
  { key: 'no_repeat', label: 'no repeat', description: 'every draft differs from all earlier ones' },
];

const EXACT_CATEGORY_DEFS: CategoryDef[] = [
  {
    key: 'anchor_failure',
    label: 'exact length, anchor missing',
    description: 'the final draft has the exact length but misses a required content item',
  },
  { key: 'recurrence', label: 'recurrent text', description: 'some draft repeats an earlier one byte for byte' },
  {
    key: 'sign_flips',
    label: 'oscillating (≥ 2 sign flips)',
    description: 'the signed length error changes sign at least twice (zeros skipped)',
  },
  { key: 'repeated_residual', label: 'stationary error', description: 'two consecutive drafts have the same signed length error' },
  { key: 'near_target', label: 'near target, not captured', description: 'the smallest |error| was at most 2 words' },
  { key: 'net_contraction', label: 'contracted, not captured', description: 'the final |error| is smaller than the initial |error|' },
  { key: 'other_non_contraction', label: 'other, non-contracting', description: 'none of the above' },
];

const OUTCOME_LABELS: Record<TrajectoryLabel['outcome'], string> = {
  success: 'success',
  failure: 'failure',
  incomplete: 'incomplete',
};

export function drilldownLabels(): DrilldownLabels {
  return {
    outcome: { ...OUTCOME_LABELS },
    repeat: Object.fromEntries(REPEAT_CLASS_DEFS.map((d) => [d.key, d.label])),
    category: Object.fromEntries(EXACT_CATEGORY_DEFS.map((d) => [d.key, d.label])),
  };
}

/** Families in the analysis's display order; unknown (user) families follow, sorted. */
function orderFamilies(families: Iterable<string>): string[] {
  const set = new Set(families);
  const known = (FAMILY_ORDER as readonly string[]).filter((f) => set.has(f));
  const rest = [...set].filter((f) => !(FAMILY_ORDER as readonly string[]).includes(f)).sort();
  return [...known, ...rest];
}

/** The drill-down classification of one trajectory, by the analysis's own rules. */
export function labelTrajectory(t: TrajectoryRecord): TrajectoryLabel {
  if (t.status !== 'complete' || !t.rounds.length) return { outcome: 'incomplete', repeatClass: null, category: null };
  try {
    const f = trajectoryFacts(t);
    return { outcome: f.finalSuccess ? 'success' : 'failure', repeatClass: f.repeatClass, category: f.exactCategory };
  } catch {
    // A state without the exact-length fields: still show the trajectory, without a category.
    const success = t.rounds.some((r) => r.joint);
    return { outcome: success ? 'success' : 'failure', repeatClass: null, category: null };
  }
}

/** One line per run, derived from the trajectories (details may be added from the store). */
function runsFromTrajectories(
  trajectories: readonly TrajectoryRecord[],
  details: Map<string, Record<string, string>> = new Map(),
): RunInfo[] {
  const runs = new Map<string, RunInfo & { familySet: Set<string> }>();
  for (const t of trajectories) {
    let r = runs.get(t.runId);
    if (!r) {
      r = {
        runId: t.runId,
        controller: t.controller,
        simulated: t.simulated,
        families: [],
        familySet: new Set(),
        budget: t.budget,
        trajectories: 0,
        incomplete: 0,
      };
      const d = details.get(t.runId);
      if (d) r.details = d;
      runs.set(t.runId, r);
    }
    r.trajectories++;
    if (t.status !== 'complete') r.incomplete++;
    r.familySet.add(t.family);
    r.budget = Math.max(r.budget, t.budget);
  }
  return [...runs.values()].map(({ familySet, ...r }) => ({ ...r, families: orderFamilies(familySet) }));
}

function endpointCell(c: CellSummary): EndpointCell {
  const cell: EndpointCell = {
    family: c.family,
    n: c.n,
    excluded: c.incomplete + c.pending,
    initial: { k: c.initial_successes, n: c.n, rate: c.initial_success, lo: c.endpoint.initial.ci95.low, hi: c.endpoint.initial.ci95.high },
    final: { k: c.successes, n: c.n, rate: c.final_success, lo: c.endpoint.final.ci95.low, hi: c.endpoint.final.ci95.high },
  };
  if (c.endpoint.n_common !== c.n) cell.pairedN = c.endpoint.n_common;
  return cell;
}

function simulatedShare(names: readonly string[], simulated: ReadonlySet<string>): 'none' | 'some' | 'all' {
  const k = names.filter((n) => simulated.has(n)).length;
  return k === 0 ? 'none' : k === names.length ? 'all' : 'some';
}

interface ReportModelOptions {
  title?: string;
  generatedAt?: string;
  /** Extra per-run facts from the store (model spec, protocol, created …). */
  runDetails?: Map<string, Record<string, string>>;
  notes?: string[];
}

export function buildReportModel(
  trajectories: readonly TrajectoryRecord[],
  analysis: AnalysisResult,
  options: ReportModelOptions = {},
): ReportModel {
  const simulated = new Set(analysis.simulated_controllers);
  for (const c of analysis.controllers) if (c.simulated) simulated.add(c.controller);
  const controllers: ControllerInfo[] = analysis.controllers.map((c) => ({ name: c.controller, simulated: simulated.has(c.controller) }));
  // Trajectories whose controller the analysis did not list (nothing complete) still get a row in the drill-down.
  for (const t of trajectories) {
    if (!controllers.some((c) => c.name === t.controller)) {
      controllers.push({ name: t.controller, simulated: t.simulated });
      if (t.simulated) simulated.add(t.controller);
    }
  }
  const cellsBy = new Map(analysis.cells.map((c) => [`${c.controller}\u001f${c.family}`, c]));
  const families = orderFamilies(analysis.cells.map((c) => c.family));
  const cellOf = (controller: string, family: string) => cellsBy.get(`${controller}\u001f${family}`);
  const withCells = controllers.filter((c) => families.some((f) => cellOf(c.name, f)));

  const o = analysis.options;
  const intervalNote =
    o.bootstrap > 0
      ? `source-stratified paired bootstrap, ${formatCount(o.bootstrap)} resamples, seed ${o.seed}, percentile intervals; strata: ${o.strata}; PRNG: ${o.prng}`
      : 'intervals switched off (bootstrap B = 0)';
  const endpoint: EndpointTable = {
    families,
    rows: withCells.map((c) => ({
      controller: c.name,
      simulated: c.simulated,
      cells: families.map((f) => {
        const cell = cellOf(c.name, f);
        return cell ? endpointCell(cell) : null;
      }),
    })),
    intervalNote,
  };

  const et = analysis.endpoint_table;
  const panelMembers = new Map<string, string[]>();
  for (const c of analysis.controllers) panelMembers.set(c.panel, [...(panelMembers.get(c.panel) ?? []), c.controller]);
  const summary: AssaySummary = {
    assays: [...et.assays],
    rows: et.rows.map((r) => ({
      controller: r.controller,
      simulated: r.simulated || simulated.has(r.controller),
      panel: r.panel,
      final: et.assays.map((a) => r.final[a]),
      mean: r.mean,
      sd: r.sd,
    })),
    panels: et.panels.map((p) => {
      const members = p.panel === 'overall' ? analysis.controllers.map((c) => c.controller) : (panelMembers.get(p.panel) ?? []);
      return {
        label: p.panel === 'overall' ? 'overall' : `panel ${p.panel}`,
        controllers: p.controllers,
        simulated: simulatedShare(members, simulated),
        final: et.assays.map((a) => p.final[a]),
        mean: p.mean,
        sd: p.sd,
      };
    }),
    range: et.assays.map((a) => et.range[a]),
    note: `Final joint success (%) per constraint family on each panel's common case set (paper Tables 1 and 10); lexical = c05 + c07 + c12 and compositional = c09 + c10, pooled over cases. Mean ± SD: over the families present, sample SD.`,
  };

  const caps = Array.from({ length: o.budget + 1 }, (_, k) => k);
  const curves: CurvePanel[] = families
    .map((family) => ({
      family,
      caps,
      series: withCells.flatMap((c) => {
        const cell = cellOf(c.name, family);
        return cell
          ? [{ controller: c.name, simulated: c.simulated, n: cell.n, rates: caps.map((k) => cell.cumulative_success[k] ?? null) }]
          : [];
      }),
    }))
    .filter((p) => p.series.length);

  const composition: CompositionChart[] = [];
  const repeatRows = families.flatMap((family) =>
    withCells.flatMap((c) => {
      const cell = cellOf(c.name, family);
      return cell && cell.n > 0
        ? [
            {
              controller: c.name,
              simulated: c.simulated,
              family,
              failures: cell.failures,
              counts: REPEAT_CLASSES.map((k) => cell.repeat_classes[k]),
            },
          ]
        : [];
    }),
  );
  if (repeatRows.length) {
    composition.push({
      kind: 'repeat',
      title: 'Output recurrence among failures.',
      note: 'Drafts are compared byte for byte; classes are assigned in this order: terminal fixed point, terminal cycle, other repeat, no repeat (paper Figure 5, Appendix G).',
      categories: REPEAT_CLASS_DEFS,
      rows: repeatRows,
    });
  }
  const exactRows = withCells.flatMap((c) => {
    const cell = cellOf(c.name, 'exact-length');
    return cell?.exact_categories && cell.n > 0
      ? [
          {
            controller: c.name,
            simulated: c.simulated,
            family: 'exact-length',
            failures: cell.failures,
            counts: EXACT_CATEGORIES.map((k) => cell.exact_categories![k]),
          },
        ]
      : [];
  });
  if (exactRows.length) {
    composition.push({
      kind: 'categories',
      title: 'Exact-length failure categories.',
      note: 'The first matching category in this order labels each failed, protocol-complete exact-length trajectory (docs/protocol.md §3.3, paper Appendix A.1).',
      categories: EXACT_CATEGORY_DEFS,
      rows: exactRows,
    });
  }

  const br = analysis.budget_replay;
  const panels = [...new Set(br.by_cap.flatMap((c) => c.reversals.map((r) => r.panel)))];
  const budget: BudgetReplay = {
    panels,
    panelSimulated: panels.map((p) => simulatedShare(panelMembers.get(p) ?? [], simulated)),
    caps: [...br.caps],
    cells: br.cells.map((c) => ({
      controller: c.controller,
      simulated: simulated.has(c.controller),
      panel: c.panel,
      assay: c.assay,
      evaluable: c.evaluable,
      rates: [...c.cumulative_success],
    })),
    assays: [...et.assays],
    rows: br.by_cap.map((c) => ({
      cap: c.cap,
      medianCell: c.cell_median,
      minCell: c.cell_min,
      maxCell: c.cell_max,
      reversals: panels.map((p) => {
        const r = c.reversals.find((x) => x.panel === p);
        // Only pairs with rates on two assays or more can reverse: those are the denominator.
        return r ? { reversing: r.reversing_pairs, pairs: r.comparable_pairs } : { reversing: 0, pairs: 0 };
      }),
    })),
    // The analysis notes define the common case set and a reversal; this only names the cells.
    note: [`Cells are controller × assay (${et.assays.join(', ')}); paper Table 4.`, ...br.notes].join(' '),
  };

  const notes = [...analysis.notes];
  for (const e of analysis.excluded) {
    const reasons = Object.entries(e.reasons)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    notes.push(
      `${e.controller} / ${e.family}: ${e.count} ${e.status} trajectories excluded from every rate${reasons ? ` (${reasons})` : ''}.`,
    );
  }
  if (simulated.size && !notes.some((n) => /simulat/i.test(n)))
    notes.push(`SIMULATED controllers (their numbers describe simulations, not models): ${[...simulated].map(baseLabel).join(', ')}.`);
  notes.push(...(options.notes ?? []));

  return {
    title: options.title ?? DEFAULT_REPORT_TITLE,
    ...(options.generatedAt ? { generatedAt: options.generatedAt } : {}),
    runs: runsFromTrajectories(trajectories, options.runDetails),
    controllers,
    endpoint,
    summary,
    curves,
    composition,
    budget,
    notes,
  };
}
