// analyzeTrajectories: every analysis of the paper over a set of trajectories, grouped by
// controller × family (plus the aggregates lexical and compositional), as one plain-JSON result.
import type { TrajectoryRecord } from '../../../store/types.ts';
import { namingOption, UsageError, UserError } from '../../../core/errors.ts';
import { column, compareCodePoints, pairedBootstrapRates } from '../../../core/stats/bootstrap.ts';
import { mcnemarExact } from '../../../core/stats/binomial.ts';
import { holmAdjust } from '../../../core/stats/holm.ts';
import { PRNG_NAME, Xoshiro128 } from '../../../core/stats/prng.ts';
import { percentileInterval95 } from '../../../core/stats/quantile.ts';
import { mean, medianSorted, sampleSd } from '../../../core/stats/summary.ts';
import { fitRescue, landmarkRow, sourceFamily, type RescueRow } from './rescue.ts';
import { DEFAULT_PERMUTATIONS, hazardAssociation } from './association.ts';
import { CAPTURE_MODEL, modelFamily, predictCapture } from './capture-prediction.ts';
import { fitThreeDomain, threeDomainRow, type ThreeDomainRow } from './three-domain.ts';
import { trajectoryFacts, type TrajectoryFacts } from './trajectory.ts';
import {
  aggregateOf,
  ASSAYS,
  EXACT_CATEGORIES,
  FAMILY_ORDER,
  REPEAT_CLASSES,
  type AnalysisOptions,
  type AnalysisResult,
  type Assay,
  type BudgetReplay,
  type BudgetReplayCell,
  type CapturePredictionAnalysis,
  type CellSummary,
  type EndpointPanelRow,
  type EndpointTable,
  type EndpointTableRow,
  type ExcludedCount,
  type Interval,
  type PairwiseComparison,
  type RescueAnalysis,
  type RescueFit,
  type ThreeDomainAnalysis,
} from './analysis-types.ts';
import { baseLabel, markedName } from '../../../core/simulated.ts';
import { PAPER_PROTOCOL } from '../../../engine/protocol.ts';
import { ANALYSIS_DEFAULTS } from './defaults.ts';

const SIGN_THRESHOLD = 1e-12;
const DEFAULT_PANEL = 'all';
/** Why a table cell is empty: the controller has no trajectories of that assay. */
const NO_TRAJECTORIES = 'no trajectories in this assay';
/** Why a paired cell is empty although the controller has trajectories there. */
const NO_COMMON_CASES = (panel: string) => `no cases in common with the rest of panel ${panel}`;

/**
 * Default panels, one per case set (docs/analysis.md, panels): controllers not placed with --panel
 * are grouped by the cases they ran — two controllers share a panel when they have a case (family
 * and case id) in common, directly or through others — so an import of unrelated cases forms its own
 * panel instead of emptying every paired cell. One group keeps the panel name "all"; several are
 * named set1, set2, … (most controllers first) and described in a note.
 */
function panelsByCaseSet(
  trajectories: readonly TrajectoryRecord[],
  explicit: Readonly<Record<string, string>>,
): { panelOf: Map<string, string>; notes: string[] } {
  const parent = new Map<string, string>();
  const find = (c: string): string => {
    let r = c;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(c, r);
    return r;
  };
  const owner = new Map<string, string>();
  const cases = new Map<string, Set<string>>();
  const runs = new Map<string, Set<string>>();
  const simulated = new Set<string>();
  for (const t of trajectories) {
    if (explicit[t.controller] !== undefined) continue;
    if (t.simulated) simulated.add(t.controller);
    if (!parent.has(t.controller)) parent.set(t.controller, t.controller);
    const key = `${t.family}\u001f${t.caseId}`;
    const first = owner.get(key);
    if (first === undefined) owner.set(key, t.controller);
    else parent.set(find(t.controller), find(first));
    if (!cases.has(t.controller)) cases.set(t.controller, new Set());
    cases.get(t.controller)!.add(key);
    if (!runs.has(t.controller)) runs.set(t.controller, new Set());
    runs.get(t.controller)!.add(t.runId);
  }
  const groups = new Map<string, string[]>();
  for (const c of parent.keys()) {
    const root = find(c);
    if (!groups.has(root)) groups.set(root, []);
    groups.get(root)!.push(c);
  }
  const ordered = [...groups.values()]
    .map((g) => g.sort(compareCodePoints))
    .sort((a, b) => b.length - a.length || compareCodePoints(a[0], b[0]));
  const panelOf = new Map<string, string>();
  if (ordered.length <= 1) return { panelOf, notes: [] };
  const described = ordered.map((members, i) => {
    const name = `set${i + 1}`;
    for (const c of members) panelOf.set(c, name);
    const n = new Set(members.flatMap((c) => [...cases.get(c)!])).size;
    const runIds = [...new Set(members.flatMap((c) => [...runs.get(c)!]))].sort(compareCodePoints);
    return `${name} = ${members.map((c) => markedName(c, simulated.has(c))).join(', ')} (${n} case${n === 1 ? '' : 's'}; run${runIds.length === 1 ? '' : 's'} ${runIds.join(', ')})`;
  });
  return {
    panelOf,
    notes: [
      `Panels by case set: controllers that ran no case in common are never paired or compared. ${described.join('; ')}. Name panels yourself with --panel controller=panel.`,
    ],
  };
}

