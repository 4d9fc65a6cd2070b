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
//
// Each row's text is verified as its family's text rule says (text-rule.ts: stripped for the paper's
// families, as given for COLLIE's other structures and IFEval), unless RequestOptions.textRule sets one.
// The input's bytes are checked as they are read (line-blocks.ts); a string holding a NUL character
// or a lone surrogate (which only a JSON escape can put there) fails its line (rowStringProblem).
import { once } from 'node:events';
import { closeSync, createWriteStream, openSync, statSync, writeSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { outputTarget, releaseTempFile, requireOutputFolder, tempPathFor, trackTempFile } from '../util/atomic-file.ts';
import { UserError } from '../errors.ts';
import { readLineBlocks } from '../util/line-blocks.ts';
import { pyJsonDumps } from '../py/format.ts';
import { startBatchWorker, type BatchWorker } from './batch-threads.ts';
import { caseFromRequest, type RequestOptions, type VerifyRequest } from './input.ts';
import { verifyRecordJson } from './records.ts';
import { textToVerify } from './text-rule.ts';

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
   * Input size from which worker threads start (default 16 MiB, about 16,000 long model outputs; 0:
   * at once). A worker repeats this thread's start-up and JIT warm-up, so on a 2-core machine a
   * second thread shortened no run of up to 11 MB and cost 40–70% more CPU, while it ran 44 MB in
   * 0.6 of the time (docs/performance.md#worker-threads). A file this large starts them before the
   * first line is read.
   */
  workersFrom?: number;
  /**
   * Modules that register families (as `--plugin` takes them), loaded in every worker thread. Families
   * registered in this thread by other means cannot reach workers: the batch then runs on this thread.
   */
  plugins?: readonly string[];
  /** Called as each chunk is written: its sequence number and the thread that verified it (0 = this thread, 1… = workers). */
  onChunk?: (seq: number, thread: number) => void;
  /** Called when a worker thread (1…) has loaded its families and takes chunks. */
  onWorkerReady?: (thread: number) => void;
}

/** Counts of a batch: lines read, verified, and failed (a failed line gets an error record, never a state). */
export interface BatchSummary {
  lines: number;
  verified: number;
  failed: number;
}

/** BatchOptions.workersFrom's default: 16 MiB. */
const DEFAULT_WORKERS_FROM = 16 << 20;

/** Lines per chunk: large enough to amortise a thread hand-over, small enough to balance the threads. */
export const CHUNK_LINES = 256;
const QUEUE_PER_JOB = 4;

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The first string of a parsed row holding a NUL character or a lone surrogate, named by its field
 * (`text`, `anchors[1]`, …), or null. Only a JSON escape (`\u0000`, an unpaired `\ud800`) can put
 * one there, so rows whose line has no `\u` are never walked.
 */
export function rowStringProblem(value: unknown, path = ''): string | null {
  if (typeof value === 'string') {
    const nul = value.indexOf('\0');
    if (nul >= 0) return `${path || 'value'}: holds a NUL character (U+0000, at character ${nul + 1}); remove it`;
    const m = LONE_SURROGATE.exec(value);
    if (m) {
      const code = m[0].charCodeAt(0).toString(16).toUpperCase();
      return `${path || 'value'}: holds a lone surrogate (U+${code}, at character ${m.index + 1}), which is not text; remove it or pair it`;
    }
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = rowStringProblem(value[i], `${path}[${i}]`);
      if (p) return p;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const k of Object.keys(value)) {
      const p = rowStringProblem((value as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
      if (p) return p;
    }
  }
  return null;
}

/** Verifies one parsed input line; returns its output line (without the newline) and whether it was verified. */
function verifyLine(value: unknown, raw: string, line: number, request: RequestOptions): { json: string; ok: boolean } {
  const fail = (id: unknown, error: string) => ({ json: pyJsonDumps({ id: id ?? null, line, error }), ok: false });
  if (!value || typeof value !== 'object' || Array.isArray(value)) return fail(null, 'expected a JSON object');
  const req = value as VerifyRequest;
  const id = req.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number')
    return fail(null, 'id: must be a string or a number');
  if (typeof req.text !== 'string') return fail(id, `text: must be a string, got ${req.text === undefined ? 'nothing' : typeof req.text}`);
  if (raw.indexOf('\\u') >= 0) {
    const problem = rowStringProblem(value);
    if (problem) return fail(typeof id === 'string' && rowStringProblem(id) ? null : id, problem);
  }
  const built = caseFromRequest(req, request);
  if (!built.ok) return fail(id, built.problems.map(([f, p]) => `${f}: ${p}`).join('; '));
  try {
    const state = built.family.verify(textToVerify(built.family, req.text, request.textRule), built.case);
    return { json: verifyRecordJson(id, state), ok: true };
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

/**
 * Verifies raw input lines numbered from `firstLine` (blank lines are skipped but counted); `invalid`
 * lists the lines the reader found not to be UTF-8 (index into `lines`, problem).
 */
export function verifyChunk(
  lines: readonly string[],
  firstLine: number,
  request: RequestOptions = {},
  invalid?: ReadonlyArray<readonly [number, string]>,
): ChunkResult {
  let out = '';
  let count = 0;
  let verified = 0;
  let nextInvalid = invalid && invalid.length > 0 ? 0 : -1;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (nextInvalid >= 0 && invalid![nextInvalid][0] === i) {
      out += pyJsonDumps({ id: null, line: firstLine + i, error: invalid![nextInvalid][1] }) + '\n';
      count++;
      nextInvalid = nextInvalid + 1 < invalid!.length ? nextInvalid + 1 : -1;
      continue;
    }
    if (isBlank(raw)) continue;
    count++;
    const line = firstLine + i;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      out += pyJsonDumps({ id: null, line, error: `invalid JSON (${(e as Error).message})` }) + '\n';
      continue;
    }
    const r = verifyLine(value, raw, line, request);
    if (r.ok) verified++;
    out += r.json + '\n';
  }
  return { out, lines: count, verified, failed: count - verified };
}

/** `raw.trim() === ''` without trimming a whole line that starts with "{". */
function isBlank(raw: string): boolean {
  return raw.length === 0 || (raw.charCodeAt(0) !== 0x7b && raw.trim() === '');
}

interface Chunk {
  seq: number;
  firstLine: number;
  lines: string[];
  /** Lines of `lines` that are not UTF-8 (see LineBlock.invalid), re-indexed for this chunk. */
  invalid?: Array<[number, string]>;
}

/** Where a batch's output goes: a stream (standard output, a pipe) or a file written synchronously. */
interface Sink {
  /** Writes; false when the writer should wait for `onDrain`. */
  write(text: string): boolean;
  onDrain(fn: () => void): void;
}

function streamSink(output: Writable): Sink {
  return { write: (text) => output.write(text), onDrain: (fn) => output.once('drain', fn) };
}

/** Output straight to a file descriptor: one system call per chunk, no stream machinery. */
function fileSink(fd: number): Sink {
  return {
    write(text) {
      const bytes = Buffer.from(text, 'utf8');
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
      return true;
    },
    onDrain: () => {},
  };
}

/** Verifies a JSON Lines stream (or file) into one JSON line per input line, in input order, streaming with backpressure; `jobs` > 1 adds worker threads. */
export async function verifyBatch(input: string | Readable, output: Writable, options: BatchOptions = {}): Promise<BatchSummary> {
  return runBatch(input, streamSink(output), options, output);
}

async function runBatch(input: string | Readable, sink: Sink, options: BatchOptions, stream?: Writable): Promise<BatchSummary> {
  const run = new BatchRun(sink, options, stream);
  try {
    if (typeof input === 'string') run.knownSize(statSync(input).size);
    for await (const block of readLineBlocks(input)) {
      run.bytesRead = block.bytesRead;
      const n = block.lines.length;
      for (let i = 0; i < n; i += CHUNK_LINES) {
        await run.room();
        const lines = i === 0 && n <= CHUNK_LINES ? block.lines : block.lines.slice(i, i + CHUNK_LINES);
        run.submit(block.firstLine + i, lines, block.invalid && chunkInvalid(block.invalid, i, i + lines.length));
      }
    }
    return await run.finish();
  } finally {
    await run.close();
  }
}

/** The invalid lines of block lines [from, to), indexed from `from`; undefined when there are none. */
function chunkInvalid(invalid: ReadonlyArray<[number, string]>, from: number, to: number): Array<[number, string]> | undefined {
  const out = invalid.filter(([i]) => i >= from && i < to).map(([i, p]): [number, string] => [i - from, p]);
  return out.length > 0 ? out : undefined;
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
    private readonly output: Sink,
    private readonly options: BatchOptions,
    private readonly stream?: Writable,
  ) {
    this.jobs = Math.max(1, Math.floor(options.jobs ?? 1));
    this.every = options.progressEvery ?? 1000;
    this.workersFrom = options.workersFrom ?? DEFAULT_WORKERS_FROM;
    this.nextReport = this.every;
    // A closed pipe (EPIPE) or a failing disk surfaces here; the batch stops and rethrows it.
    stream?.on('error', this.onOutputError);
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

  submit(firstLine: number, lines: string[], invalid?: Array<[number, string]>): void {
    this.queue.push(invalid ? { seq: this.nextSeq++, firstLine, lines, invalid } : { seq: this.nextSeq++, firstLine, lines });
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
    this.stream?.off('error', this.onOutputError);
    // Keep a late error of an already failed output (a write still in flight) from crashing the process.
    if (this.failure !== null) this.stream?.on('error', () => {});
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
        onReady: () => {
          this.options.onWorkerReady?.(thread);
          this.pump();
        },
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
            this.complete(c.seq, verifyChunk(c.lines, c.firstLine, this.options.request, c.invalid), 0);
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
        this.output.onDrain(() => {
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
 * /proc are written in place (outputTarget), through a stream; files are written synchronously, one
 * system call per chunk.
 */
export async function verifyBatchToFile(input: string | Readable, outPath: string, options: BatchOptions = {}): Promise<BatchSummary> {
  requireOutputFolder(outPath);
  const { path: file, inPlace } = outputTarget(outPath);
  if (inPlace) return verifyBatchInPlace(input, file, options);
  const tmp = tempPathFor(file);
  trackTempFile(tmp); // removed if SIGINT/SIGTERM ends the process meanwhile
  const fd = openSync(tmp, 'wx');
  let open = true;
  try {
    const summary = await runBatch(input, fileSink(fd), options);
    closeSync(fd);
    open = false;
    await rename(tmp, file);
    return summary;
  } catch (e) {
    if (open) closeSync(fd);
    await rm(tmp, { force: true });
    throw e;
  } finally {
    releaseTempFile(tmp);
  }
}

/** A device, a pipe or a /dev or /proc path: written in place, through a stream (which may ask to drain). */
async function verifyBatchInPlace(input: string | Readable, file: string, options: BatchOptions): Promise<BatchSummary> {
  const out = createWriteStream(file, { flags: 'w', highWaterMark: 1 << 20 });
  // Write errors surface through verifyBatch and the awaited 'open' / 'finish'; this keeps a late error
  // from a destroyed stream (a write still in flight) from crashing the process.
  out.on('error', () => {});
  try {
    await once(out, 'open');
    const summary = await verifyBatch(input, out, options);
    out.end();
    await once(out, 'finish');
    return summary;
  } catch (e) {
    if (!out.closed) {
      // Not events.once: it would reject on the 'error' a destroyed in-flight write emits.
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      out.destroy();
      await closed;
    }
    throw e;
  }
}
