// What the viewer's API handlers share over one open store: the settings, the caches (run indexes,
// analyses) and the lookups every page makes (a run's summary, plan and row, its trajectory
// reader, its index) with the integrity gate in front of them: each run is checked against its
// events once, and a run that disagrees is refused unless the viewer was started to show it anyway.
import { NotFoundError, UserError } from '../../core/errors.ts';
import type { RunPlannedPayload } from '../../store/events.ts';
import { isTrajectoryPlan } from '../../store/plan.ts';
import type { RunStore, RunSummary } from '../../store/store.ts';
import type { Section } from '../../studies/kit/sections.ts';
import type { Study, TrajectoryReader } from '../../studies/kit/study.ts';
import { studyForKind } from '../../studies/registry.ts';
import type { ApiSection, RunRow } from '../../viewer/api.ts';
import { describeStoreRuns } from '../runs.ts';
import type { AnalysisWorker, RunAnalysis } from '../view-analysis.ts';
import type { SearchWorker } from '../view-search.ts';
import { IntegrityError, verifyRuns } from '../verified.ts';
import { Lru, refreshIndex, type RunIndex } from '../view-index.ts';
import { runRow } from './rows.ts';
import { VIEW_DEFAULTS } from '../defaults.ts';

export interface ViewApiOptions {
  /** Bootstrap resamples of the run pages' analyses (default `VIEW_DEFAULTS.bootstrap`, 2,000; 0 switches intervals off). */
  bootstrap?: number;
  /** The bootstrap seed (default `VIEW_DEFAULTS.seed`, the analysis's). */
  seed?: number;
  /** Trajectories whose index entries are kept, over all runs (default 200,000: a few tens of MB). */
  indexedTrajectories?: number;
  /** Run analyses kept (default 4). */
  analysedRuns?: number;
  /** Where analyses run: a worker thread (startViewer's choice), or this thread when absent. */
  worker?: AnalysisWorker;
  /** Where text searches run: a worker thread (startViewer's choice for SQLite), or this thread when absent. */
  search?: SearchWorker;
  /** Serve runs that disagree with their events (their responses say so); otherwise they are refused (409). */
  allowUnverified?: boolean;
  /** Where runs are checked against their events: a worker thread (startViewer's choice), or this thread when absent. */
  checker?: SearchWorker;
  /** Called once for each run found to disagree with its events (the CLI prints a line). */
  onUnverified?: (runId: string, problems: string[]) => void;
}

/** Rows per page when a request names no limit. */
export const DEFAULT_LIMIT = 100;

/** A run's analysis as a page shows it, kept for the run's state. */
interface Analysed {
  sections: Section[];
  notes: string[];
  html: string | null;
  /** The sections as the API sends them (snake_case keys), made once. */
  json?: ApiSection[];
}

/** The shared state and lookups of one viewer backend (viewerBackend makes one per store). */
export interface BackendState {
  readonly store: RunStore;
  readonly options: ViewApiOptions;
  /** Bootstrap resamples and seed of the run pages' analyses. */
  readonly bootstrap: number;
  readonly seed: number;
  /** Analyses by run and state (`runId\nlastEventId`), and those being made. */
  readonly analyses: Lru<string, Analysed>;
  readonly analysing: Map<string, Promise<RunAnalysis>>;
  /** Each checked run's problems (null: it agrees with its events). */
  readonly known: Map<string, string[] | null>;
  /** The run's check against its events, started on first use. */
  problemsOf(runId: string): Promise<string[] | null>;
  /** The run's problems when it may be served anyway; refuses a run that disagrees with its events otherwise. */
  admit(runId: string): Promise<string[] | undefined>;
  /** A run's summary now, without reading its plan (a paper-size plan is megabytes of JSON). */
  summaryOf(runId: string): Promise<RunSummary>;
  plannedOf(runId: string): Promise<RunPlannedPayload>;
  rowOf(summary: RunSummary): Promise<RunRow>;
  readerOf(runId: string, kind: string): { study: Study<any>; reader: TrajectoryReader };
  /** The run's index of trajectories, refreshed to its last event. */
  indexOf(runId: string): Promise<{ index: RunIndex; summary: RunSummary; reader: TrajectoryReader }>;
}

