// Batch verification: a JSON Lines stream in, one JSON line out per input line, in input order,
// streaming (the input is never held in memory). A bad line yields `{"id", "line", "error"}` and the
// batch goes on; the caller decides the exit status from the summary.
//
// Lines are verified in chunks (CHUNK_LINES lines, or whatever the input has delivered so far), by
// this thread and, with `jobs` > 1, by `jobs` − 1 worker threads (batch-worker.ts) started once the
// input proves longer than one chunk. Every chunk carries its sequence number and results are written
// strictly in that order, so the output is byte-identical for any number of jobs. Backpressure holds
// at both ends: the input is read only while fewer than QUEUE_PER_JOB × jobs chunks are waiting,
// running or written-but-unflushed, and nothing more is written while the output asks to drain.
import { once } from 'node:events';
import { createWriteStream, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { outputTarget, releaseTempFile, requireOutputFolder, tempPathFor, trackTempFile } from '../util/atomic-file.ts';
import { UserError } from '../errors.ts';
import { readLineBlocks } from '../util/jsonl.ts';
import { pyJsonDumps, pyStrip } from '../py/format.ts';
import { startBatchWorker, type BatchWorker } from './batch-threads.ts';
import { caseFromRequest, type RequestOptions, type VerifyRequest } from './input.ts';
import { verifyRecord } from './records.ts';

/** Options of `verifyBatch`: progress reporting and how each line's request is read. */
export interface BatchOptions {
  /** Called every `progressEvery` lines (at chunk ends) with the lines done so far and the input bytes read. */
  onProgress?: (done: number, failed: number, bytesRead: number) => void;
  progressEvery?: number;
  /** How bare rows become cases (e.g. the IFEval mode for rows that do not set one); workers get it too. */
  request?: RequestOptions;
  /**
   * Threads that verify: 1 (the default) verifies on this thread only; N > 1 adds N − 1 worker threads
   * once the input reaches `workersFrom` bytes. The output is the same for every value.
   */
  jobs?: number;
  /**
   * Input size from which worker threads start (default 2 MiB, about 2,000 long model outputs): each
   * worker costs about as much CPU to start and warm up as this thread spends on that much input.
   * A file at least this large starts them before the first line is read.
   */
  workersFrom?: number;
  /**
   * Modules that register families (as `--plugin` takes them), loaded in every worker thread. Families
   * registered in this thread by other means cannot reach workers: the batch then runs on this thread.
   */
  plugins?: readonly string[];
  /** Called as each chunk is written: its sequence number and the thread that verified it (0 = this thread, 1… = workers). */
  onChunk?: (seq: number, thread: number) => void;
}

/** Counts of a batch: lines read, verified, and failed (a failed line gets an error record, never a state). */
export interface BatchSummary {
  lines: number;
  verified: number;
  failed: number;
}

/** Lines per chunk: large enough to amortise a thread hand-over, small enough to balance the threads. */
export const CHUNK_LINES = 256;
const QUEUE_PER_JOB = 4;

/** Verifies one parsed input line; returns the output record. */
function verifyLine(value: unknown, line: number, request: RequestOptions = {}): { record: Record<string, unknown>; ok: boolean } {
  const fail = (id: unknown, error: string) => ({ record: { id: id ?? null, line, error }, ok: false });
  if (!value || typeof value !== 'object' || Array.isArray(value)) return fail(null, 'expected a JSON object');
  const req = value as VerifyRequest;
  const id = req.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number')
    return fail(null, 'id: must be a string or a number');
  if (typeof req.text !== 'string') return fail(id, `text: must be a string, got ${req.text === undefined ? 'nothing' : typeof req.text}`);
  const built = caseFromRequest(req, request);
  if (!built.ok) return fail(id, built.problems.map(([f, p]) => `${f}: ${p}`).join('; '));
  try {
    // The protocol verifies the stripped text (Python str.strip()).
    const state = built.family.verify(pyStrip(req.text), built.case);
    return { record: verifyRecord(id, state), ok: true };
  } catch (e) {
    // An environment problem (e.g. no Punkt parameters) is not this line's fault: stop the batch.
    if (e instanceof UserError) throw e;
    return fail(id, `verification failed: ${(e as Error).message}`);
  }
}

/** What a chunk of input lines turned into. */
export interface ChunkResult {
  /** The output lines, each ending in "\n". */
  out: string;
  lines: number;
  verified: number;
  failed: number;
}

/** Verifies raw input lines numbered from `firstLine` (blank lines are skipped but counted). */
export function verifyChunk(lines: readonly string[], firstLine: number, request: RequestOptions = {}): ChunkResult {
  let out = '';
  let count = 0;
  let verified = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    count++;
    const line = firstLine + i;
    let value: unknown;
    let result: { record: Record<string, unknown>; ok: boolean } | null = null;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      result = { record: { id: null, line, error: `invalid JSON (${(e as Error).message})` }, ok: false };
    }
    result ??= verifyLine(value, line, request);
    if (result.ok) verified++;
    out += pyJsonDumps(result.record) + '\n';
  }
  return { out, lines: count, verified, failed: count - verified };
}

