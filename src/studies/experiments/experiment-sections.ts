// The experiments study's report sections (typed blocks, never HTML): the runs, each history
// intervention's arm curves and contrasts, the crossover 2×2 cells and tests, the response curves
// with their bootstrap bands, and the persistence curves. The terminal text is rendered from the
// same tables (text.ts), so both say the same thing. Names are shown without their labels'
// "[simulated]" (`shown`): the rows' and sections' SIMULATED marks say it once.
import { baseLabel, withoutSimulatedLabels as shown } from '../../core/simulated.ts';
import type { ControllerInfo, CurvePanel } from '../kit/report-model.ts';
import { simulatedMark, type Block, type DataTable, type NumberCell, type Section } from '../kit/sections.ts';
import type {
  CrossoverPair,
  ExperimentsAnalysis,
  HistoryAnalysis,
  Interval,
  PersistAnalysis,
  Rate,
  SysidAnalysis,
} from './analysis/experiment-analysis-types.ts';

const pct = (r: Rate, title?: string): NumberCell => ({ value: r.rate, percent: true, digits: 1, title: title ?? `${r.k}/${r.n}` });
const num = (x: number | null, digits = 2, ci?: Interval): NumberCell => ({ value: x, digits, ...(ci ? { lo: ci.lo, hi: ci.hi } : {}) });
/** A p-value as text: four decimals, or two significant digits in exponent form below 0.001. */
const p = (x: number | null): string | null => (x === null ? null : x >= 0.001 ? x.toFixed(4) : x.toExponential(2));
const share = (r: Rate) => `${r.k}/${r.n}`;

function runsTable(a: ExperimentsAnalysis): DataTable {
  return {
    columns: [
      { label: 'controller' },
      { label: 'run' },
      { label: 'design' },
      { label: 'from' },
      { label: 'states SHA-256' },
      { label: 'T', numeric: true },
      { label: 'trajectories', numeric: true },
      { label: 'complete', numeric: true },
      { label: 'incomplete', numeric: true },
      { label: 'pending', numeric: true },
    ],
    rows: a.runs.map((r) => ({
      simulated: r.simulated,
      cells: [
        baseLabel(r.controller),
        r.run_id,
        r.design,
        r.sources.join(', ') || '(case set)',
        r.states_sha256.slice(0, 12),
        r.budget,
        r.trajectories,
        r.complete,
        r.incomplete,
        r.pending,
      ],
    })),
  };
}

function historySection(h: HistoryAnalysis): Section {
  const summary: DataTable = {
    caption: 'Outcomes by arm',
    columns: [
      { label: 'arm' },
      { label: 'n', numeric: true },
      { label: 'first-step escape %', numeric: true, title: 'the first post-trigger text is none of the texts so far' },
      { label: 'direction correct %', numeric: true, title: 'exact length: the first step moves the count the way the report asked' },
      { label: 'contraction %', numeric: true, title: '|error| (exact length) or energy strictly falls at the first step' },
      { label: 'later recurrence %', numeric: true, title: 'a later post-trigger round repeats an earlier text' },
      { label: 'final success %', numeric: true },
      { label: 'success, r > 1 %', numeric: true, title: 'final success at states whose trigger revision is above 1' },
      { label: 'mean final |error|', numeric: true },
      { label: 'mean final energy', numeric: true },
      { label: 'generations', numeric: true, title: 'mean post-trigger generations' },
    ],
    rows: h.summaries.map((s) => ({
      simulated: h.simulated,
      cells: [
        s.arm,
        s.n,
        pct(s.first_step_escape),
        pct(s.first_step_direction_correct),
        pct(s.first_step_contraction),
        pct(s.later_recurrence),
        pct(s.final_joint),
        pct(s.final_joint_later),
        num(s.mean_final_abs_error),
        num(s.mean_final_energy, 3),
        num(s.mean_post_trigger_generations),
      ],
    })),
  };
  const contrasts: DataTable = {
    caption: `Each arm against '${h.contrasts[0]?.reference ?? 'full'}', paired by state`,
    columns: [
      { label: 'arm' },
      { label: 'outcome' },
      { label: 'pairs', numeric: true },
      { label: 'ref yes, arm no', numeric: true },
      { label: 'ref no, arm yes', numeric: true },
      { label: 'difference (pp)', numeric: true, title: 'arm − reference, with a source-stratified paired bootstrap 95% interval' },
      { label: 'McNemar p', numeric: true },
      { label: 'Holm p', numeric: true },
    ],
    rows: h.contrasts.map((c) => ({
      simulated: h.simulated,
      cells: [
        c.arm,
        c.outcome,
        c.pairs,
        c.b,
        c.c,
        { value: c.difference, lo: c.ci95.lo, hi: c.ci95.hi, percent: true, digits: 1 },
        p(c.p_mcnemar),
        p(c.p_holm),
      ],
    })),
    note: 'Exact McNemar on the discordant pairs (docs/protocol.md §4.2), Holm over this run’s contrasts (§4.3).',
  };
  const panel: CurvePanel = {
    family: `${baseLabel(h.controller)}: success by revision cap`,
    caps: h.caps,
    series: h.summaries.map((s) => ({ controller: s.arm, simulated: h.simulated, n: s.n, rates: s.curve })),
  };
  const arms: ControllerInfo[] = h.summaries.map((s) => ({ name: s.arm, simulated: h.simulated }));
  return {
    id: `experiments-history-${h.run_id}`,
    title: `History interventions: ${h.run_id}`,
    tocLabel: `History: ${h.run_id}`,
    lead:
      `${h.states} matched states of ${baseLabel(h.controller)}, each continued under every arm on its own message list up to revision ${h.caps[h.caps.length - 1] ?? '–'} ` +
      '(docs/protocol.md §3.10). Curves: share of each arm’s trajectories with joint success by each absolute revision.',
    simulated: h.simulated ? 'all' : 'none',
    blocks: [
      { kind: 'curves', panels: [panel], controllers: arms },
      { kind: 'table', table: summary },
      { kind: 'table', table: contrasts },
      ...h.notes.map((text): Block => ({ kind: 'text', text: shown(text), tone: 'note' })),
    ],
  };
}

