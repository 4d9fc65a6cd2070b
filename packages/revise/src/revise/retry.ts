// Retries of an AI SDK model's provider errors inside `revise()` (docs/revise.md §6): the AI SDK's
// own policy — retry what the provider marks retryable (APICallError.isRetryable: 408, 409, 429,
// 5xx, connection failures), `maxRetries` 2, a 2 s delay doubled each time, `retry-after-ms` or
// `retry-after` honoured when the provider sends one (up to a minute) — so that `revise()` with an
// AI SDK model retries as `generateText` would. Every attempt is reported, its usage counted.

/** How retryable provider errors are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2, as the AI SDK's `maxRetries`); 0 = none. */
  maxRetries?: number;
  /** The first delay in ms (default 2000), multiplied by `backoffFactor` for each further retry. */
  initialDelayMs?: number;
  /** Default 2. */
  backoffFactor?: number;
  /** A provider's own delay (`retry-after-ms`, `retry-after`) is used when it is at most this (default 60 000 ms). */
  maxProviderDelayMs?: number;
}

/** Whether an error is one the provider marked retryable (the AI SDK's APICallError.isRetryable). */
export function isRetryableError(e: unknown): boolean {
  return (e as { isRetryable?: unknown } | null)?.isRetryable === true;
}

function header(e: unknown, name: string): string | undefined {
  const headers = (e as { responseHeaders?: Record<string, string> } | null)?.responseHeaders;
  if (!headers || typeof headers !== 'object') return undefined;
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return String(v);
  return undefined;
}

/** The delay before retry `n` (1-based) after error `e`. */
export function retryDelayMs(policy: RetryPolicy, n: number, e: unknown, now = Date.now()): number {
  const backoff = (policy.initialDelayMs ?? 2000) * (policy.backoffFactor ?? 2) ** (n - 1);
  const cap = policy.maxProviderDelayMs ?? 60_000;
  const ms = Number(header(e, 'retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && ms <= cap) return ms;
  const after = header(e, 'retry-after');
  if (after !== undefined) {
    const seconds = Number(after);
    const provider = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now;
    if (Number.isFinite(provider) && provider >= 0 && provider <= cap) return provider;
  }
  return backoff;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
