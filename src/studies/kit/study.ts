// The contract every study implements, so that `analyze`, `report`, `runs` and the viewer iterate
// over registered studies instead of naming each one. A study owns some run kinds (the `kind` of
// their plans), analyses its runs from the store, and presents the analysis three ways: terminal
// text, a JSON document, and sections of typed blocks for the report and the viewer.
import type { Family, PromptVariant } from '../../core/verify/types.ts';
import type { AuditReplay } from '../../engine/audit.ts';
import type { RunPlannedPayload, TrajectoryRunPlanned } from '../../store/events.ts';
import type { RunStore, RunSummary } from '../../store/store.ts';
import type { RoundRecord, TrajectoryRecord } from '../../store/types.ts';
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

/** Which drafts of a trajectory repeat earlier ones (docs/protocol.md §3.2), for the viewer's timeline. */
export interface Recurrence {
  /** Each round's state id, in round order: equal ids are byte-identical drafts (numbered from 0 by first appearance). */
  states: number[];
  /** A complete failure's repeat class (terminal_fixed_point, terminal_cycle, other_repeat, no_repeat); else null. */
  repeatClass: string | null;
  /** 2, 3 or 4 for a terminal cycle, else 0. */
  cyclePeriod: number;
  /** The first revision with joint success, or null. */
  capture: number | null;
}

/** The verifier report of one round: the recorded text, or the family's rendering of the stored state. */
export type RoundReport = { text: string; recorded: boolean } | { error: string };

/**
 * How the viewer reads a study's trajectories one at a time — labels for its filters, the
 * recurrence markers and the texts of the timeline — without analysing a whole run.
 */
export interface TrajectoryReader {
  labels: DrilldownLabels;
  /** The filter labels of one trajectory (the same classifier as the report's browser). */
  label(t: TrajectoryRecord): TrajectoryLabel;
  recurrence(t: TrajectoryRecord): Recurrence;
  /**
   * The report after `round`: the text recorded with it (what the model received), otherwise the
   * family's feedback for the stored state under the run's prompt variant. Null for a success.
   */
  report(t: TrajectoryRecord, round: RoundRecord, planned: RunPlannedPayload): RoundReport | null;
  /** The trajectory's initial prompt under the run's prompt variant (throws when it cannot be rendered). */
  initialPrompt(t: TrajectoryRecord, planned: RunPlannedPayload): string;
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
  /** What the report's header calls this study's runs: "run", "experiment run", … (singular). */
  readonly runNoun: string;
  /**
   * How many runs its sections list (the report's header counts these, so the header and the
   * tables agree; a run with nothing to show yet, e.g. no finished trajectory, is not listed).
   */
  runsListed(analysis: A): number;
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
  /**
   * For studies whose trajectory runs send messages other than the verbatim protocol's: the
   * message policy (and ban provider) of a run, re-created from its plan, so `revloop audit` can
   * re-derive every request.
   */
  replay?(planned: TrajectoryRunPlanned): AuditReplay | null;
  /** Extra fields of a trajectory's row in `revloop export --format paper` (after the paper's own). */
  exportFields?(planned: TrajectoryRunPlanned, t: TrajectoryRecord): Record<string, unknown>;
  /** Reading single trajectories (the viewer), for studies that have them. */
  readonly trajectories?: TrajectoryReader;
}