interface Chunk {
  seq: number;
  firstLine: number;
  lines: string[];
}

/** Verifies a JSON Lines stream (or file) into one JSON line per input line, in input order, streaming with backpressure; `jobs` > 1 adds worker threads. */
export async function verifyBatch(input: string | Readable, output: Writable, options: BatchOptions = {}): Promise<BatchSummary> {
  const run = new BatchRun(output, options);
  try {
    if (typeof input === 'string') run.knownSize(statSync(input).size);
    for await (const block of readLineBlocks(input)) {
      run.bytesRead = block.bytesRead;
      for (let i = 0; i < block.lines.length; i += CHUNK_LINES) {
        await run.room();
        run.submit(block.firstLine + i, block.lines.slice(i, i + CHUNK_LINES));
      }
    }
    return await run.finish();
  } finally {
    await run.close();
  }
}

/** One batch in flight: the chunk queue, the threads, and the ordered writer. */
class BatchRun {
  readonly summary: BatchSummary = { lines: 0, verified: 0, failed: 0 };
  bytesRead = 0;
  private readonly jobs: number;
  private readonly every: number;
  private nextReport: number;
  private nextSeq = 0;
  private nextToWrite = 0;
  private readonly queue: Chunk[] = [];
  private readonly done = new Map<number, ChunkResult & { thread: number }>();
  private inFlight = 0;
  private mainBusy = false;
  private draining = false;
  private failure: unknown = null;
  private waiter: (() => void) | null = null;
  private workers: BatchWorker[] = [];
  private workersStarted = false;
  private readonly workersFrom: number;
  private readonly onOutputError = (e: unknown): void => this.fail(e);

  constructor(
    private readonly output: Writable,
    private readonly options: BatchOptions,
  ) {
    this.jobs = Math.max(1, Math.floor(options.jobs ?? 1));
    this.every = options.progressEvery ?? 1000;
    this.workersFrom = options.workersFrom ?? 2 << 20;
    this.nextReport = this.every;
    // A closed pipe (EPIPE) or a failing disk surfaces here; the batch stops and rethrows it.
    output.on('error', this.onOutputError);
  }

  /** Resolves when the input may be read further (or throws the batch's failure). */
  async room(): Promise<void> {
    const limit = QUEUE_PER_JOB * this.jobs;
    while (this.failure === null && this.queue.length + this.inFlight + this.done.size + (this.mainBusy ? 1 : 0) >= limit)
      await this.wait();
    if (this.failure !== null) throw this.failure;
  }

  /** The input's size, when known before reading (a file): a large one starts the workers now. */
  knownSize(bytes: number): void {
    if (this.jobs > 1 && bytes >= this.workersFrom) this.startWorkers();
  }

  submit(firstLine: number, lines: string[]): void {
    this.queue.push({ seq: this.nextSeq++, firstLine, lines });
    if (this.jobs > 1 && !this.workersStarted && this.bytesRead >= this.workersFrom) this.startWorkers();
    this.pump();
  }

  /** Waits for every chunk to be verified and written. */
  async finish(): Promise<BatchSummary> {
    while (this.failure === null && this.nextToWrite < this.nextSeq) await this.wait();
    while (this.failure === null && this.draining) await this.wait();
    if (this.failure !== null) throw this.failure;
    return this.summary;
  }

  async close(): Promise<void> {
    this.output.off('error', this.onOutputError);
    // Keep a late error of an already failed output (a write still in flight) from crashing the process.
    if (this.failure !== null) this.output.on('error', () => {});
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => (this.waiter = resolve));
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  private fail(e: unknown): void {
    if (this.failure === null) this.failure = e ?? new Error('batch failed');
    this.wake();
  }

