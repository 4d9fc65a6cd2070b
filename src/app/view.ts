// `view`: the live viewer's JSON API as typed functions over a read-only store, and the command
// that serves it (src/viewer/server.ts) with the static app. Nothing here writes to the store; a
// run being written meanwhile shows up through the event log (docs/viewer.md).
//
// Memory stays bounded whatever the store's size: listings page through the derived tables,
// filters run over a compact per-run index (view-index.ts, a few fields per trajectory, for the
// most recently used runs only), one trajectory is reduced from its own events, and analyses are
// cached for a few runs.
import { NotFoundError, UsageError, UserError } from '../core/errors.ts';
import { mcnemarExact } from '../core/stats/binomial.ts';
import { sectionHtml } from '../html/blocks.ts';
import { stylesheet } from '../html/stylesheet.ts';
import { encodeWordDiff } from '../html/word-diff.ts';
import type { RunPlannedPayload, StoredEvent, TrajectoryRunPlanned } from '../store/events.ts';
import { isTrajectoryPlan } from '../store/plan.ts';
import { applyTrajectoryEvent, initialTrajectory } from '../store/reduce.ts';
import { isPostgresLocation, openStore, type EventSummary, type RunStore, type RunSummary, type WorkerInfo } from '../store/store.ts';
import { simulatedMark, type Section, type SimulatedMark } from '../studies/kit/sections.ts';
import type { Study, TrajectoryReader } from '../studies/kit/study.ts';
import { studyForKind } from '../studies/registry.ts';
import { snakeKeys } from '../core/util/json-keys.ts';
import type {
  ApiSection,
  AttemptRow,
  CompareCell,
  CompareQuery,
  CompareResponse,
  CompareRow,
  LiveEvent,
  RunResponse,
  RunRow,
  RunsResponse,
  TimelineRound,
  TrajectoriesResponse,
  TrajectoryFilter,
  TrajectoryResponse,
  TrajectoryRow,
  ViewerBackend,
  WorkerRow,
} from '../viewer/api.ts';
import { generateToken, isLoopbackHost, startViewerServer, type ViewerServerOptions } from '../viewer/server.ts';
import { VIEWER_SERVER_DEFAULTS } from '../viewer/defaults.ts';
import { VIEW_DEFAULTS } from './defaults.ts';
import { describeStoreRuns } from './runs.ts';
import { AnalysisWorker, analyseRun, type RunAnalysis } from './view-analysis.ts';
import { SearchWorker } from './view-search.ts';
import { IntegrityError, verifyRuns } from './verified.ts';
import { summaryProblems } from '../store/integrity.ts';
import { facet, Lru, matchingCases, refreshIndex, type IndexEntry, type RunIndex } from './view-index.ts';

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

/** What `startViewer` takes: the store, the backend's options, and the server's (`ViewerServerOptions`). */
export interface ViewOptions extends ViewApiOptions, Pick<ViewerServerOptions, 'host' | 'port' | 'pollMs' | 'log' | 'maxStreams'> {
  store: string;
}

export interface ViewerHandle {
  url: string;
  host: string;
  port: number;
  /** The access token (non-loopback hosts only), to be shown once. */
  token: string | null;
  streams(): number;
  close(): Promise<void>;
}

const DEFAULT_LIMIT = 100;
const OUTCOMES = ['success', 'failure', 'incomplete', 'pending'];
const CELLS: CompareCell[] = ['both_success', 'a_only', 'b_only', 'both_failure', 'excluded'];

