// Public API of the self-contained HTML report: trajectories + their analysis → one HTML file
// that needs no network. `revloop report` is a thin shell over `renderReport` and `writeReportFile`.
import { writeFileAtomicSync } from '../core/util/atomic-file.ts';
import type { AnalysisResult } from '../studies/revision/analysis/types.ts';
import type { RoundRecord, TrajectoryRecord } from '../store/types.ts';
import type { Family, PromptVariant } from '../core/verify/types.ts';
import { buildReportModel, drilldownLabels, labelTrajectory, type ReportModelOptions } from '../studies/revision/report-model.ts';
import type { ReportModel } from '../studies/kit/report-model.ts';
import { buildDrilldownPayload, type DrilldownPayload } from './payload.ts';
import { renderReportHtml, type ExtraSection } from './render.ts';

export type { ReportModel } from '../studies/kit/report-model.ts';
export type { DrilldownPayload } from './payload.ts';
export { renderReportHtml, type ExtraSection } from './render.ts';
export { buildReportModel, labelTrajectory } from '../studies/revision/report-model.ts';
export { buildDrilldownPayload } from './payload.ts';
export { encodeWordDiff, decodeWordDiff } from './word-diff.ts';
export { escapeHtml, jsonForScript } from './escape.ts';

export interface ReportOptions extends ReportModelOptions {
  /** Family lookup for verifier reports and prompts (normally `getFamily` from src/verify). */
  getFamily?: (name: string) => Family;
  /** The prompt/feedback variant a trajectory's run used (default: baseline). */
  variantOf?: (t: TrajectoryRecord) => PromptVariant;
  /** Per-pair diff limit in edited tokens (default 4,000); beyond it the drafts are shown whole. */
  maxDiffEditLength?: number;
  /** Sections appended after the built-in ones (the probe and agent studies: src/probe/study-sections.ts). */
  extraSections?: ExtraSection[];
  /** Progress of the drill-down data (trajectories done of total). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * The verifier report of a round: the text stored with the round when the engine recorded what it
 * sent (the exact message, whatever the harness), otherwise the family's `feedback()` of the stored
 * state under the run's variant (imported trajectories, and the final unsent report).
 */
function feedbackResolver(options: ReportOptions): ((t: TrajectoryRecord, r: RoundRecord) => string) | undefined {
  const lookup = familyLookup(options);
  if (!lookup) return undefined;
  return (t, r) => {
    if (typeof r.feedback === 'string') return r.feedback;
    return lookup(t.family).feedback(r.state, t.case, options.variantOf?.(t) ?? 'baseline');
  };
}

function familyLookup(options: ReportOptions): ((name: string) => Family) | undefined {
  const get = options.getFamily;
  if (!get) return undefined;
  const cache = new Map<string, Family | Error>();
  return (name) => {
    let f = cache.get(name);
    if (!f) {
      try {
        f = get(name);
      } catch (e) {
        f = e instanceof Error ? e : new Error(String(e));
      }
      cache.set(name, f);
    }
    if (f instanceof Error) throw f;
    return f;
  };
}

export function buildReport(
  trajectories: readonly TrajectoryRecord[],
  analysis: AnalysisResult,
  options: ReportOptions = {},
): { model: ReportModel; payload: DrilldownPayload } {
  const model = buildReportModel(trajectories, analysis, options);
  const lookup = familyLookup(options);
  const payload = buildDrilldownPayload(
    trajectories,
    model.controllers,
    {
      label: labelTrajectory,
      feedback: feedbackResolver(options),
      initialPrompt: lookup ? (t) => lookup(t.family).initialPrompt(t.case, options.variantOf?.(t) ?? 'baseline') : undefined,
      maxDiffEditLength: options.maxDiffEditLength,
      onProgress: options.onProgress,
    },
    drilldownLabels(),
  );
  return { model, payload };
}

/** The whole report page as a string. */
export function renderReport(trajectories: readonly TrajectoryRecord[], analysis: AnalysisResult, options: ReportOptions = {}): string {
  const { model, payload } = buildReport(trajectories, analysis, options);
  return renderReportHtml(model, payload, options.extraSections);
}

/** Writes the file atomically (temporary file in the same folder, fsync, rename): never a partial report. */
export function writeReportFile(path: string, html: string): void {
  writeFileAtomicSync(path, html, { fsync: true });
}