  private startWorkers(): void {
    if (this.workersStarted) return;
    this.workersStarted = true;
    for (let i = 1; i < this.jobs; i++) {
      const thread = i;
      const worker = startBatchWorker({
        plugins: this.options.plugins ?? [],
        request: this.options.request ?? {},
        onReady: () => this.pump(),
        onResult: (seq, result) => {
          this.inFlight--;
          this.complete(seq, result, thread);
        },
        // The worker lacks a family this thread has: keep its chunks here, on this thread.
        onUnusable: (returned) => {
          this.workers = this.workers.filter((w) => w !== worker);
          this.inFlight -= returned.length;
          this.queue.unshift(...(returned as Chunk[]));
          this.queue.sort((a, b) => a.seq - b.seq);
          void worker.terminate();
          this.pump();
        },
        onError: (e) => this.fail(e),
      });
      this.workers.push(worker);
    }
  }

  /** Hands queued chunks to idle workers first, then verifies one on this thread (in a later turn). */
  private pump(): void {
    if (this.failure !== null) return;
    for (const w of this.workers) {
      while (w.ready && w.pending < 2 && this.queue.length > 0) {
        const c = this.queue.shift()!;
        this.inFlight++;
        w.post(c);
      }
    }
    if (this.queue.length > 0 && !this.mainBusy) {
      this.mainBusy = true;
      setImmediate(() => {
        this.mainBusy = false;
        if (this.failure !== null) return;
        const c = this.queue.shift();
        if (c) {
          try {
            this.complete(c.seq, verifyChunk(c.lines, c.firstLine, this.options.request), 0);
          } catch (e) {
            this.fail(e);
            return;
          }
        }
        this.pump();
      });
    }
  }

  private complete(seq: number, result: ChunkResult, thread: number): void {
    this.done.set(seq, { ...result, thread });
    this.flush();
    this.pump();
    this.wake();
  }

  /** Writes finished chunks in sequence order while the output accepts them. */
  private flush(): void {
    while (!this.draining && this.failure === null && this.done.has(this.nextToWrite)) {
      const r = this.done.get(this.nextToWrite)!;
      this.done.delete(this.nextToWrite);
      this.options.onChunk?.(this.nextToWrite, r.thread);
      this.nextToWrite++;
      this.summary.lines += r.lines;
      this.summary.verified += r.verified;
      this.summary.failed += r.failed;
      if (r.out !== '' && !this.output.write(r.out)) {
        this.draining = true;
        this.output.once('drain', () => {
          this.draining = false;
          this.flush();
          this.wake();
        });
      }
      if (this.options.onProgress && this.summary.lines >= this.nextReport) {
        this.options.onProgress(this.summary.lines, this.summary.failed, this.bytesRead);
        this.nextReport = (Math.floor(this.summary.lines / this.every) + 1) * this.every;
      }
    }
  }
}

/**
 * Batch verification into a file, atomically: results go to a temporary file next to the target
 * (a symbolic link's file), which is renamed over it only when the whole input has been read. On any
 * exception the temporary file is removed and nothing appears. Devices, pipes and paths in /dev or
 * /proc are written in place (outputTarget).
 */
export async function verifyBatchToFile(input: string | Readable, outPath: string, options: BatchOptions = {}): Promise<BatchSummary> {
  requireOutputFolder(outPath);
  const { path: file, inPlace } = outputTarget(outPath);
  const tmp = inPlace ? file : tempPathFor(file);
  if (!inPlace) trackTempFile(tmp);
  // A large buffer: each chunk's output is written in one piece, without waiting for 'drain' between chunks.
  const out = createWriteStream(tmp, { flags: inPlace ? 'w' : 'wx', highWaterMark: 1 << 20 });
  // Write errors surface through verifyBatch and the awaited 'open' / 'finish'; this keeps a late error
  // from a destroyed stream (a write still in flight) from crashing the process.
  out.on('error', () => {});
  try {
    await once(out, 'open');
    const summary = await verifyBatch(input, out, options);
    out.end();
    await once(out, 'finish');
    if (!inPlace) await rename(tmp, file);
    return summary;
  } catch (e) {
    if (!out.closed) {
      // Not events.once: it would reject on the 'error' a destroyed in-flight write emits.
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      out.destroy();
      await closed;
    }
    if (!inPlace) await rm(tmp, { force: true });
    throw e;
  } finally {
    if (!inPlace) releaseTempFile(tmp);
  }
}
