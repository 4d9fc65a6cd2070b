// One HTTP attempt through the official `openai` SDK (v6) with its own retries switched off, so
// that every attempt is ours to time, classify and record. The SDK's timeout only covers the wait
// for headers; our deadline covers the whole exchange (connect, headers and body).
import type OpenAI from 'openai';
import { kindForStatus, type FailureKind } from './retry.ts';
import { rawForRecord } from './extract.ts';

export type RawOutcome =
  | { kind: 'response'; status: number; headers: Headers; body: string }
  | { kind: 'failure'; failure: FailureKind; status?: number; headers?: Headers; message: string; raw?: unknown };

class DeadlineExceeded extends Error {
  constructor(ms: number) {
    super(`no complete response within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

function describeCause(e: unknown): string {
  const err = e as { message?: string; cause?: { message?: string; code?: string } };
  const cause = err?.cause;
  const parts = [err?.message ?? String(e)];
  if (cause?.message && cause.message !== err?.message) parts.push(cause.message);
  if (cause?.code) parts.push(`(${cause.code})`);
  return parts.join(': ');
}

/**
 * POSTs `body` to `path` (relative to the client's base URL, or absolute) and returns the raw
 * outcome. Never throws for provider faults; rethrows only the caller's abort.
 */
export async function postOnce(
  client: OpenAI,
  sdk: typeof import('openai'),
  path: string,
  body: Record<string, unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RawOutcome> {
  // One controller per attempt, aborted by our deadline or by the caller (cheaper than
  // AbortSignal.any, which costs ~20 µs and weak references per call).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DeadlineExceeded(timeoutMs)), timeoutMs);
  const forward = () => deadline.abort(signal!.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  try {
    const response = await client.post(path, { body, maxRetries: 0, timeout: timeoutMs, signal: deadline.signal }).asResponse();
    const text = await response.text();
    return { kind: 'response', status: response.status, headers: response.headers, body: text };
  } catch (e) {
    if (signal?.aborted) return { kind: 'failure', failure: 'aborted', message: `aborted by the caller: ${describeCause(signal.reason)}` };
    if (deadline.signal.aborted || e instanceof sdk.APIConnectionTimeoutError) {
      return { kind: 'failure', failure: 'timeout', message: `timed out after ${timeoutMs} ms` };
    }
    if (e instanceof sdk.APIError && typeof e.status === 'number') {
      return {
        kind: 'failure',
        failure: kindForStatus(e.status),
        status: e.status,
        headers: e.headers ?? undefined,
        message: `HTTP ${e.status}: ${e.message}`,
        raw: rawForRecord(e.error ?? e.message),
      };
    }
    return { kind: 'failure', failure: 'network', message: `network error: ${describeCause(e)}` };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}
