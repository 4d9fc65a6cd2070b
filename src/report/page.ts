// The report page: sections of analysed studies plus one trajectory browser (reportPage), the
// revision study's page for trajectories in hand (revisionReportPage, renderReport), and the atomic
// file writer. The public part is re-exported by report/index.ts.
import { writeFileAtomicSync } from '../core/util/atomic-file.ts';
import type { AnalysisResult } from '../studies/revision/analysis/analysis-types.ts';
import type { RoundRecord, TrajectoryRecord } from '../store/types.ts';
import type { Family } from '../core/verify/types.ts';
import { DEFAULT_REPORT_TITLE, type ControllerInfo } from '../studies/kit/report-model.ts';
import type { Study, TrajectoryDrilldown } from '../studies/kit/study.ts';
import { revisionStudy, type RevisionAnalysis } from '../studies/revision/study.ts';
import { buildDrilldownPayload, type DrilldownPayload } from './payload.ts';
import { renderReportPage, type ReportPage } from './render.ts';
import { formatCount } from '../core/util/count.ts';

/** Options of the trajectory browser's data. */
export interface DrilldownOptions {
  /** Per-pair diff limit in edited tokens (default 4,000); beyond it the drafts are shown whole. */
  maxDiffEditLength?: number;
  /** Progress of the drill-down data (trajectories done of total). */
  onRenderProgress?: (done: number, total: number) => void;
  /** Family lookup for verifier reports and prompts (default: each study's, i.e. the registry). */
  getFamily?: (name: string) => Family;
}

/** Caches a family lookup; an unknown family is remembered as its error. */
function cachedLookup(get: (name: string) => Family): (name: string) => Family {
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

/**
 * The browser's data for the trajectories of one or more studies. A round's verifier report is
 * the text stored with it when the engine recorded what it sent (the exact message, whatever the
 * harness), otherwise the family's `feedback()` of the stored state under the run's variant.
 */
function drilldownPayload(drilldowns: readonly TrajectoryDrilldown[], options: DrilldownOptions = {}): DrilldownPayload | null {
  if (!drilldowns.length) return null;
  const owner = new Map<TrajectoryRecord, TrajectoryDrilldown>();
  const controllers = new Map<string, ControllerInfo>();
  for (const d of drilldowns) {
    for (const t of d.trajectories) owner.set(t, d);
    for (const c of d.controllers) if (!controllers.has(c.name)) controllers.set(c.name, c);
  }
  const lookups = new Map(drilldowns.map((d) => [d, cachedLookup(options.getFamily ?? d.getFamily)]));
  const family = (t: TrajectoryRecord) => lookups.get(owner.get(t)!)!(t.family);
  const variant = (t: TrajectoryRecord) => owner.get(t)!.variantOf(t);
  return buildDrilldownPayload(
    [...owner.keys()],
    [...controllers.values()],
    {
      label: (t) => owner.get(t)!.label(t),
      feedback: (t: TrajectoryRecord, r: RoundRecord) =>
        typeof r.feedback === 'string' ? r.feedback : family(t).feedback(r.state, t.case, variant(t)),
      initialPrompt: (t) => family(t).initialPrompt(t.case, variant(t)),
      importedFrom: (t) => owner.get(t)!.importedFrom?.(t) ?? null,
      maxDiffEditLength: options.maxDiffEditLength,
      onProgress: options.onRenderProgress,
    },
    drilldowns[0].labels,
  );
}

/** "1 run", "3 experiment runs". */
function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** One analysed study for `reportPage`: the study, its analysis, and the runs it covers. */
export interface StudyResult {
  study: Study<any>;
  analysis: unknown;
  runIds: readonly string[];
}

/** The report page of analysed studies: their sections in registry order, and one trajectory browser. */
export function reportPage(
  results: readonly StudyResult[],
  options: DrilldownOptions & { title?: string; generatedAt?: string; notes?: string[]; warnings?: string[] } = {},
): ReportPage {
  const drilldowns = results.map((r) => r.study.drilldown?.(r.analysis) ?? null).filter((d): d is TrajectoryDrilldown => d !== null);
  const drilldown = drilldownPayload(drilldowns, options);
  const controllers = new Set<string>();
  for (const d of drilldowns) for (const c of d.controllers) controllers.add(c.name);
  const nTraj = drilldown?.trajectories.length ?? 0;
  // Each study's runs as its own tables list them ("3 runs · 4 experiment runs"), so the header
  // never counts a run that no table shows; runs left out (nothing to show yet) get a note.
  const meta: string[] = [];
  const unlisted: string[] = [];
  for (const r of results) {
    const listed = r.study.runsListed(r.analysis);
    meta.push(plural(listed, r.study.runNoun));
    if (listed < r.runIds.length) unlisted.push(plural(r.runIds.length - listed, r.study.runNoun));
  }
  if (!results.length) meta.push(plural(0, 'run'));
  if (drilldowns.length) meta.push(plural(controllers.size, 'controller'), `${formatCount(nTraj)} trajectories`);
  const notes = [...results.flatMap((r) => r.study.notes?.(r.analysis) ?? []), ...(options.notes ?? [])];
  if (unlisted.length)
    notes.push(`Not listed: ${unlisted.join(', ')} with nothing to report yet (no finished trajectory or score); revloop runs lists them.`);
  return {
    title: options.title ?? DEFAULT_REPORT_TITLE,
    generatedAt: options.generatedAt,
    meta,
    sections: results.flatMap((r) => r.study.sections(r.analysis)),
    drilldown,
    notes,
    ...(options.warnings?.length ? { warnings: options.warnings } : {}),
  };
}

/** Options of `renderReport` and `revisionReportPage`. */
export interface RevisionReportOptions extends DrilldownOptions {
  /** The page title (default "revloop report"). */
  title?: string;
  /** ISO timestamp shown in the header; omit it for byte-reproducible output. */
  generatedAt?: string;
  /** Facts about each run (run id → label → value), shown in the runs table. */
  runDetails?: Map<string, Record<string, string>>;
  /** The prompt variant of each run (run id → variant; default "baseline"). */
  variants?: RevisionAnalysis['variants'];
}

/**
 * The report page of revision trajectories already in hand and their analysis (from
 * `analyzeTrajectories`): the revision study's sections and the trajectory browser.
 */
export function revisionReportPage(
  trajectories: readonly TrajectoryRecord[],
  analysis: AnalysisResult,
  options: RevisionReportOptions = {},
): ReportPage {
  const revision: RevisionAnalysis = {
    trajectories: [...trajectories],
    variants: options.variants ?? new Map(),
    runDetails: options.runDetails ?? new Map(),
    result: analysis,
  };
  const runIds = [...new Set(trajectories.map((t) => t.runId))];
  return reportPage([{ study: revisionStudy, analysis: revision, runIds }], options);
}

/**
 * The report of revision trajectories already in hand and their analysis, as one self-contained
 * HTML string (pure: the same input gives the same bytes unless `generatedAt` is set).
 */
export function renderReport(
  trajectories: readonly TrajectoryRecord[],
  analysis: AnalysisResult,
  options: RevisionReportOptions = {},
): string {
  return renderReportPage(revisionReportPage(trajectories, analysis, options));
}

/** Writes the file atomically (temporary file in the same folder, fsync, rename): never a partial report. */
export function writeReportFile(path: string, html: string): void {
  writeFileAtomicSync(path, html, { fsync: true });
}