/** The state of a backend over `store`. */
export function backendState(store: RunStore, o: ViewApiOptions = {}): BackendState {
  const bootstrap = o.bootstrap ?? VIEW_DEFAULTS.bootstrap;
  const seed = o.seed ?? VIEW_DEFAULTS.seed;
  const indexes = new Lru<string, RunIndex>(o.indexedTrajectories ?? 200_000, (idx) => idx.entries.length);
  const analyses = new Lru<string, Analysed>(o.analysedRuns ?? 4);
  const refreshing = new Map<string, Promise<RunIndex>>();
  const analysing = new Map<string, Promise<RunAnalysis>>();

  // Each run is checked once, when it is first listed or asked for (in the checker's thread when there
  // is one). A listing never waits for a check: it shows what is known; a run's own pages wait for its.
  const checks = new Map<string, Promise<string[] | null>>();
  const known = new Map<string, string[] | null>();
  function problemsOf(runId: string): Promise<string[] | null> {
    let p = checks.get(runId);
    if (!p) {
      p = (
        o.checker
          ? o.checker.check(runId)
          : verifyRuns(store, [runId], { allowUnverified: true }).then((v) => v.unverified[0]?.problems ?? null)
      ).then((problems) => {
        known.set(runId, problems);
        if (problems) o.onUnverified?.(runId, problems);
        return problems;
      });
      p.catch(() => checks.delete(runId));
      checks.set(runId, p);
    }
    return p;
  }
  /** The run's problems when it may be served anyway; refuses a run that disagrees with its events otherwise. */
  async function admit(runId: string): Promise<string[] | undefined> {
    const problems = await problemsOf(runId);
    if (!problems) return undefined;
    if (!o.allowUnverified)
      throw new IntegrityError(
        `run '${runId}' disagrees with its own events (${problems[0]}); \`revloop audit --run ${runId}\` lists every discrepancy; start the viewer with --allow-unverified to see it anyway`,
        { unverified: [{ runId, problems }] },
      );
    return problems;
  }

  const notFound = (runId: string) =>
    new NotFoundError(`no run '${runId}' in ${store.location} (the run list at /api/runs names every run)`, { kind: 'run', target: runId });

  /** A run's summary now, without reading its plan (a paper-size plan is megabytes of JSON). */
  async function summaryOf(runId: string): Promise<RunSummary> {
    const [summary] = await store.listRuns([runId]);
    if (!summary) throw notFound(runId);
    return summary;
  }

  async function plannedOf(runId: string): Promise<RunPlannedPayload> {
    const planned = await store.getPlanned(runId);
    if (!planned) throw notFound(runId);
    return planned;
  }

  async function rowOf(summary: RunSummary): Promise<RunRow> {
    const unverified = await admit(summary.runId);
    const listing = await describeStoreRuns(store, [summary]);
    const described = [...listing.groups.flatMap((g) => g.runs), ...listing.unknown].find((r) => r.runId === summary.runId);
    return runRow(summary, described?.cells ?? [], unverified);
  }

  function readerOf(runId: string, kind: string): { study: Study<any>; reader: TrajectoryReader } {
    const study = studyForKind(kind);
    if (!study?.trajectories)
      throw new UserError(`run '${runId}' (kind ${kind}) has no trajectories to browse or compare; its results are on its run page`);
    return { study, reader: study.trajectories };
  }

  async function indexOf(runId: string): Promise<{ index: RunIndex; summary: RunSummary; reader: TrajectoryReader }> {
    const summary = await summaryOf(runId);
    const { reader } = readerOf(runId, summary.kind);
    let index = indexes.get(runId) ?? null;
    if (index?.through !== summary.lastEventId) {
      // One refresh per run at a time: a request arriving meanwhile waits for it instead of repeating it.
      const key = `${runId}\n${summary.lastEventId}`;
      let pending = refreshing.get(key);
      if (!pending) {
        const previous = index;
        pending = (async () => {
          const planned = await plannedOf(runId);
          if (!isTrajectoryPlan(planned.plan)) throw new UserError(`run '${runId}' has no trajectories`);
          const fresh = await refreshIndex(store, runId, planned, reader, summary.lastEventId, previous);
          indexes.set(runId, fresh);
          return fresh;
        })().finally(() => refreshing.delete(key));
        refreshing.set(key, pending);
      }
      index = await pending;
    }
    return { index, summary, reader };
  }

  return {
    store,
    options: o,
    bootstrap,
    seed,
    analyses,
    analysing,
    known,
    problemsOf,
    admit,
    summaryOf,
    plannedOf,
    rowOf,
    readerOf,
    indexOf,
  };
}