/** A complete trajectory with its facts, keyed for pairing. */
interface Item {
  t: TrajectoryRecord;
  facts: TrajectoryFacts;
  /** Pairing key within a (possibly aggregate) family: member family + case id. */
  key: string;
}

interface CellData {
  controller: string;
  family: string;
  aggregate: boolean;
  members: Set<string>;
  items: Item[];
  incomplete: number;
  pending: number;
}

/**
 * Every table and model of the paper from revision trajectories (docs/analysis.md): endpoints with bootstrap intervals, paired
 * comparisons, curves, repeat classes, rescue, hazard and capture prediction. Pure and seeded. Throws a UserError for an invalid option.
 */
export function analyzeTrajectories(trajectories: readonly TrajectoryRecord[], options: AnalysisOptions = {}): AnalysisResult {
  const bootstrap = checkInt('bootstrap', options.bootstrap ?? ANALYSIS_DEFAULTS.bootstrap, 0);
  const seed = checkInt('seed', options.seed ?? ANALYSIS_DEFAULTS.seed, 0);
  const landmark = checkInt('landmark', options.landmark ?? ANALYSIS_DEFAULTS.landmark, 1);
  const sensitivity = (options.sensitivityLandmarks ?? ANALYSIS_DEFAULTS.sensitivityLandmarks)
    .map((l) => checkInt('sensitivity landmark', l, 1))
    .filter((l) => l !== landmark);
  const permutations = checkInt('permutations', options.permutations ?? DEFAULT_PERMUTATIONS, 1);
  const runsBudget = trajectories.reduce((m, t) => Math.max(m, t.budget), trajectories.length ? 0 : PAPER_PROTOCOL.budget);
  const budget = options.budget !== undefined ? checkInt('budget', options.budget, 0) : runsBudget;
  // Past the runs' budget every curve only repeats its last value: a cap there is a mistake, said.
  if (trajectories.length && budget > runsBudget)
    throw new UsageError(
      `a largest revision cap of ${budget} is beyond the budget of the runs analysed (${runsBudget}): no trajectory goes past revision ${runsBudget}, ` +
        `so every curve would stay flat from there; ask for a cap of at most ${runsBudget}`,
      { option: 'budget' },
    );
  const caps = Array.from({ length: budget + 1 }, (_, k) => k);
  const casePanels = panelsByCaseSet(trajectories, options.panels ?? {});
  const panelOf = (controller: string) => options.panels?.[controller] ?? casePanels.panelOf.get(controller) ?? DEFAULT_PANEL;

  // ---- partition and cells ------------------------------------------------------------------------
  const cells = new Map<string, CellData>();
  const excluded = new Map<string, ExcludedCount>();
  const simulated = new Set<string>();
  const seenCase = new Map<string, TrajectoryRecord>();
  let complete = 0;
  let incomplete = 0;
  let pending = 0;
  const cellFor = (controller: string, family: string, aggregate: boolean): CellData => {
    const key = `${controller}\u001f${family}`;
    let cell = cells.get(key);
    if (!cell) {
      cell = { controller, family, aggregate, members: new Set(), items: [], incomplete: 0, pending: 0 };
      cells.set(key, cell);
    }
    return cell;
  };
  for (const t of trajectories) {
    if (t.simulated) simulated.add(t.controller);
    const targets = [cellFor(t.controller, t.family, false)];
    const agg = aggregateOf(t.family);
    if (agg) targets.push(cellFor(t.controller, agg, true));
    for (const c of targets) c.members.add(t.family);
    const status = t.status === 'complete' && t.rounds.length === 0 ? 'incomplete' : t.status;
    if (status !== 'complete') {
      const reason = t.status === 'complete' ? 'no rounds recorded' : (t.incompleteReason ?? 'unknown');
      const key = `${t.controller}\u001f${t.family}\u001f${status}`;
      let e = excluded.get(key);
      if (!e) excluded.set(key, (e = { controller: t.controller, family: t.family, status, count: 0, reasons: {} }));
      e.count++;
      e.reasons[reason] = (e.reasons[reason] ?? 0) + 1;
      for (const c of targets) {
        if (status === 'pending') c.pending++;
        else c.incomplete++;
      }
      if (status === 'pending') pending++;
      else incomplete++;
      continue;
    }
    complete++;
    const dupKey = `${t.controller}\u001f${t.family}\u001f${t.caseId}`;
    const previous = seenCase.get(dupKey);
    if (previous) {
      const [first, second] = [previous.runId, t.runId];
      throw namingOption(
        'runIds',
        (n) =>
          new UserError(
            `controller "${t.controller}" has two complete trajectories for case ${t.caseId} (family ${t.family}) ` +
              `in runs ${first} and ${second}; analyse one of them (select runs with ${n})`,
          ),
      );
    }
    seenCase.set(dupKey, t);
    let facts: TrajectoryFacts;
    try {
      facts = trajectoryFacts(t);
    } catch (e) {
      throw new UserError((e as Error).message);
    }
    const item: Item = { t, facts, key: `${t.family}\u001f${t.caseId}` };
    for (const c of targets) c.items.push(item);
  }

  const controllers = [...new Set(trajectories.map((t) => t.controller))].sort(
    (a, b) => compareCodePoints(panelOf(a), panelOf(b)) || compareCodePoints(a, b),
  );
  const controllerRank = new Map(controllers.map((c, i) => [c, i]));
  const orderedCells = [...cells.values()].sort(
    (a, b) => controllerRank.get(a.controller)! - controllerRank.get(b.controller)! || familyRank(a.family, b.family),
  );
  const families = [...new Set(orderedCells.map((c) => c.family))].sort(familyRank);
  const panels = [...new Set(controllers.map(panelOf))].sort(compareCodePoints);

  // ---- per-cell summaries (without the paired endpoint) -------------------------------------------
  const summaries = new Map<CellData, CellSummary>();
  for (const cell of orderedCells) summaries.set(cell, summarizeCell(cell, caps, panelOf(cell.controller), simulated));

  // ---- paired bootstrap per (panel, family): endpoint intervals and pairwise comparisons ----------
  const pairwise: PairwiseComparison[] = [];
  const commonSets = new Map<string, { keys: string[]; byController: Map<string, Map<string, Item>> }>();
  const groups: Array<{ panel: string; family: string; cells: CellData[] }> = [];
  for (const panel of panels) {
    for (const family of families) {
      const members = orderedCells.filter((c) => c.family === family && panelOf(c.controller) === panel && c.items.length > 0);
      if (members.length) groups.push({ panel, family, cells: members });
    }
  }
  const totalResamples = bootstrap * groups.length;
  let resamplesDone = 0;
  for (const { panel, family, cells: members } of groups) {
    const byController = new Map(members.map((c) => [c.controller, new Map(c.items.map((i) => [i.key, i]))]));
    // The paired set: cases complete for every controller of the panel with data in this family.
    let keys = [...byController.get(members[0].controller)!.keys()];
    for (const m of members.slice(1)) keys = keys.filter((k) => byController.get(m.controller)!.has(k));
    keys.sort(compareCodePoints);
    commonSets.set(`${panel}\u001f${family}`, { keys, byController });
    const first = byController.get(members[0].controller)!;
    const strata = keys.map((k) => sourceFamily(first.get(k)!.t.source));
    const columns: Uint8Array[] = [];
    for (const m of members) {
      const map = byController.get(m.controller)!;
      columns.push(Uint8Array.from(keys, (k) => (map.get(k)!.facts.initialSuccess ? 1 : 0)));
      columns.push(Uint8Array.from(keys, (k) => (map.get(k)!.facts.finalSuccess ? 1 : 0)));
    }
    const stage = `bootstrap ${panel}/${family}`;
    const draws =
      bootstrap > 0 && keys.length > 0
        ? pairedBootstrapRates({
            strata,
            columns,
            resamples: bootstrap,
            rng: Xoshiro128.fromKey(`revloop.bootstrap\u001f${seed}\u001f${panel}\u001f${family}`),
            onProgress: (done) => options.onProgress?.({ stage, done: resamplesDone + done, total: totalResamples }),
          })
        : null;
    resamplesDone += bootstrap;
    const k = columns.length;
    members.forEach((m, j) => {
      const s = summaries.get(m)!;
      const n = keys.length;
      const mean = (col: Uint8Array) => (n ? col.reduce((a, b) => a + b, 0) / n : null);
      const interval = (c: number): Interval => {
        if (!draws) return { low: null, high: null };
        const [low, high] = percentileInterval95(column(draws, k, c));
        return { low, high };
      };
      s.endpoint = {
        n_common: n,
        initial: { estimate: mean(columns[2 * j]), ci95: interval(2 * j) },
        final: { estimate: mean(columns[2 * j + 1]), ci95: interval(2 * j + 1) },
      };
      const reasons: Record<string, string> = {};
      if (!n) reasons.estimate = NO_COMMON_CASES(panel);
      else if (!draws) reasons.ci95 = 'bootstrap switched off (B = 0)';
      if (Object.keys(reasons).length) s.endpoint.null_reasons = reasons;
    });
    // Pairwise comparisons of final success on the paired set, Holm within (panel, family).
    const rows: PairwiseComparison[] = [];
    for (let a = 0; a < members.length; a++) {
      for (let b = a + 1; b < members.length; b++) {
        const ya = columns[2 * a + 1];
        const yb = columns[2 * b + 1];
        let aOnly = 0;
        let bOnly = 0;
        let sa = 0;
        let sb = 0;
        for (let i = 0; i < ya.length; i++) {
          sa += ya[i];
          sb += yb[i];
          if (ya[i] && !yb[i]) aOnly++;
          else if (!ya[i] && yb[i]) bOnly++;
        }
        const n = keys.length;
        let ci: Interval = { low: null, high: null };
        if (draws) {
          const delta = new Float64Array(bootstrap);
          for (let r = 0; r < bootstrap; r++) delta[r] = draws[r * k + 2 * a + 1] - draws[r * k + 2 * b + 1];
          const [low, high] = percentileInterval95(delta);
          ci = { low, high };
        }
        if (!n) continue;
        rows.push({
          panel,
          family,
          controller_a: members[a].controller,
          controller_b: members[b].controller,
          n_common: n,
          rate_a: sa / n,
          rate_b: sb / n,
          delta: sa / n - sb / n,
          ci95: ci,
          a_only: aOnly,
          b_only: bOnly,
          p_mcnemar: mcnemarExact(aOnly, bOnly),
          p_holm: 1,
        });
      }
    }
    holmAdjust(rows.map((r) => r.p_mcnemar)).forEach((p, i) => (rows[i].p_holm = p));
    pairwise.push(...rows);
  }

  // ---- assemble ---------------------------------------------------------------------------------
  const cellList = orderedCells.map((c) => summaries.get(c)!);
  const budgetReplay = replayBudget(panels, controllers, panelOf, commonSets, caps);
  const endpointTable = buildEndpointTable(panels, controllers, panelOf, simulated, cellList);
  const rescue = analyzeRescue(orderedCells, panels, panelOf, landmark, sensitivity);
  const association = hazardAssociation(cellList, families, { permutations, seed });
  const capture = analyzeCapture(orderedCells, panels, panelOf, simulated, {
    landmark,
    bootstrap,
    seed,
    modelFamilies: options.modelFamilies,
  });
  const threeDomain = analyzeThreeDomain(orderedCells, panels, panelOf, simulated, landmark);
  const notes: string[] = [...casePanels.notes];
  const uncompared = groups.filter((g) => g.cells.length > 1 && !commonSets.get(`${g.panel}\u001f${g.family}`)?.keys.length);
  if (uncompared.length)
    notes.push(
      `Not compared (no case complete for every controller of the panel): ${uncompared.map((g) => `${g.family} in panel ${g.panel}`).join('; ')}. ` +
        'Their paired cells are empty; use --panel to group controllers that ran the same cases.',
    );
  if (simulated.size) {
    notes.push(
      `SIMULATED controllers (${[...simulated].sort(compareCodePoints).map(baseLabel).join(', ')}): their numbers describe simulations, not models.`,
    );
  }
  if (incomplete || pending) {
    notes.push(`${incomplete} protocol-incomplete and ${pending} pending trajectories are excluded from every n (see "excluded").`);
  }
  return {
    schema: 'revloop.analysis/1',
    options: {
      budget,
      bootstrap,
      seed,
      landmark,
      sensitivity_landmarks: sensitivity,
      permutations,
      prng: PRNG_NAME,
      ci_level: 0.95,
      strata: 'source family (dolly, no_robots, oasst1, writingprompts; other sources as recorded)',
    },
    trajectories: { total: trajectories.length, complete, incomplete, pending },
    controllers: controllers.map((c) => ({ controller: c, panel: panelOf(c), simulated: simulated.has(c) })),
    simulated_controllers: [...simulated].sort(compareCodePoints),
    excluded: [...excluded.values()].sort(
      (a, b) =>
        controllerRank.get(a.controller)! - controllerRank.get(b.controller)! ||
        familyRank(a.family, b.family) ||
        compareCodePoints(a.status, b.status),
    ),
    cells: cellList,
    endpoint_table: endpointTable,
    budget_replay: budgetReplay,
    pairwise,
    rescue,
    hazard_association: association,
    capture_prediction: capture,
    three_domain_landmark: threeDomain,
    notes,
  };
}

