// Worker threads for batch verification (batch.ts): each runs batch-worker.ts and verifies the chunks
// it is handed with verifyChunk, exactly as the main thread would. Started from the compiled
// package, the worker is dist/verify/batch-worker.js; started from the sources (tsx), it first
// registers tsx's loader, which a worker does not inherit, then imports batch-worker.ts.
import type { RequestOptions } from './input.ts';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { UserError, type ErrorCode } from '../errors.ts';
import type { ChunkResult } from './batch.ts';
import { familyNames } from './registry.ts';

/**
 * Threads worth using for a batch now: the CPU cores not already busy (cores minus the whole part of
 * the 1-minute load average; all cores where the system reports none, as on Windows), at least 1. A worker
 * thread pays its start-up and JIT warm-up (about 0.4 s of CPU) before it helps, which only a
 * core of its own repays: on a busy machine one thread finishes first (docs/verify.md, Speed).
 */
export function idleCores(): number {
  const cores = availableParallelism();
  const load = loadavg()[0];
  return Math.max(1, Math.min(cores, cores - Math.floor(load)));
}

/** A chunk of input lines as batch.ts hands it over. */
export interface WorkerChunk {
  seq: number;
  firstLine: number;
  lines: string[];
  /** Lines that are not UTF-8 (index into `lines`, problem), as the reader found them. */
  invalid?: Array<[number, string]>;
}

/** What a worker says (batch-worker.ts). */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'unusable'; missing: string[]; reason?: string }
  | { type: 'result'; seq: number; result: ChunkResult }
  | { type: 'fatal'; seq: number; message: string; /** The RevloopError code of a user error (null: a bug). */ code: ErrorCode | null };

/** The data a worker starts with: plugins to load, and the families it must end up with. */
export interface WorkerSetup {
  plugins: string[];
  families: string[];
  /** How bare rows become cases (the batch's RequestOptions, e.g. the IFEval mode). */
  request: RequestOptions;
}

export interface BatchWorkerHandlers {
  plugins: readonly string[];
  request: RequestOptions;
  /** The worker has loaded its families and takes chunks. */
  onReady(): void;
  onResult(seq: number, result: ChunkResult): void;
  /** The worker cannot verify what this thread can (a family registered here only); its chunks come back. */
  onUnusable(returned: WorkerChunk[]): void;
  onError(error: unknown): void;
}

export interface BatchWorker {
  readonly ready: boolean;
  /** Chunks handed over and not answered yet. */
  readonly pending: number;
  post(chunk: WorkerChunk): void;
  terminate(): Promise<void>;
}

function workerScript(): { script: string | URL; eval: boolean } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { script: new URL('./batch-worker.js', here), eval: false };
  const api = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./batch-worker.ts', here).href;
  return {
    script: `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    eval: true,
  };
}

export function startBatchWorker(h: BatchWorkerHandlers): BatchWorker {
  const { script, eval: isEval } = workerScript();
  const workerData: WorkerSetup = { plugins: [...h.plugins], families: familyNames(), request: h.request };
  const worker = new Worker(script, { eval: isEval, workerData });
  const pending = new Map<number, WorkerChunk>();
  let ready = false;
  let stopping = false;
  worker.on('message', (m: WorkerMessage) => {
    if (stopping) return;
    switch (m.type) {
      case 'ready':
        ready = true;
        h.onReady();
        break;
      case 'unusable':
        ready = false;
        stopping = true;
        h.onUnusable([...pending.values()]);
        pending.clear();
        break;
      case 'result':
        pending.delete(m.seq);
        h.onResult(m.seq, m.result);
        break;
      case 'fatal':
        stopping = true;
        h.onError(m.code ? new UserError(m.message, { code: m.code }) : new Error(m.message));
        break;
    }
  });
  worker.on('error', (e) => {
    if (!stopping) h.onError(e);
    stopping = true;
  });
  worker.on('exit', (code) => {
    if (!stopping) h.onError(new Error(`a verification worker thread stopped unexpectedly (exit code ${code})`));
    stopping = true;
  });
  return {
    get ready() {
      return ready && !stopping;
    },
    get pending() {
      return pending.size;
    },
    post(chunk) {
      pending.set(chunk.seq, chunk);
      worker.postMessage(chunk);
    },
    async terminate() {
      stopping = true;
      await worker.terminate();
    },
  };
}
