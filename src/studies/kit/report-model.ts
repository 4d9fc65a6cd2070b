// The report's view model: everything the HTML shows, already computed. It is filled from an
// AnalysisResult and the trajectories by each study (buildReportModel in
// studies/revision/report-model.ts) and rendered by src/report/render.ts, so the
// renderer never recomputes a statistic and can be tested on hand-built models.

/** A proportion with its 95% interval (NaN-free: null when undefined, e.g. n = 0). */
export interface Proportion {
  k: number;
  n: number;
  rate: number | null;
  lo: number | null;
  hi: number | null;
}

export interface ControllerInfo {
  name: string;
  simulated: boolean;
}

export interface RunInfo {
  runId: string;
  controller: string;
  simulated: boolean;
  families: string[];
  budget: number;
  trajectories: number;
  incomplete: number;
  /** Optional extras shown as-is (model spec, plan hash, created, …). */
  details?: Record<string, string>;
}

export interface EndpointCell {
  family: string;
  n: number;
  /** Protocol-incomplete (and pending) trajectories, excluded from n. */
  excluded: number;
  initial: Proportion;
  final: Proportion;
  /** Size of the paired case set the intervals were bootstrapped on, when it differs from n. */
  pairedN?: number;
}

interface EndpointRow {
  controller: string;
  simulated: boolean;
  /** One per column family, in `EndpointTable.families` order; null where the cell is empty. */
  cells: Array<EndpointCell | null>;
}

/** Controller × family: n, initial and final joint success with 95% intervals. */
export interface EndpointTable {
  /** Column families in display order (e.g. exact-length, lexical, c05, c07, c12, …). */
  families: string[];
  rows: EndpointRow[];
  /** How the intervals were computed, shown under the table. */
  intervalNote: string;
}

interface AssaySummaryRow {
  controller: string;
  simulated: boolean;
  panel: string;
  /** Final joint success per assay (null where the controller lacks it). */
  final: Array<number | null>;
  mean: number | null;
  sd: number | null;
}

interface PanelMeanRow {
  label: string;
  /** Number of controllers averaged. */
  controllers: number;
  simulated: 'none' | 'some' | 'all';
  final: Array<number | null>;
  mean: number | null;
  sd: number | null;
}

/** Tables 1 and 10 of the paper: final success per assay, mean ± SD across assays, panel means. */
export interface AssaySummary {
  assays: string[];
  rows: AssaySummaryRow[];
  panels: PanelMeanRow[];
  /** Range across controllers per assay. */
  range: Array<{ min: number; max: number } | null>;
  note: string;
}

interface CurveSeries {
  controller: string;
  simulated: boolean;
  n: number;
  /** Cumulative joint success at cap 0…T (fractions 0–1; null where undefined). */
  rates: Array<number | null>;
}

export interface CurvePanel {
  family: string;
  caps: number[];
  series: CurveSeries[];
}

export interface CategoryDef {
  key: string;
  label: string;
  /** One-line definition shown in the legend's tooltip and the notes. */
  description: string;
}

interface CompositionRow {
  controller: string;
  simulated: boolean;
  family: string;
  failures: number;
  /** Counts per category, in `categories` order; they sum to `failures`. */
  counts: number[];
}

export interface CompositionChart {
  /** Colour scheme: 'repeat' for the four recurrence classes, 'categories' for up to seven others. */
  kind: 'repeat' | 'categories';
  title: string;
  note: string;
  categories: CategoryDef[];
  rows: CompositionRow[];
}

interface BudgetReplayRow {
  cap: number;
  medianCell: number | null;
  minCell: number | null;
  maxCell: number | null;
  /** Reversing controller pairs per panel, in `BudgetReplay.panels` order. */
  /** Per panel: reversing pairs of the pairs that can reverse (rates on two assays or more). */
  reversals: Array<{ reversing: number; pairs: number }>;
}

interface BudgetReplayCell {
  controller: string;
  simulated: boolean;
  panel: string;
  assay: string;
  /** Cases in the panel's common set for this assay. */
  evaluable: number;
  /** Success at cap 0…T (fractions). */
  rates: number[];
}

export interface BudgetReplay {
  /** Panel names (e.g. "all controllers", "local", "API"). */
  panels: string[];
  /** Whether each panel (same order) contains simulated controllers. */
  panelSimulated: Array<'none' | 'some' | 'all'>;
  caps: number[];
  cells: BudgetReplayCell[];
  /** Assay families compared for reversals (e.g. exact-length, lexical, compositional). */
  assays: string[];
  rows: BudgetReplayRow[];
  note: string;
}

/** One trajectory's classification, used by the drill-down filters. */
type Outcome = 'success' | 'failure' | 'incomplete';

export interface TrajectoryLabel {
  outcome: Outcome;
  /** terminal_fixed_point | terminal_cycle | other_repeat | no_repeat for failures; null otherwise. */
  repeatClass: string | null;
  /** Exact-length failure category, where defined. */
  category: string | null;
}

/** A report's title when none is given (`revloop report --title`). */
export const DEFAULT_REPORT_TITLE = 'revloop report';

export interface ReportModel {
  title: string;
  /** ISO timestamp shown in the header; omitted for byte-reproducible reports. */
  generatedAt?: string;
  runs: RunInfo[];
  controllers: ControllerInfo[];
  endpoint: EndpointTable;
  summary: AssaySummary;
  curves: CurvePanel[];
  composition: CompositionChart[];
  budget: BudgetReplay;
  /** Free-form notes rendered in the footer (e.g. what was excluded). */
  notes: string[];
}

/** Display names for the filter values. */
export interface DrilldownLabels {
  outcome: Record<string, string>;
  repeat: Record<string, string>;
  category: Record<string, string>;
}
