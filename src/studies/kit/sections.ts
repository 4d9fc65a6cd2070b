// What a study shows: sections of typed blocks, plain data with no markup. The HTML report
// (src/report) and the live viewer render the same sections, so a study describes its results once
// and never writes HTML. Text fields are plain text; renderers escape them.
import type { AssaySummary, BudgetReplay, CompositionChart, ControllerInfo, CurvePanel, EndpointTable, RunInfo } from './report-model.ts';

/** How much of what a section (or a row) shows was measured on simulated controllers. */
export type SimulatedMark = 'none' | 'some' | 'all';

/** The mark of a collection from its members' simulated flags. */
export function simulatedMark(flags: Iterable<boolean>): SimulatedMark {
  let any = false;
  let all = true;
  for (const f of flags) {
    any ||= f;
    all &&= f;
  }
  return !any ? 'none' : all ? 'all' : 'some';
}

/** A number with an optional 95% interval, shown with `digits` decimals. */
export interface NumberCell {
  value: number | null;
  lo?: number | null;
  hi?: number | null;
  digits?: number;
  /** Shown as a percentage (value × 100) when true. */
  percent?: boolean;
  /** Exact value or explanation on hover. */
  title?: string;
}

export type Cell = string | number | null | NumberCell;

/** A bootstrap summary as the session studies (probe, agent) write it: a mean and its 95% interval. */
interface MeanSummary {
  mean?: number | null;
  ci_lo?: number | null;
  ci_hi?: number | null;
}

/** The cell of a mean with its interval (empty when the summary is missing). */
export function meanCell(m: MeanSummary | undefined, digits: number): NumberCell {
  return { value: m?.mean ?? null, lo: m?.ci_lo ?? null, hi: m?.ci_hi ?? null, digits };
}

interface Column {
  label: string;
  numeric?: boolean;
  /** What the column means, on hover. */
  title?: string;
}

interface TableRow {
  cells: Cell[];
  /** The row's numbers come from a simulated controller (marked SIMULATED). */
  simulated?: boolean;
}

export interface DataTable {
  caption?: string;
  columns: Column[];
  rows: TableRow[];
  note?: string;
}

/** One point of a response curve: y at x, with an optional 95% band. */
export interface ResponsePoint {
  x: number;
  y: number | null;
  lo?: number | null;
  hi?: number | null;
}

export interface ResponseSeries {
  name: string;
  simulated: boolean;
  points: ResponsePoint[];
}

/**
 * An x–y chart of measured responses (the system identification's median action per command,
 * docs/protocol.md §3.11): lines through the points, bands where given, the ideal y = x dashed.
 */
export interface ResponsePanel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ResponseSeries[];
  /** Draw the ideal response y = x. */
  identity?: boolean;
}

export type Block =
  | { kind: 'heading'; text: string }
  | { kind: 'text'; text: string; tone?: 'note' | 'empty' }
  | { kind: 'table'; table: DataTable }
  | { kind: 'runs'; runs: RunInfo[] }
  | { kind: 'endpoint'; endpoint: EndpointTable; summary: AssaySummary | null }
  | { kind: 'curves'; panels: CurvePanel[]; controllers: ControllerInfo[] }
  | { kind: 'composition'; charts: CompositionChart[] }
  | { kind: 'budget-replay'; replay: BudgetReplay }
  | { kind: 'response-curves'; panels: ResponsePanel[] };

export interface Section {
  /** Stable id: the anchor in the report, the key in the viewer's URL. */
  id: string;
  title: string;
  /** A shorter name for the table of contents (default: the title). */
  tocLabel?: string;
  /** One plain-text paragraph under the title. */
  lead?: string;
  simulated: SimulatedMark;
  blocks: Block[];
}