function summarizeCell(cell: CellData, caps: number[], panel: string, simulated: Set<string>): CellSummary {
  const n = cell.items.length;
  const rate = (x: number) => (n ? x / n : null);
  const initial = cell.items.filter((i) => i.facts.initialSuccess).length;
  const successes = cell.items.filter((i) => i.facts.finalSuccess).length;
  const repeat = Object.fromEntries(REPEAT_CLASSES.map((c) => [c, 0])) as CellSummary['repeat_classes'];
  const periods = { '2': 0, '3': 0, '4': 0 };
  const exact = Object.fromEntries(EXACT_CATEGORIES.map((c) => [c, 0])) as NonNullable<CellSummary['exact_categories']>;
  let transitions = 0;
  let captures = 0;
  let recurrences = 0;
  for (const { facts } of cell.items) {
    if (facts.repeatClass) repeat[facts.repeatClass]++;
    if (facts.cyclePeriod) periods[String(facts.cyclePeriod) as '2' | '3' | '4']++;
    if (facts.exactCategory) exact[facts.exactCategory]++;
    transitions += facts.transitions;
    captures += facts.captureEvents;
    recurrences += facts.recurrenceEvents;
  }
  const summary: CellSummary = {
    controller: cell.controller,
    family: cell.family,
    aggregate: cell.aggregate,
    members: [...cell.members].sort(familyRank),
    panel,
    simulated: simulated.has(cell.controller),
    n,
    incomplete: cell.incomplete,
    pending: cell.pending,
    initial_successes: initial,
    initial_success: rate(initial),
    successes,
    final_success: rate(successes),
    cumulative_success: caps.map((k) => rate(cell.items.filter((i) => i.facts.capture !== null && i.facts.capture <= k).length)),
    failures: n - successes,
    repeat_classes: repeat,
    cycle_periods: periods,
    hazards: {
      active_transitions: transitions,
      capture_events: captures,
      recurrence_events: recurrences,
      early_capture_hazard: transitions ? captures / transitions : null,
      early_recurrence_hazard: transitions ? recurrences / transitions : null,
      capture_recurrence_ratio: (captures + 0.5) / (recurrences + 0.5),
    },
    endpoint: {
      n_common: 0,
      initial: { estimate: null, ci95: { low: null, high: null } },
      final: { estimate: null, ci95: { low: null, high: null } },
      null_reasons: { estimate: 'no protocol-complete trajectories in this cell' },
    },
  };
  if (cell.family === 'exact-length') summary.exact_categories = exact;
  if (!transitions) {
    summary.hazards.null_reasons = {
      early_capture_hazard: 'no active transitions (every trajectory stopped at revision 0, or none is complete)',
      early_recurrence_hazard: 'no active transitions (every trajectory stopped at revision 0, or none is complete)',
    };
  }
  if (!n) {
    const why = 'no protocol-complete trajectories in this cell';
    summary.null_reasons = { initial_success: why, final_success: why, cumulative_success: why };
  }
  return summary;
}

