// Options accepted next to a model spec by `createModel(spec, options)`. Every field is optional;
// spec query parameters take precedence over these (they are part of the spec's identity).

/** How failed HTTP attempts are retried. Defaults mirror the paper's API runner (docs/protocol.md §1.7). */
export interface HttpRetryPolicy {
  /** Delay before retry k (1-based) is min(baseDelayMs · 2^(k−1), maxDelayMs). Default 1000. */
  baseDelayMs: number;
  /** Default 30000. */
  maxDelayMs: number;
  /** A server's Retry-After is honoured up to this many ms. Default 60000. */
  retryAfterCapMs: number;
  /** 'none' (default, deterministic) or 'seeded': ±50% jitter from a hash of jitterSeed and the attempt. */
  jitter: 'none' | 'seeded';
  jitterSeed: number;
  /** Retry refusals (default false: a refusal is a policy decision, not a glitch). */
  retryRefusals: boolean;
}

export const DEFAULT_RETRY_POLICY: HttpRetryPolicy = {
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  retryAfterCapMs: 60_000,
  jitter: 'none',
  jitterSeed: 0,
  retryRefusals: false,
};

/** A clock the limiters and retry loop use; tests substitute a fake one. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Options of `createModel`: timeouts, retries, concurrency and rate limit, sampling, the API key's environment variable, and extra
 * request fields. A spec's `?k=v` parameters override them.
 */
export interface ModelOptions {
  /** Per-attempt timeout in milliseconds (whole request: connect, headers and body). Default 180000. */
  timeout?: number;
  /** Retries after the first attempt (so maxRetries + 1 attempts in all). Default 4. */
  maxRetries?: number;
  /** Requests in flight at once for this model instance. Default 16. */
  concurrency?: number;
  /** Attempts started per minute (sliding 60 s window); unset = no limit. */
  rpm?: number;
  /** Name of the environment variable holding the API key (default OPENAI_API_KEY). */
  apiKeyEnv?: string;
  /** Extra request-body keys sent with every request (e.g. chat_template_kwargs). */
  extraBody?: Record<string, unknown>;
  /** Sampling temperature; default 0. `null` omits the field (for models that reject it). */
  temperature?: number | null;
  seed?: number;
  /** The controller name shown in analyses. Simulations always carry "[simulated]". */
  label?: string;
  /** `openai:` only: a different base URL (e.g. a proxy). */
  baseUrl?: string;
  /**
   * HTTP models: a successful response body larger than this many bytes is not read further and is
   * recorded as a `response_too_large` fault (default 4 MiB).
   */
  maxResponseBytes?: number;
  /** Field name for the token limit: 'max_tokens' (default) or 'max_completion_tokens'. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  retry?: Partial<HttpRetryPolicy>;
  /** Window of the rpm limiter in ms (default 60000; tests shorten it). */
  rpmWindowMs?: number;
  /** Injected clock (tests). */
  clock?: Clock;
  /** Anything else is passed through to the GGUF backend (gpu, contextSize, threads, …). */
  [key: string]: unknown;
}

/** Per-attempt timeout of HTTP models when none is given (ms). */
export const DEFAULT_TIMEOUT_MS = 180_000;
/** Retries after a failed HTTP attempt when none is given. */
export const DEFAULT_MAX_RETRIES = 4;
/** HTTP requests in flight per model when none is given. */
export const DEFAULT_CONCURRENCY = 16;
/** The environment variable holding the API key when none is named. */
export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal!.reason);
      };
      const t = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