function crossoverBlocks(pair: CrossoverPair): Block[] {
  const [a, b] = pair.models;
  const [na, nb] = [shown(a), shown(b)];
  const cell = (planner: string, controller: string): NumberCell | string => {
    const c = pair.cells.find((x) => x.planner === planner && x.controller === controller);
    return c ? { value: c.final_joint.rate, percent: true, digits: 1, title: `${share(c.final_joint)} · run ${c.run_id}` } : '–';
  };
  const grid: DataTable = {
    caption: `${na} × ${nb}: final joint success (%) by planner (rows) and controller (columns)`,
    columns: [{ label: 'planner ↓ / controller →' }, { label: na, numeric: true }, { label: nb, numeric: true }],
    rows: [a, b].map((planner) => ({ simulated: pair.simulated, cells: [shown(planner), cell(planner, a), cell(planner, b)] })),
    note: 'The diagonal cells are the planner runs themselves; off-diagonal cells continue the planner’s frozen first drafts.',
  };
  const cells: DataTable = {
    caption: 'Cells',
    columns: [
      { label: 'planner' },
      { label: 'controller' },
      { label: 'run' },
      { label: 'n', numeric: true },
      { label: 'round-0 success %', numeric: true },
      { label: 'final success %', numeric: true },
    ],
    rows: pair.cells.map((c) => ({
      simulated: c.simulated,
      cells: [
        shown(c.planner),
        shown(c.controller),
        `${c.run_id}${c.diagonal ? ' (diagonal)' : ''}`,
        c.n,
        pct(c.round0_joint),
        pct(c.final_joint),
      ],
    })),
  };
  const tests: DataTable = {
    caption: 'Tests on final joint success, paired by case',
    columns: [
      { label: 'test' },
      { label: 'fixed' },
      { label: 'first − second' },
      { label: 'pairs', numeric: true },
      { label: 'first only', numeric: true },
      { label: 'second only', numeric: true },
      { label: 'difference (pp)', numeric: true },
      { label: 'McNemar p', numeric: true },
      { label: 'Holm p', numeric: true },
    ],
    rows: pair.tests.map((t) => ({
      simulated: pair.simulated,
      cells: [
        t.kind.replace(/_/g, ' '),
        shown(t.fixed),
        shown(`${t.first} − ${t.second}`),
        t.pairs,
        t.b,
        t.c,
        { value: t.difference, percent: true, digits: 1 },
        p(t.p_mcnemar),
        p(t.p_holm),
      ],
    })),
    note: 'Controller effects (planner fixed) are Holm-adjusted across the analysis; the conditional tests (round 0 failed) are their own family; planner controls are unadjusted (docs/protocol.md §3.12).',
  };
  const integrity = pair.integrity;
  return [
    { kind: 'heading', text: `${na} × ${nb}` },
    { kind: 'table', table: grid },
    { kind: 'table', table: cells },
    { kind: 'table', table: tests },
    {
      kind: 'text',
      tone: 'note',
      text:
        `Integrity: case sets ${integrity.identical_case_sets ? 'identical' : 'differ'} (${Object.entries(integrity.case_set_sizes)
          .map(([k, v]) => `${shown(k)}: ${v}`)
          .join('; ')}); ` + `round-0 texts differing within a planner: ${integrity.round0_mismatches}.`,
    },
  ];
}