function replayBudget(
  panels: string[],
  controllers: string[],
  panelOf: (c: string) => string,
  commonSets: Map<string, { keys: string[]; byController: Map<string, Map<string, Item>> }>,
  caps: number[],
): BudgetReplay {
  const cells: BudgetReplayCell[] = [];
  for (const panel of panels) {
    for (const controller of controllers.filter((c) => panelOf(c) === panel)) {
      for (const assay of ASSAYS) {
        const set = commonSets.get(`${panel}\u001f${assay}`);
        const items = set?.byController.get(controller);
        if (!set || !items || !set.keys.length) continue;
        const captures = set.keys.map((k) => items.get(k)!.facts.capture);
        const counts = caps.map((cap) => captures.filter((c) => c !== null && c <= cap).length);
        cells.push({
          panel,
          controller,
          assay,
          evaluable: set.keys.length,
          cumulative_successes: counts,
          cumulative_success: counts.map((s) => s / set.keys.length),
        });
      }
    }
  }
  const rate = new Map(cells.map((c) => [`${c.panel}\u001f${c.controller}\u001f${c.assay}`, c.cumulative_success]));
  const byCap = caps.map((cap, k) => {
    const values = cells.map((c) => c.cumulative_success[k]).sort((a, b) => a - b);
    const reversals = panels.map((panel) => {
      const members = controllers.filter((c) => panelOf(c) === panel);
      let pairs = 0;
      let comparable = 0;
      let reversing = 0;
      for (let a = 0; a < members.length; a++) {
        for (let b = a + 1; b < members.length; b++) {
          pairs++;
          const signs = new Set<number>();
          let shared = 0;
          for (const assay of ASSAYS) {
            const ra = rate.get(`${panel}\u001f${members[a]}\u001f${assay}`);
            const rb = rate.get(`${panel}\u001f${members[b]}\u001f${assay}`);
            if (!ra || !rb) continue;
            shared++;
            const delta = ra[k] - rb[k];
            if (delta > SIGN_THRESHOLD) signs.add(1);
            else if (delta < -SIGN_THRESHOLD) signs.add(-1);
          }
          // A pair can only reverse across two assays or more.
          if (shared >= 2) comparable++;
          if (signs.size === 2) reversing++;
        }
      }
      return { panel, reversing_pairs: reversing, pairs, comparable_pairs: comparable };
    });
    return {
      cap,
      cell_min: values.length ? values[0] : null,
      cell_median: values.length ? medianSorted(values) : null,
      cell_max: values.length ? values[values.length - 1] : null,
      reversals,
    };
  });
  const notes = [
    "Cells use each panel's common case set per assay (cases complete for every controller of the panel with data in that assay).",
    'A pair reverses at a cap when its strict orderings (|Δ| > 1e-12) disagree across the assays both controllers have; only pairs with rates on two assays or more can (comparable_pairs).',
  ];
  if (!cells.length) notes.push('No exact-length, lexical or compositional cell: nothing to replay.');
  return { caps, sign_threshold: SIGN_THRESHOLD, cells, by_cap: byCap, notes };
}

