// `view`: the live viewer's JSON API as typed functions over a read-only store, and the command
// that serves it (src/viewer/server.ts) with the static app. Nothing here writes to the store; a
// run being written meanwhile shows up through the event log (docs/viewer.md).
//
// One handler per route, in src/app/view/: runs-route.ts (the run list), run-route.ts (a run's
// page), trajectories-route.ts, trajectory-route.ts and compare-route.ts, over the state they share
// (backend-state.ts: settings, caches, lookups, the integrity gate). Memory stays bounded whatever
// the store's size: listings page through the derived tables, filters run over a compact per-run
// index (view-index.ts, a few fields per trajectory, for the most recently used runs only), one
// trajectory is reduced from its own events, and analyses are cached for a few runs.
import { stylesheet } from '../html/stylesheet.ts';
import { isPostgresLocation, openStore, type RunStore } from '../store/store.ts';
import type { ViewerBackend } from '../viewer/api.ts';
import { generateToken, isLoopbackHost, startViewerServer, type ViewerServerOptions } from '../viewer/server.ts';
import { VIEWER_SERVER_DEFAULTS } from '../viewer/defaults.ts';
import { AnalysisWorker } from './view-analysis.ts';
import { SearchWorker } from './view-search.ts';
import { backendState, type ViewApiOptions } from './view/backend-state.ts';
import { compareRuns } from './view/compare-route.ts';
import { liveEvent } from './view/rows.ts';
import { runPage } from './view/run-route.ts';
import { listRuns } from './view/runs-route.ts';
import { trajectoryList } from './view/trajectories-route.ts';
import { trajectoryPage } from './view/trajectory-route.ts';

export type { ViewApiOptions } from './view/backend-state.ts';
export { apiSections } from './view/rows.ts';

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

/** Starts the viewer on a store: opens it read-only, serves the app and the API until closed. */
export async function startViewer(o: ViewOptions): Promise<ViewerHandle> {
  const host = o.host ?? VIEWER_SERVER_DEFAULTS.host;
  const store = await openStore(o.store, { readonly: true });
  const worker = new AnalysisWorker(o.store);
  // SQLite works on the thread that asks: its searches go to a worker (PostgreSQL searches in its own process).
  const search = isPostgresLocation(o.store) ? undefined : new SearchWorker(o.store);
  // Checking a run hashes every event: in a worker of its own, so no request waits behind it; each run
  // is checked once, so the thread ends when it has checked every run asked for (its heap with it).
  const checker = new SearchWorker(o.store, { closeWhenIdle: true });
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

/** The viewer's API over an open store (the HTTP server calls these; tests and scripts may too). */
export function viewerBackend(store: RunStore, o: ViewApiOptions = {}): ViewerBackend {
  const state = backendState(store, o);
  return {
    location: store.location,
    runs: () => listRuns(state),
    run: (runId, options) => runPage(state, runId, options),
    trajectories: (runId, filter) => trajectoryList(state, runId, filter),
    trajectory: (runId, caseId, index) => trajectoryPage(state, runId, caseId, index),
    compare: (query) => compareRuns(state, query),
    async eventsAfter(cursor, limit) {
      return (await store.eventSummariesAfter(cursor, limit)).map(liveEvent);
    },
    async head() {
      return (await store.listRuns()).reduce((m, s) => Math.max(m, s.lastEventId), 0);
    },
    stylesheet,
  };
}