function sysidSection(s: SysidAnalysis): Section {
  const panels = [
    {
      title: `${baseLabel(s.controller)}: median realised action`,
      xLabel: 'command (words asked to add)',
      yLabel: 'median realised action (words)',
      identity: true,
      series: s.curves.map((c) => ({
        name: c.split,
        simulated: s.simulated,
        points: c.rows.map((r) => ({ x: r.command, y: r.median_action, lo: r.ci95.lo, hi: r.ci95.hi })),
      })),
    },
  ];
  const all = s.curves.find((c) => c.split === 'all') ?? s.curves[0];
  const table: DataTable = {
    caption: `By command (all states; monotone-pair fraction ${all?.monotone_pair_fraction === null || !all ? '–' : all.monotone_pair_fraction.toFixed(3)})`,
    columns: [
      { label: 'command' },
      { label: 'n', numeric: true },
      { label: 'median action', numeric: true, title: 'with its source-stratified bootstrap 95% interval' },
      { label: 'mean gain', numeric: true },
      { label: 'direction %', numeric: true },
      { label: 'contraction %', numeric: true },
      { label: 'zero action %', numeric: true },
      { label: 'overshoot %', numeric: true },
      { label: 'exact %', numeric: true },
      { label: 'anchors %', numeric: true },
    ],
    rows: (all?.rows ?? []).map((r) => ({
      simulated: s.simulated,
      cells: [
        String(r.command),
        r.n,
        num(r.median_action, 1, r.ci95),
        num(r.mean_gain),
        pct(r.direction_correct),
        pct(r.contraction),
        pct(r.zero_action),
        pct(r.overshoot),
        pct(r.exact),
        pct(r.anchors),
      ],
    })),
  };
  const slopes: DataTable = {
    caption: 'Local Theil–Sen slope (|command| ≤ 10): per case, then the median across cases',
    columns: [{ label: 'commands' }, { label: 'cases', numeric: true }, { label: 'slope', numeric: true }],
    rows: s.slopes.map((x) => ({ simulated: s.simulated, cells: [x.subset, x.cases, num(x.slope, 3, x.ci95)] })),
  };
  const blocks: Block[] = [
    { kind: 'response-curves', panels },
    { kind: 'table', table },
    { kind: 'table', table: slopes },
  ];
  if (s.prediction) {
    const pr = s.prediction;
    blocks.push({
      kind: 'table',
      table: {
        caption: `Frozen prediction on confirmation states (spec SHA-256 ${pr.spec_sha256.slice(0, 12)}…, ${pr.rows} rows)`,
        columns: [{ label: 'predictor' }, { label: 'MAE (words)', numeric: true }],
        rows: pr.predictors.map((x) => ({ simulated: s.simulated, cells: [x.name, num(x.mae)] })),
        note:
          `checkpoint − pooled MAE: ${pr.checkpoint_minus_pooled === null ? '–' : pr.checkpoint_minus_pooled.toFixed(3)}` +
          `${pr.ci95.lo !== null ? ` [${pr.ci95.lo.toFixed(3)}, ${pr.ci95.hi!.toFixed(3)}]` : ''}; ` +
          `discovery/confirmation curve Spearman ρ ${pr.curve_spearman === null ? '–' : pr.curve_spearman.toFixed(3)}; ` +
          `gates: ρ ≥ 0.70 ${gate(pr.gates.curve_spearman_at_least_0_70)}, checkpoint beats pooled ${gate(pr.gates.checkpoint_beats_pooled)}.`,
      },
    });
  }
  if (s.transfer) {
    const t = s.transfer;
    blocks.push({
      kind: 'table',
      table: {
        caption: `Transfer to natural trajectories (${t.transitions} transitions in ${t.runs.join(', ')})`,
        columns: [{ label: 'measure' }, { label: 'value', numeric: true }],
        rows: [
          { simulated: s.simulated, cells: ['MAE, frozen curve', num(t.mae_curve)] },
          { simulated: s.simulated, cells: ['MAE, zero action', num(t.mae_zero)] },
          { simulated: s.simulated, cells: ['MAE, identity', num(t.mae_identity)] },
          { simulated: s.simulated, cells: ['8-step simulated capture %', pct(t.simulated_capture)] },
          { simulated: s.simulated, cells: ['observed final exact length %', pct(t.observed_exact)] },
        ],
      },
    });
  }
  for (const text of s.notes) blocks.push({ kind: 'text', text: shown(text), tone: 'note' });
  return {
    id: `experiments-sysid-${s.run_id}`,
    title: `Response curves: ${s.run_id}`,
    tocLabel: `Response: ${s.run_id}`,
    lead:
      'One greedy revision of a fixed draft whose target was shifted so that the report asks for a given change of length, the command (words to add; negative: words to remove) (docs/protocol.md §3.11). ' +
      `Bands: source-stratified bootstrap 95% intervals of the median. ${s.excluded_cells} cells with a target below 10 were excluded.`,
    simulated: s.simulated ? 'all' : 'none',
    blocks,
  };
}