function buildEndpointTable(
  panels: string[],
  controllers: string[],
  panelOf: (c: string) => string,
  simulated: Set<string>,
  cells: CellSummary[],
): EndpointTable {
  const present = ASSAYS.filter((a) => cells.some((c) => c.family === a));
  const rows: EndpointTableRow[] = controllers.map((controller) => {
    const cellOf = (a: Assay) => cells.find((c) => c.controller === controller && c.family === a);
    const final = Object.fromEntries(ASSAYS.map((a) => [a, cellOf(a)?.endpoint.final.estimate ?? null])) as Record<Assay, number | null>;
    const row: EndpointTableRow = { controller, panel: panelOf(controller), simulated: simulated.has(controller), final, ...meanSd(final) };
    // Every empty cell says why: no trajectories there, none complete, or no case shared with the panel.
    for (const a of ASSAYS) {
      if (final[a] !== null) continue;
      const cell = cellOf(a);
      const why = !cell ? NO_TRAJECTORIES : (cell.endpoint.null_reasons?.estimate ?? 'not estimable');
      row.null_reasons = { ...row.null_reasons, [`final.${a}`]: why };
    }
    return row;
  });
  const panelRow = (panel: string, members: EndpointTableRow[]): EndpointPanelRow => {
    const final = Object.fromEntries(
      ASSAYS.map((a) => {
        const values = members.map((r) => r.final[a]).filter((v): v is number => v !== null);
        return [a, values.length ? values.reduce((x, y) => x + y, 0) / values.length : null];
      }),
    ) as Record<Assay, number | null>;
    return { panel, controllers: members.length, final, ...meanSd(final) };
  };
  const panelRows = panels.map((p) =>
    panelRow(
      p,
      rows.filter((r) => r.panel === p),
    ),
  );
  if (panels.length > 1) panelRows.push(panelRow('overall', rows));
  const range = Object.fromEntries(
    ASSAYS.map((a) => {
      const values = rows.map((r) => r.final[a]).filter((v): v is number => v !== null);
      return [a, values.length ? { min: Math.min(...values), max: Math.max(...values) } : null];
    }),
  ) as EndpointTable['range'];
  return { assays: present, rows, panels: panelRows, range };
}

