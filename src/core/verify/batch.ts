// Batch verification: a JSON Lines stream in, one JSON line out per input line, in input order,
// streaming (the input is never held in memory). A bad line yields `{"id", "line", "error"}` and the
// batch goes on; the caller decides the exit status from the summary.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { requireOutputFolder, tempPathFor } from '../util/atomic-file.ts';
import { UserError } from '../errors.ts';
import { readJsonlLines } from '../util/jsonl.ts';
import { pyJsonDumps, pyStrip } from '../py/format.ts';
import { caseFromRequest, type RequestOptions, type VerifyRequest } from './input.ts';
import { verifyRecord } from './records.ts';

/** Options of `verifyBatch`: progress reporting and how each line's request is read. */
export interface BatchOptions {
  /** Called every `progressEvery` lines with the number of lines done so far. */
  onProgress?: (done: number, failed: number) => void;
  progressEvery?: number;
  /** How bare rows become cases (e.g. the IFEval mode for rows that do not set one). */
  request?: RequestOptions;
}

/** Counts of a batch: lines read, verified, and failed (a failed line gets an error record, never a state). */
export interface BatchSummary {
  lines: number;
  verified: number;
  failed: number;
}

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

/**
 * Verifies a JSON Lines file (a path) or stream of `VerifyRequest`s and writes one record per line to `output`, in order: the state, or
 * the line's problem. The protocol's stripped text is verified. Throws a UserError when the environment is missing something every line
 * needs (e.g. the Punkt parameters).
 */
export async function verifyBatch(input: string | Readable, output: Writable, options: BatchOptions = {}): Promise<BatchSummary> {
  const every = options.progressEvery ?? 1000;
  const summary: BatchSummary = { lines: 0, verified: 0, failed: 0 };
  for await (const item of readJsonlLines(input)) {
    summary.lines++;
    const { record, ok } = item.error
      ? { record: { id: null, line: item.line, error: item.error }, ok: false }
      : verifyLine(item.value, item.line, options.request);
    if (ok) summary.verified++;
    else summary.failed++;
    if (!output.write(pyJsonDumps(record) + '\n')) await once(output, 'drain');
    if (options.onProgress && summary.lines % every === 0) options.onProgress(summary.lines, summary.failed);
  }
  return summary;
}

/**
 * Batch verification into a file, atomically: results go to a temporary file next to `outPath`,
 * which is renamed over it only when the whole input has been read. On any exception the temporary
 * file is removed and nothing appears at `outPath`.
 */
export async function verifyBatchToFile(input: string | Readable, outPath: string, options: BatchOptions = {}): Promise<BatchSummary> {
  requireOutputFolder(outPath);
  const tmp = tempPathFor(outPath);
  const out = createWriteStream(tmp, { flags: 'wx' });
  // Write errors surface through the awaited 'open' / 'drain' / 'finish'; this keeps a late error
  // from a destroyed stream (a write still in flight) from crashing the process.
  out.on('error', () => {});
  try {
    await once(out, 'open');
    const summary = await verifyBatch(input, out, options);
    out.end();
    await once(out, 'finish');
    await rename(tmp, outPath);
    return summary;
  } catch (e) {
    if (!out.closed) {
      // Not events.once: it would reject on the 'error' a destroyed in-flight write emits.
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      out.destroy();
      await closed;
    }
    await rm(tmp, { force: true });
    throw e;
  }
}