function gate(v: boolean | null): string {
  return v === null ? 'n/a' : v ? 'pass' : 'fail';
}

function persistSection(r: PersistAnalysis): Section {
  const panel: CurvePanel = {
    family: `${baseLabel(r.controller)}: rescued by revision cap`,
    caps: r.caps,
    series: [{ controller: r.controller, simulated: r.simulated, n: r.n, rates: r.curve }],
  };
  const summary: DataTable = {
    caption: 'Rescue by terminal-error region',
    columns: [{ label: 'region' }, { label: 'n', numeric: true }, { label: 'rescued %', numeric: true }],
    rows: [
      ...r.regions.map((x) => ({ simulated: r.simulated, cells: [x.region, x.n, pct(x.rescued)] })),
      { simulated: r.simulated, cells: ['all', r.n, pct(r.rescued)] },
    ],
    note:
      `Median rescue revision ${r.median_rescue_revision ?? '–'}; ${r.context_limit} ended at the context window` +
      `${r.context_window !== null ? ` (${r.context_window} tokens)` : ' (none set)'}.`,
  };
  return {
    id: `experiments-persist-${r.run_id}`,
    title: `Extended budget: ${r.run_id}`,
    tocLabel: `Persistence: ${r.run_id}`,
    lead: `Budget-end failures at revision ${r.source_budget}, continued on the full conversation up to revision ${r.budget} (docs/protocol.md §3.13).`,
    simulated: r.simulated ? 'all' : 'none',
    blocks: [
      { kind: 'curves', panels: [panel], controllers: [{ name: r.controller, simulated: r.simulated }] },
      { kind: 'table', table: summary },
      ...r.notes.map((text): Block => ({ kind: 'text', text: shown(text), tone: 'note' })),
    ],
  };
}

export function experimentSections(a: ExperimentsAnalysis): Section[] {
  if (!a.runs.length) return [];
  const sections: Section[] = [
    {
      id: 'experiments-runs',
      title: 'Controlled experiments',
      tocLabel: 'Experiments',
      lead: 'Experiment runs: each trajectory continues a frozen prefix of a stored one (or a fixed draft), under the design’s messages.',
      simulated: simulatedMark(a.runs.map((r) => r.simulated)),
      blocks: [{ kind: 'table', table: runsTable(a) }],
    },
  ];
  sections.push(...a.history.map(historySection));
  if (a.crossover.pairs.length) {
    sections.push({
      id: 'experiments-crossover',
      title: 'Fixed-draft crossover',
      tocLabel: 'Crossover',
      lead: 'Planner × controller: round 0 is the planner’s frozen first draft, the controller revises from [U0, A d0, U f0] (docs/protocol.md §3.12).',
      simulated: simulatedMark(a.crossover.pairs.map((x) => x.simulated)),
      blocks: [
        ...a.crossover.pairs.flatMap(crossoverBlocks),
        ...a.crossover.notes.map((text): Block => ({ kind: 'text', text: shown(text), tone: 'note' })),
      ],
    });
  }
  sections.push(...a.sysid.map(sysidSection));
  sections.push(...a.persist.map(persistSection));
  return sections;
}