/** Mean and sample SD (ddof 1) over the non-null assay rates. */
function meanSd(final: Record<Assay, number | null>): { mean: number | null; sd: number | null; null_reasons?: Record<string, string> } {
  const values = ASSAYS.map((a) => final[a]).filter((v): v is number => v !== null);
  if (!values.length) return { mean: null, sd: null, null_reasons: { mean: 'no assay rate', sd: 'no assay rate' } };
  const m = mean(values);
  if (values.length < 2) return { mean: m, sd: null, null_reasons: { sd: 'a sample SD needs at least two assays' } };
  return { mean: m, sd: sampleSd(values) };
}

function analyzeRescue(
  cells: CellData[],
  panels: string[],
  panelOf: (c: string) => string,
  landmark: number,
  sensitivity: number[],
): RescueAnalysis {
  const exactItems = cells.filter((c) => c.family === 'exact-length').flatMap((c) => c.items);
  const fits: RescueFit[] = [];
  for (const l of [landmark, ...sensitivity]) {
    const rows = rescueRows(cells, l);
    if (panels.length > 1)
      for (const p of panels)
        fits.push(
          fitRescue(
            p,
            l,
            rows.filter((r) => panelOf(r.controller) === p),
          ),
        );
    fits.push(fitRescue('combined', l, rows));
  }
  const notes = [
    'Risk set: exact-length trajectories with at least L+2 rounds that are unresolved at revision L; outcome = final joint success.',
    'Odds ratio compares repeat fraction 1 with 0; covariance clustered by case id, no small-sample correction.',
  ];
  if (!exactItems.length) notes.push('No protocol-complete exact-length trajectories: the rescue model is not estimable.');
  return { family: 'exact-length', primary_landmark: landmark, fits, notes };
}

