// Retry semantics for HTTP attempts: which failures are retried, how long to wait, and how a
// server's Retry-After header is read. Kept free of I/O so it can be tested exhaustively.
import { sha256Hex } from '../../core/util/hash.ts';
import type { HttpRetryPolicy } from '../options.ts';

/**
 * Every way an attempt can fail. A failed attempt's body is never returned as text.
 *
 * retryable: rate_limit (429), server_error (5xx), request_timeout (408), conflict (409),
 *   timeout (our per-attempt deadline), network (refused/reset/DNS), malformed_json (2xx whose body is
 *   not a JSON object), no_choices (2xx without a non-empty choices list, unless it carries an error
 *   code below 500), null_content, empty_content (blank after Python strip), invalid_text (the reply
 *   holds invalid UTF-8, NUL or a lone surrogate: core/util/text-boundary.ts), response_too_large
 *   (a 2xx body beyond --max-response-bytes; reading stopped there)
 * not retryable: auth (401/403), not_found (404), bad_request (other 4xx), no_choices with an error
 *   code below 500, refusal (a `refusal` field or a content-filter stop; retried only when
 *   `retry.retryRefusals` is set), aborted (the caller's signal)
 */
export type FailureKind =
  | 'rate_limit'
  | 'server_error'
  | 'request_timeout'
  | 'conflict'
  | 'auth'
  | 'not_found'
  | 'bad_request'
  | 'timeout'
  | 'network'
  | 'malformed_json'
  | 'no_choices'
  | 'null_content'
  | 'empty_content'
  | 'refusal'
  | 'invalid_text'
  | 'response_too_large'
  | 'aborted';

export function kindForStatus(status: number): FailureKind {
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'request_timeout';
  if (status === 409) return 'conflict';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

const RETRYABLE: ReadonlySet<FailureKind> = new Set([
  'rate_limit',
  'server_error',
  'request_timeout',
  'conflict',
  'timeout',
  'network',
  'malformed_json',
  'no_choices',
  'null_content',
  'empty_content',
  'invalid_text',
  'response_too_large',
]);

export function isRetryable(kind: FailureKind, policy: Pick<HttpRetryPolicy, 'retryRefusals'>): boolean {
  if (kind === 'refusal') return policy.retryRefusals;
  return RETRYABLE.has(kind);
}

/**
 * Milliseconds a Retry-After value asks for: delta-seconds ("3", "0.5") or an HTTP date. Null when
 * absent or unreadable. Also reads the non-standard `retry-after-ms` that OpenAI sends.
 */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, nowMs: number): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const v = headers.get('retry-after');
  if (v == null || v.trim() === '') return null;
  const trimmed = v.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}

/**
 * The wait before retry number `retry` (1 = the first retry). Retry-After, when given, replaces the
 * exponential schedule and is capped at `retryAfterCapMs`.
 */
export function retryDelayMs(
  retry: number,
  policy: HttpRetryPolicy,
  retryAfterMs: number | null,
): { delayMs: number; source: 'retry-after' | 'backoff' } {
  if (retryAfterMs != null) return { delayMs: Math.min(Math.max(0, retryAfterMs), policy.retryAfterCapMs), source: 'retry-after' };
  let delay = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  if (policy.jitter === 'seeded') {
    // A pure function of (seed, retry number): the same schedule in every process.
    const u = parseInt(sha256Hex(`revloop-jitter\u001f${policy.jitterSeed}\u001f${retry}`).slice(0, 8), 16) / 0x1_0000_0000;
    delay = Math.round(delay * (0.5 + u));
  }
  return { delayMs: delay, source: 'backoff' };
}
