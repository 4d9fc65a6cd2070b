// The contract every study implements, so that `analyze`, `report`, `runs` and the viewer iterate
// over registered studies instead of naming each one. A study owns some run kinds (the `kind` of
// their plans), analyses its runs from the store, and presents the analysis three ways: terminal
// text, a JSON document, and sections of typed blocks for the report and the viewer.
import type { Family, PromptVariant } from '../../core/verify/types.ts';
import type { RunStore, RunSummary } from '../../store/store.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import type { ControllerInfo, DrilldownLabels, TrajectoryLabel } from './report-model.ts';
import type { Section } from './sections.ts';

/** Settings shared by every study's analysis. */
export interface StudyAnalysisOptions {
  /** Bootstrap resamples (0 switches intervals off). */
  bootstrap: number;
  seed: number;
  /** Largest revision cap for curves and budget replay (default: the runs' budget). */
  budget?: number;
  /** Landmark revision of the rescue regression. */
  landmark?: number;
  /** controller → panel assignments. */
  panels?: Record<string, string>;
  /** controller → model family assignments (the capture prediction's leave-one-family-out folds). */
  modelFamilies?: Record<string, string>;
  onProgress?: (p: { stage: string; done: number; total: number }) => void;
}

/** What the report's trajectory browser needs from a study with trajectories. */
export interface TrajectoryDrilldown {
  trajectories: readonly TrajectoryRecord[];
  controllers: ControllerInfo[];
  /** The prompt/feedback variant of a trajectory's run. */
  variantOf(t: TrajectoryRecord): PromptVariant;
  getFamily(name: string): Family;
  /** The browser's filter labels of one trajectory, and their display names. */
  label(t: TrajectoryRecord): TrajectoryLabel;
  labels: DrilldownLabels;
}

/** How terminal text is laid out. */
export interface TextOptions {
  /** Terminal columns to fit; undefined = as wide as the tables are. */
  width?: number;
}

/** One run as `revloop runs` lists it. */
export interface StudyRunRow {
  runId: string;
  kind: string;
  status: string;
  /** The model label. */
  controller: string;
  simulated: boolean;
  /** The study's own columns, in `runColumns` order. */
  cells: string[];
  /** The run in `runs --json`. */
  json: Record<string, unknown>;
}

export interface Study<A = unknown> {
  /** Stable id: the section ids' prefix, the key of its part of `analyze --json`. */
  readonly id: string;
  readonly title: string;
  /** The run kinds (plan `kind`) this study owns. */
  readonly kinds: readonly string[];
  /**
   * Where its JSON goes in `analyze --json`: under `id`, or (the revision study, whose schema
   * predates the registry) spread at the top level.
   */
  readonly json: 'keyed' | 'top-level';
  /** Analyses the given runs of this study (never empty: the caller passes only runs it owns). */
  analyze(store: RunStore, runIds: readonly string[], options: StudyAnalysisOptions): Promise<A>;
  /** Terminal tables; with `width`, fitted to that many columns (wrapped, and optional columns left out). */
  renderText(analysis: A, options?: TextOptions): string;
  /** The JSON document (strict: no NaN or infinities). */
  toJson(analysis: A): Record<string, unknown>;
  /** Report and viewer sections. */
  sections(analysis: A): Section[];
  /** Controllers whose numbers are simulations (named in summaries). */
  simulatedControllers(analysis: A): string[];
  /** Column labels of this study's runs table (after run, status and model). */
  readonly runColumns: readonly string[];
  /** Of those, the ones `revloop runs` may leave out to fit a narrow terminal, the first to go first. */
  readonly runColumnsOptional?: readonly string[];
  /** This study's runs as `revloop runs` lists them. */
  describeRuns(store: RunStore, runs: readonly RunSummary[]): Promise<StudyRunRow[]>;
  /** Footer notes for the report (what was excluded, and why). */
  notes?(analysis: A): string[];
  /** Trajectories for the report's browser, for studies that have them. */
  drilldown?(analysis: A): TrajectoryDrilldown | null;
}