/** Exact-length risk-set rows at landmark l (docs/protocol.md §3.9); malformed states are user errors. */
function rescueRows(cells: CellData[], l: number): RescueRow[] {
  const items = cells.filter((c) => c.family === 'exact-length').flatMap((c) => c.items);
  try {
    return items.map((i) => landmarkRow(i.t, l)).filter((r): r is RescueRow => r !== null);
  } catch (e) {
    throw new UserError((e as Error).message);
  }
}

/** Leave-one-family-out capture prediction per panel at the primary landmark (§3.9). */
function analyzeCapture(
  cells: CellData[],
  panels: string[],
  panelOf: (c: string) => string,
  simulated: Set<string>,
  o: { landmark: number; bootstrap: number; seed: number; modelFamilies?: Record<string, string> },
): CapturePredictionAnalysis {
  const rows = rescueRows(cells, o.landmark);
  const familyOf = (controller: string) => modelFamily(controller, o.modelFamilies);
  const results = panels.map((panel) => {
    const members = rows.filter((r) => panelOf(r.controller) === panel);
    return predictCapture(members, {
      panel,
      landmark: o.landmark,
      // The panel's controllers decide, not the risk set's rows (an empty risk set is still a simulation's).
      simulated: [...simulated].some((c) => panelOf(c) === panel),
      familyOf,
      bootstrap: o.bootstrap,
      seed: o.seed,
    });
  });
  const notes = [
    'Rows: the exact-length rescue risk set at the primary landmark; outcome = late rescue. Each model family of a panel is held out in turn and predicted by a model trained on the others.',
    'B0 = current state; B1 = B0 + action history; B2 = B1 + recurrence (repeat fraction, recurrence count, any recurrence, unique-output ratio, longest identical run, period-2 return).',
    "Equal-family Brier = mean of the held-out families' Brier scores; its 95% interval and those of the differences come from one stratified case-weight matrix (multinomial within source family) shared by every set.",
  ];
  const unassigned = [...new Set(rows.map((r) => r.controller))]
    .filter((c) => familyOf(c).assigned_by === 'controller')
    .sort(compareCodePoints);
  if (unassigned.length) {
    notes.push(
      `No model family known for ${unassigned.join(', ')}: each is its own family (assign families with --model-family CONTROLLER=FAMILY).`,
    );
  }
  return { family: 'exact-length', landmark: o.landmark, model: CAPTURE_MODEL, panels: results, notes };
}

