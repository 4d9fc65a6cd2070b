// One run's analysis as sections, for the viewer's run pages. An analysis can take seconds (tens on
// a run of tens of thousands of trajectories), so the viewer runs it in a worker thread with its own
// read-only store connection: the event stream and every other request keep being answered
// meanwhile. `analyseRun` is the work itself (also called in-process where no worker is wanted).
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { RevloopError, UserError } from '../core/errors.ts';
import { openStore, type RunStore } from '../store/store.ts';
import type { Section } from '../studies/kit/sections.ts';
import { studyForKind } from '../studies/registry.ts';

export interface RunAnalysis {
  sections: Section[];
  notes: string[];
}

export interface AnalysisSettings {
  bootstrap: number;
  seed: number;
}

/** The run's analysis by its study, as sections and notes. */
export async function analyseRun(store: RunStore, runId: string, kind: string, o: AnalysisSettings): Promise<RunAnalysis> {
  const study = studyForKind(kind);
  if (!study) return { sections: [], notes: [`no registered study owns runs of kind ${kind}`] };
  const analysis = await study.analyze(store, [runId], { bootstrap: o.bootstrap, seed: o.seed });
  return { sections: study.sections(analysis), notes: study.notes?.(analysis) ?? [] };
}

interface Request extends AnalysisSettings {
  id: number;
  runId: string;
  kind: string;
}

type Reply = { id: number; ok: true; result: RunAnalysis } | { id: number; ok: false; message: string; user: boolean };

/** The worker's side: answers analysis requests, one at a time, over its own read-only connection. */
export async function serveAnalyses(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('serveAnalyses runs in a worker thread');
  const store = await openStore((workerData as { location: string }).location, { readonly: true });
  let queue = Promise.resolve();
  port.on('message', (req: Request) => {
    queue = queue.then(async () => {
      let reply: Reply;
      try {
        reply = { id: req.id, ok: true, result: await analyseRun(store, req.runId, req.kind, req) };
      } catch (e) {
        reply = { id: req.id, ok: false, message: (e as Error)?.message ?? String(e), user: RevloopError.isInstance(e) };
      }
      port.postMessage(reply);
    });
  });
  port.on('close', () => void store.close());
}

/** The server's side: one worker thread, started on first use and restarted if it dies. */
export class AnalysisWorker {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<number, { resolve: (r: RunAnalysis) => void; reject: (e: unknown) => void }>();

  /** `location`: the store as given to openStore (the worker opens its own connection). */
  constructor(private readonly location: string) {}

  private start(): Worker {
    const worker = new Worker(new URL('./view-analysis-worker.mjs', import.meta.url), { workerData: { location: this.location } });
    worker.on('message', (reply: Reply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.result);
      else p.reject(reply.user ? new UserError(reply.message) : new Error(reply.message));
    });
    const fail = (e: unknown) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the analysis worker stopped (exit ${code})`)));
    return worker;
  }

  analyse(runId: string, kind: string, o: AnalysisSettings): Promise<RunAnalysis> {
    this.worker ??= this.start();
    const id = this.next++;
    const worker = this.worker;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, runId, kind, bootstrap: o.bootstrap, seed: o.seed } satisfies Request);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
