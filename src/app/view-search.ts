// The viewer's store work that reads whole runs, off the main thread: text searches and the
// integrity check of a run (app/verified.ts). A search reads every accepted draft of a run (a run
// may hold drafts of megabytes), a check every event; and SQLite works synchronously on the thread
// that asks: on the server's own thread one search held every other request, the event streams
// included, until it ended (32.8 s for an 8 KB query against a 10 MB draft, issue 36). Here they run
// in a worker thread with its own read-only connection; a search is bounded in time: past the limit
// the caller gets a clear error at once and the worker is replaced (a search stuck in SQLite's C
// code ends there on its own).
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { RevloopError, UserError } from '../core/errors.ts';
import { openStore, type TrajectoryPage, type TrajectoryQuery } from '../store/store.ts';
import { verifyRuns } from './verified.ts';

/** How long a text search may take (ms) before its caller is told to search for something more specific. */
export const SEARCH_TIMEOUT_MS = 10_000;

/** A search (`query`), or the integrity check of a run (no query). */
interface Request {
  id: number;
  runId: string;
  query?: TrajectoryQuery;
}

/** A search's page, or a check's problems (null: the run agrees with its events). */
type Result = TrajectoryPage | string[] | null;

type Reply = { id: number; ok: true; result: Result } | { id: number; ok: false; message: string; user: boolean };

/** The worker's side: one search at a time over its own read-only connection. */
export async function serveSearches(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('serveSearches runs in a worker thread');
  const store = await openStore((workerData as { location: string }).location, { readonly: true });
  let queue = Promise.resolve();
  port.on('message', (req: Request) => {
    queue = queue.then(async () => {
      let reply: Reply;
      try {
        const result = req.query
          ? await store.trajectorySummaries(req.runId, req.query)
          : ((await verifyRuns(store, [req.runId], { allowUnverified: true })).unverified[0]?.problems ?? null);
        reply = { id: req.id, ok: true, result };
      } catch (e) {
        reply = { id: req.id, ok: false, message: (e as Error)?.message ?? String(e), user: RevloopError.isInstance(e) };
      }
      port.postMessage(reply);
    });
  });
  port.on('close', () => void store.close());
}

/**
 * The server's side: one worker thread, started on first use and replaced when a search overruns or
 * it dies. The viewer keeps one for searches and one for checks, so neither waits behind the other.
 */
export class SearchWorker {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<number, { resolve: (r: Result) => void; reject: (e: unknown) => void; timer?: NodeJS.Timeout }>();

  private readonly timeoutMs: number;
  private readonly closeWhenIdle: boolean;

  /**
   * `timeoutMs`: how long a search may run before its thread is replaced (SEARCH_TIMEOUT_MS).
   * `closeWhenIdle`: the thread ends when it has answered everything asked (started again on the next
   * request). The viewer's checker does: each run is checked once, and the heap the checks grew
   * would otherwise stay with the server for as long as it runs.
   */
  constructor(
    private readonly location: string,
    o: { timeoutMs?: number; closeWhenIdle?: boolean } = {},
  ) {
    this.timeoutMs = o.timeoutMs ?? SEARCH_TIMEOUT_MS;
    this.closeWhenIdle = o.closeWhenIdle ?? false;
  }

  /** Whether a thread is running (tests). */
  get running(): boolean {
    return this.worker !== null;
  }

  private start(): Worker {
    const worker = new Worker(new URL('./view-search-worker.mjs', import.meta.url), { workerData: { location: this.location } });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      clearTimeout(p.timer);
      if (reply.ok) p.resolve(reply.result);
      else p.reject(reply.user ? new UserError(reply.message) : new Error(reply.message));
      if (this.closeWhenIdle && this.pending.size === 0 && this.worker === worker) {
        this.worker = null;
        void worker.terminate();
      }
    });
    const fail = (e: unknown) => this.drop(worker, e);
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the search worker stopped (exit ${code})`)));
    return worker;
  }

  /** Forgets a worker: every search it still holds fails with `e`. */
  private drop(worker: Worker, e: unknown): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    this.pending.clear();
    void worker.terminate();
  }

  /** One page of a text search, or an error once it has run longer than the time limit. */
  search(runId: string, query: TrajectoryQuery): Promise<TrajectoryPage> {
    return this.ask(runId, query) as Promise<TrajectoryPage>;
  }

  /** The run's integrity problems (null: it agrees with its events); no time limit. */
  check(runId: string): Promise<string[] | null> {
    return this.ask(runId, undefined) as Promise<string[] | null>;
  }

  private ask(runId: string, query: TrajectoryQuery | undefined): Promise<Result> {
    this.worker ??= this.start();
    const id = this.next++;
    const worker = this.worker;
    return new Promise<Result>((resolve, reject) => {
      const timer = query
        ? setTimeout(
            () =>
              this.drop(
                worker,
                new UserError(
                  `the text search took longer than ${this.timeoutMs / 1000} s and was stopped; search for something more specific`,
                ),
              ),
            this.timeoutMs,
          )
        : undefined;
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, runId, query } satisfies Request);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    if (w) await w.terminate();
  }
}