/** The all-domain landmark: MH common OR and the adjusted logit, per panel (when several) and combined. */
function analyzeThreeDomain(
  cells: CellData[],
  panels: string[],
  panelOf: (c: string) => string,
  simulated: Set<string>,
  landmark: number,
): ThreeDomainAnalysis {
  const items = cells.filter((c) => !c.aggregate).flatMap((c) => c.items);
  let rows: ThreeDomainRow[];
  try {
    rows = items.map((i) => threeDomainRow(i.t, landmark)).filter((r): r is ThreeDomainRow => r !== null);
  } catch (e) {
    throw new UserError((e as Error).message);
  }
  const subsets: Array<[string, ThreeDomainRow[]]> =
    panels.length > 1 ? panels.map((p) => [p, rows.filter((r) => panelOf(r.controller) === p)]) : [];
  subsets.push(['combined', rows]);
  const fits = subsets.map(([subset, members]) =>
    fitThreeDomain(
      subset,
      landmark,
      members,
      subset === 'combined' ? simulated.size > 0 : [...simulated].some((c) => panelOf(c) === subset),
    ),
  );
  const tasks = [...new Set(rows.map((r) => r.task))].sort(familyRank).map((task) => ({ task, domain: aggregateOf(task) ?? task }));
  const notes = [
    `Risk set: trajectories of every family with at least L+2 = ${landmark + 2} rounds; exposure = any repeated text among r0…r${landmark}; outcome = final joint success (later rescue).`,
    'Mantel–Haenszel common OR over controller × task strata (Robins–Breslow–Greenland CI, MH χ² without continuity correction).',
    'Adjusted OR: unpenalised logit with the violation-energy path by the landmark (current, log1p, minimum, improvement, contractions, no-ops |ΔE| < 1e-12, largest |ΔE|; exact length: |error|/max(target, 1) + missing anchors) and controller×task and source fixed effects; covariance clustered by domain|case id.',
  ];
  if (!rows.length) notes.push(`No trajectory has ${landmark + 2} or more rounds: nothing to estimate.`);
  return { landmark, tasks, fits, notes };
}

function familyRank(a: string, b: string): number {
  const order = FAMILY_ORDER as readonly string[];
  const ia = order.indexOf(a);
  const ib = order.indexOf(b);
  if (ia >= 0 && ib >= 0) return ia - ib;
  if (ia >= 0) return -1;
  if (ib >= 0) return 1;
  return compareCodePoints(a, b);
}

function checkInt(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new UserError(`${name} must be an integer ≥ ${min} (got ${value})`);
  return value;
}
