// The viewer's text search off the main thread. A search reads every accepted draft of a run (a run
// may hold drafts of megabytes), and SQLite works synchronously on the thread that asks: on the
// server's own thread one search held every other request, the event streams included, until it
// ended (32.8 s for an 8 KB query against a 10 MB draft, issue 36). Here it runs in a worker thread
// with its own read-only connection, bounded in time: past the limit the caller gets a clear error
// at once and the worker is replaced (a search stuck in SQLite's C code ends there on its own).
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { isRevloopError, UserError } from '../core/errors.ts';
import { openStore, type TrajectoryPage, type TrajectoryQuery } from '../store/store.ts';

/** How long a text search may take (ms) before its caller is told to search for something more specific. */
export const SEARCH_TIMEOUT_MS = 10_000;

interface Request {
  id: number;
  runId: string;
  query: TrajectoryQuery;
}

type Reply = { id: number; ok: true; page: TrajectoryPage } | { id: number; ok: false; message: string; user: boolean };

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
        reply = { id: req.id, ok: true, page: await store.trajectorySummaries(req.runId, req.query) };
      } catch (e) {
        reply = { id: req.id, ok: false, message: (e as Error)?.message ?? String(e), user: isRevloopError(e) };
      }
      port.postMessage(reply);
    });
  });
  port.on('close', () => void store.close());
}

/** The server's side: one search worker, started on first use and replaced when a search overruns or it dies. */
export class SearchWorker {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<
    number,
    { resolve: (p: TrajectoryPage) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly location: string,
    private readonly timeoutMs = SEARCH_TIMEOUT_MS,
  ) {}

  private start(): Worker {
    const worker = new Worker(new URL('./view-search-worker.mjs', import.meta.url), { workerData: { location: this.location } });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      clearTimeout(p.timer);
      if (reply.ok) p.resolve(reply.page);
      else p.reject(reply.user ? new UserError(reply.message) : new Error(reply.message));
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

  search(runId: string, query: TrajectoryQuery): Promise<TrajectoryPage> {
    this.worker ??= this.start();
    const id = this.next++;
    const worker = this.worker;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.drop(
            worker,
            new UserError(
              `the text search took longer than ${this.timeoutMs / 1000} s and was stopped; search for something more specific`,
            ),
          ),
        this.timeoutMs,
      );
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