/** Starts the viewer on a store: opens it read-only, serves the app and the API until closed. */
export async function startViewer(o: ViewOptions): Promise<ViewerHandle> {
  const host = o.host ?? VIEWER_SERVER_DEFAULTS.host;
  const store = await openStore(o.store, { readonly: true });
  const worker = new AnalysisWorker(o.store);
  // SQLite works on the thread that asks: its searches go to a worker (PostgreSQL searches in its own process).
  const search = isPostgresLocation(o.store) ? undefined : new SearchWorker(o.store);
  // Checking a run hashes every event: in a worker of its own, so no request waits behind it.
  const checker = new SearchWorker(o.store);
  try {
    const backend = viewerBackend(store, { ...o, worker, search, checker });
    const server = await startViewerServer({
      backend,
      host,
      port: o.port,
      token: isLoopbackHost(host) ? null : generateToken(),
      pollMs: o.pollMs,
      log: o.log,
      maxStreams: o.maxStreams,
    });
    // Every run is checked from the start, in the checker's thread; the console hears of any that disagree.
    void backend.runs().catch(() => undefined);
    return {
      url: server.url,
      host: server.host,
      port: server.port,
      token: server.token,
      streams: server.streams,
      async close() {
        await server.close();
        await worker.close();
        await search?.close();
        await checker.close();
        await store.close();
      },
    };
  } catch (e) {
    await worker.close();
    await search?.close();
    await checker.close();
    await store.close();
    throw e;
  }
}

function runRow(s: RunSummary, cells: string[], unverified?: string[]): RunRow {
  const study = studyForKind(s.kind);
  const row: RunRow = {
    run_id: s.runId,
    kind: s.kind,
    study: study?.id ?? null,
    status: s.status,
    model: s.controller,
    model_spec: s.modelSpec,
    simulated: s.simulated,
    protocol: s.protocol,
    budget: s.budget,
    planned: s.cases,
    done: s.complete + s.incomplete,
    complete: s.complete,
    incomplete: s.incomplete,
    pending: s.pending,
    successes: s.successes,
    rounds: s.rounds,
    attempts: s.attempts,
    failed_attempts: s.failedAttempts,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    last_event_id: s.lastEventId,
    has_trajectories: s.cases > 0 && !!study?.trajectories,
    cells,
  };
  if (unverified) row.unverified = unverified;
  return row;
}

function workerRow(w: WorkerInfo): WorkerRow {
  return {
    worker: w.worker,
    name: w.name,
    state: w.stoppedAt ? 'stopped' : w.alive ? 'alive' : 'gone',
    heartbeat_at: w.heartbeatAt,
    concurrency: w.concurrency,
    lease_seconds: w.leaseSeconds,
    rejected_writes: w.rejectedWrites,
    leases: w.leases.map((l) => ({ run_id: l.runId, case_index: l.caseIndex, expires_at: l.expiresAt, expired: l.expired })),
    released: w.released.map((l) => ({ run_id: l.runId, case_index: l.caseIndex })),
  };
}

/** What a live page needs of an event: where it happened and its outcome, never a text. */
/** The stream's form of an event summary (the store reads it without parsing payloads). */
function liveEvent(e: EventSummary): LiveEvent {
  const out: LiveEvent = {
    id: e.id,
    run_id: e.runId,
    seq: e.seq,
    type: e.type,
    case_index: e.caseIndex,
    revision: e.revision,
    at: e.at,
  };
  if (e.joint !== undefined) out.joint = e.joint;
  if (e.stop !== undefined) out.stop = e.stop;
  if (e.ok !== undefined) out.ok = e.ok;
  if (e.errorKind !== undefined) out.error_kind = e.errorKind;
  return out;
}

function attemptRow(e: StoredEvent & { type: 'attempt_finished' }): AttemptRow {
  const r = e.payload.record;
  const n = (x: number | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return {
    revision: e.revision,
    attempt: e.payload.attempt,
    ok: r.ok,
    at: e.at,
    started_at: r.startedAt,
    latency_ms: r.latencyMs,
    status: r.status ?? null,
    finish_reason: r.finishReason ?? null,
    prompt_tokens: n(r.usage?.promptTokens),
    completion_tokens: n(r.usage?.completionTokens),
    total_tokens: n(r.usage?.totalTokens),
    error_kind: r.error?.kind ?? null,
    error: r.error?.message ?? null,
    retryable: r.error?.retryable ?? null,
  };
}

function finite(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

/** How much of a page is simulated: its sections' marks, or the run's own flag when it has none. */
function sectionsMark(sections: readonly Section[], runSimulated: boolean): SimulatedMark {
  if (!sections.length) return runSimulated ? 'all' : 'none';
  if (sections.every((s) => s.simulated === 'all')) return 'all';
  return sections.every((s) => s.simulated === 'none') ? 'none' : 'some';
}

interface Analysed {
  sections: Section[];
  notes: string[];
  html: string | null;
  /** The sections as the API sends them (snake_case keys), made once. */
  json?: ApiSection[];
}

/**
 * Sections with snake_case keys, as every other key of the API; until the next release each renamed
 * key also keeps its old camelCase name (`tocLabel`, …) for scripts written against it. A run's
 * `details` map keeps its own keys (they are names, not fields).
 */
export function apiSections(sections: readonly Section[]): ApiSection[] {
  return snakeKeys(sections, { dataMaps: ['details'], aliases: true });
}

/** The viewer's API over an open store (the HTTP server calls these; tests and scripts may too). */
export function viewerBackend(store: RunStore, o: ViewApiOptions = {}): ViewerBackend {
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
        [{ runId, problems }],
      );
    return problems;
  }

  const notFound = (runId: string) =>
    new NotFoundError('run', runId, `no run '${runId}' in ${store.location} (the run list at /api/runs names every run)`);

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

  function checkOutcome(outcome: string | undefined): void {
    if (outcome !== undefined && !OUTCOMES.includes(outcome))
      throw new UsageError('outcome', `outcome must be one of ${OUTCOMES.join(', ')} (got ${JSON.stringify(outcome)})`);
  }

  return {
    location: store.location,

    async runs(): Promise<RunsResponse> {
      const summaries = await store.listRuns();
      const listing = await describeStoreRuns(store, summaries);
      const cells = new Map([...listing.groups.flatMap((g) => g.runs), ...listing.unknown].map((r) => [r.runId, r.cells]));
      return {
        store: store.location,
        cursor: summaries.reduce((m, s) => Math.max(m, s.lastEventId), 0),
        studies: listing.groups.map((g) => ({ id: g.study, title: g.title, columns: g.columns })),
        runs: await Promise.all(
          summaries.map(async (s) => {
            void problemsOf(s.runId).catch(() => undefined); // started now, known for the next listing
            // Until the full check is known, the row's own columns are checked against the plan
            // event (one cached event): a forged model or SIMULATED flag is marked from the first listing.
            const planned = known.has(s.runId) ? null : await store.getPlanned(s.runId);
            const quick = planned ? summaryProblems(s, planned) : [];
            return runRow(s, cells.get(s.runId) ?? [], known.get(s.runId) ?? (quick.length ? quick : undefined));
          }),
        ),
        workers: listing.workers?.filter((w) => w.alive || w.leases.length || w.released.length).map(workerRow) ?? null,
      };
    },

    async run(runId, options): Promise<RunResponse> {
      const summary = await summaryOf(runId);
      const row = await rowOf(summary);
      const study = studyForKind(summary.kind);
      const key = `${runId}\n${summary.lastEventId}`;
      let a = analyses.get(key);
      if (!a) {
        if (study && summary.cases > 0 && summary.complete + summary.incomplete === 0)
          a = { sections: [], notes: ['no trajectory has finished yet: the analysis appears with the first one'], html: null };
        else {
          // The same run and state asked for twice meanwhile: one analysis.
          let pending = analysing.get(key);
          if (!pending) {
            const settings = { bootstrap, seed };
            pending = (
              o.worker ? o.worker.analyse(runId, summary.kind, settings) : analyseRun(store, runId, summary.kind, settings)
            ).finally(() => analysing.delete(key));
            analysing.set(key, pending);
          }
          a = { ...(await pending), html: null };
        }
        analyses.set(key, a);
      }
      if (options.html && a.html === null) a.html = a.sections.map(sectionHtml).join('\n');
      a.json ??= apiSections(a.sections);
      return {
        run: row,
        sections: a.json,
        ...(options.html ? { html: a.html ?? '' } : {}),
        notes: a.notes,
        simulated: sectionsMark(a.sections, summary.simulated),
        analysed_through: summary.lastEventId,
        bootstrap,
        seed,
      };
    },

    async trajectories(runId, f: TrajectoryFilter): Promise<TrajectoriesResponse> {
      checkOutcome(f.outcome);
      const unverified = await admit(runId);
      const { index, reader } = await indexOf(runId);
      const offset = f.offset ?? 0;
      const limit = f.limit ?? DEFAULT_LIMIT;
      const filtered =
        f.controller !== undefined || f.family !== undefined || f.source !== undefined || f.outcome !== undefined || f.label !== undefined;
      const matches = filtered ? matchingCases(index.entries, f) : null;
      let total: number;
      let summaries;
      if (f.q) {
        // Text search runs in the store (the drafts never come into memory), over the filter's matches.
        // In a worker thread where there is one (SQLite): a search over megabytes of drafts holds no other request.
        const query = { caseIndexes: matches ?? undefined, text: f.q, offset, limit };
        const page = o.search ? await o.search.search(runId, query) : await store.trajectorySummaries(runId, query);
        total = page.total;
        summaries = page.rows;
      } else if (matches) {
        total = matches.length;
        summaries = (await store.trajectorySummaries(runId, { caseIndexes: matches.slice(offset, offset + limit) })).rows;
      } else {
        total = index.entries.length;
        summaries = (await store.trajectorySummaries(runId, { offset, limit })).rows;
      }
      const rows: TrajectoryRow[] = summaries.map((s) => {
        const e = index.entries[s.caseIndex];
        return {
          case_index: s.caseIndex,
          case_id: s.caseId,
          controller: e.controller,
          family: e.family,
          source: e.source,
          status: s.status,
          outcome: e.outcome,
          repeat_class: e.repeatClass,
          category: e.category,
          rounds: s.rounds,
          final_joint: s.finalJoint,
          final_energy: finite(s.finalEnergy),
          attempts: s.attempts,
          incomplete_reason: s.incompleteReason,
        };
      });
      return {
        ...(unverified ? { unverified } : {}),
        run_id: runId,
        simulated: index.simulated,
        total,
        offset,
        limit,
        facets: {
          all: index.entries.length,
          controller: facet(index.entries, 'controller'),
          family: facet(index.entries, 'family'),
          source: facet(index.entries, 'source'),
          outcome: facet(index.entries, 'outcome'),
          label: facet(index.entries, 'label'),
        },
        labels: reader.labels,
        rows,
      };
    },

    async trajectory(runId, caseId, index): Promise<TrajectoryResponse> {
      const unverified = await admit(runId);
      const summary = await summaryOf(runId);
      const planned = await plannedOf(runId);
      const { reader } = readerOf(runId, summary.kind);
      if (!isTrajectoryPlan(planned.plan)) throw new UserError(`run '${runId}' has no trajectories`);
      const cases = planned.cases;
      let i: number;
      if (index !== undefined) {
        if (index >= cases.length)
          throw new NotFoundError('case', String(index), `run '${runId}' has ${cases.length} cases; no case index ${index}`);
        if (cases[index].id !== caseId)
          throw new NotFoundError('case', caseId, `case index ${index} of run '${runId}' is '${cases[index].id}', not '${caseId}'`);
        i = index;
      } else {
        const found = cases.flatMap((c, k) => (c.id === caseId ? [k] : []));
        if (!found.length) throw new NotFoundError('case', caseId, `run '${runId}' has no case '${caseId}'`);
        if (found.length > 1)
          throw new UsageError(
            'index',
            `case '${caseId}' names ${found.length} trajectories of run '${runId}' (several controllers); add ?index= one of ${found.join(', ')}`,
          );
        i = found[0];
      }
      // The trajectory's own events, reduced as the store reduces them: its rounds and every attempt.
      const events = await store.readEvents(runId, { caseIndex: i });
      const t = initialTrajectory(runId, planned as TrajectoryRunPlanned, i);
      const counts = { started: 0, finished: 0, failed: 0 };
      for (const e of events) applyTrajectoryEvent(t, counts, e);
      const rec = reader.recurrence(t);
      const label = reader.label(t);
      const n = t.rounds.length;
      const terminal = rec.repeatClass === 'terminal_fixed_point' ? 3 : rec.repeatClass === 'terminal_cycle' ? 2 * rec.cyclePeriod : 0;
      const rounds: TimelineRound[] = t.rounds.map((r, k) => {
        const report = reader.report(t, r, planned);
        const prev = k > 0 ? t.rounds[k - 1].text : null;
        const first = rec.states.indexOf(rec.states[k]);
        return {
          revision: r.revision,
          text: r.text,
          joint: r.joint,
          energy: finite(r.energy),
          state: r.state as unknown as Record<string, unknown>,
          report: report && 'text' in report ? report.text : null,
          report_source: report && 'text' in report ? (report.recorded ? 'recorded' : 'rendered') : null,
          report_sent: !!report && 'text' in report && k + 1 < n,
          report_error: report && 'error' in report ? report.error : null,
          diff: prev === null || prev === r.text ? null : encodeWordDiff(prev, r.text),
          state_id: rec.states[k],
          repeat_of: first < k ? t.rounds[first].revision : null,
          in_terminal_repeat: terminal > 0 && k >= n - terminal,
        };
      });
      let prompt: string | null = null;
      let promptError: string | null = null;
      try {
        prompt = reader.initialPrompt(t, planned);
      } catch (e) {
        promptError = `initial prompt unavailable: ${(e as Error).message}`;
      }
      const origin = reader.origin(planned);
      return {
        ...(unverified ? { unverified } : {}),
        run_id: runId,
        case_index: i,
        case_id: t.caseId,
        family: t.family,
        source: t.source,
        controller: t.controller,
        simulated: t.simulated,
        status: t.status,
        incomplete_reason: t.incompleteReason ?? null,
        budget: t.budget,
        case: t.case as unknown as Record<string, unknown>,
        imported: origin.imported,
        import_format: origin.imported ? origin.format : null,
        prompt,
        prompt_error: promptError,
        label: { outcome: t.status === 'pending' ? 'pending' : label.outcome, repeat_class: label.repeatClass, category: label.category },
        recurrence: { repeat_class: rec.repeatClass, cycle_period: rec.cyclePeriod, capture: rec.capture, states: rec.states },
        rounds,
        attempts: events.filter((e): e is StoredEvent & { type: 'attempt_finished' } => e.type === 'attempt_finished').map(attemptRow),
        cases: cases.length,
      };
    },

    async compare(q: CompareQuery): Promise<CompareResponse> {
      if (q.a === q.b) throw new UsageError('b', `compare needs two different runs (both are '${q.a}')`);
      if (q.cell !== undefined && !CELLS.includes(q.cell as CompareCell))
        throw new UsageError('cell', `cell must be one of ${CELLS.join(', ')} (got ${JSON.stringify(q.cell)})`);
      const A = await indexOf(q.a);
      const B = await indexOf(q.b);
      const byId = (idx: RunIndex): Map<string, number> => {
        const m = new Map<string, number>();
        idx.entries.forEach((e, i) => {
          if (m.has(e.caseId))
            throw new UserError(
              `run '${idx.runId}' holds several trajectories of case '${e.caseId}' (several controllers); compare pairs one trajectory per case id`,
            );
          m.set(e.caseId, i);
        });
        return m;
      };
      const aIds = byId(A.index);
      const bIds = byId(B.index);
      const success = (e: IndexEntry) => e.outcome === 'success';
      const complete = (e: IndexEntry) => e.outcome === 'success' || e.outcome === 'failure';
      const cellOf = (ea: IndexEntry, eb: IndexEntry): CompareCell =>
        !complete(ea) || !complete(eb)
          ? 'excluded'
          : success(ea)
            ? success(eb)
              ? 'both_success'
              : 'a_only'
            : success(eb)
              ? 'b_only'
              : 'both_failure';
      const empty = () => ({ both_success: 0, a_only: 0, b_only: 0, both_failure: 0 });
      const cells = empty();
      const fam = new Map<string, { cells: ReturnType<typeof empty>; excluded: number }>();
      const pairs: Array<{ ia: number; ib: number; cell: CompareCell }> = [];
      let excluded = 0;
      for (const [id, ia] of aIds) {
        const ib = bIds.get(id);
        if (ib === undefined) continue;
        const ea = A.index.entries[ia];
        const cell = cellOf(ea, B.index.entries[ib]);
        pairs.push({ ia, ib, cell });
        let f = fam.get(ea.family);
        if (!f) fam.set(ea.family, (f = { cells: empty(), excluded: 0 }));
        if (cell === 'excluded') {
          excluded++;
          f.excluded++;
        } else {
          cells[cell]++;
          f.cells[cell]++;
        }
      }
      const offset = q.offset ?? 0;
      const limit = q.limit ?? DEFAULT_LIMIT;
      const selected = pairs.filter(
        (p) => (q.cell === undefined || p.cell === q.cell) && (q.family === undefined || A.index.entries[p.ia].family === q.family),
      );
      const page = selected.slice(offset, offset + limit);
      const energies = async (runId: string, ixs: number[]) =>
        new Map((await store.trajectorySummaries(runId, { caseIndexes: ixs })).rows.map((r) => [r.caseIndex, finite(r.finalEnergy)]));
      const ea = await energies(
        q.a,
        page.map((p) => p.ia),
      );
      const eb = await energies(
        q.b,
        page.map((p) => p.ib),
      );
      const side = (e: IndexEntry, i: number, energy: Map<number, number | null>) => ({
        case_index: i,
        outcome: e.outcome,
        repeat_class: e.repeatClass,
        category: e.category,
        rounds: Math.max(0, e.rounds),
        final_energy: energy.get(i) ?? null,
      });
      const rows: CompareRow[] = page.map((p) => {
        const e = A.index.entries[p.ia];
        return {
          case_id: e.caseId,
          family: e.family,
          source: e.source,
          cell: p.cell,
          a: side(e, p.ia, ea),
          b: side(B.index.entries[p.ib], p.ib, eb),
        };
      });
      return {
        a: await rowOf(A.summary),
        b: await rowOf(B.summary),
        paired: pairs.length,
        only_a: aIds.size - pairs.length,
        only_b: bIds.size - pairs.length,
        excluded,
        cells,
        mcnemar: {
          discordant: cells.a_only + cells.b_only,
          p: mcnemarExact(cells.a_only, cells.b_only),
          method: 'exact McNemar: two-sided binomial test on the discordant pairs (docs/protocol.md §4.2)',
        },
        families: [...fam.entries()].map(([family, f]) => ({
          family,
          cells: f.cells,
          excluded: f.excluded,
          p: mcnemarExact(f.cells.a_only, f.cells.b_only),
        })),
        simulated: simulatedMark([A.summary.simulated, B.summary.simulated]),
        labels: A.reader.labels,
        total: selected.length,
        offset,
        limit,
        rows,
      };
    },

    async eventsAfter(cursor, limit) {
      return (await store.eventSummariesAfter(cursor, limit)).map(liveEvent);
    },

    async head() {
      return (await store.listRuns()).reduce((m, s) => Math.max(m, s.lastEventId), 0);
    },

    stylesheet,
  };
}
