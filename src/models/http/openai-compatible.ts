// The OpenAI-compatible chat backend (OpenAI, vLLM, SGLang, Ollama, llama.cpp server, LM Studio,
// OpenRouter, …) with our own retry loop: every attempt is timed, classified, recorded as an
// AttemptRecord and reported through `onAttempt`, and a failed attempt never becomes text.
import { createHash } from 'node:crypto';
import { canonicalJson, ListHasher, sha256Hex } from '../../core/util/hash.ts';
import { CapabilityError, UsageError } from '../../core/errors.ts';
import { MAX_NEW_TOKENS_LIMIT } from '../limits.ts';
import type { AttemptRecord, ChatMessage, GenerateOptions, GenerateResult, ModelCapabilities } from '../types.ts';
import { modelCapabilities, type BackendInfoModel, type CapabilitiesWith } from '../capabilities.ts';
import type { Clock, HttpRetryPolicy } from '../options.ts';
import { ConcurrencyLimiter, RateLimiter } from './limiter.ts';
import { extractChatText, type Extracted } from './extract.ts';
import { isRetryable, parseRetryAfter, retryDelayMs, type FailureKind } from './retry.ts';
import { httpEndpoint, postOnce, type HeaderLookup, type HttpEndpoint, type RawOutcome } from './transport.ts';

export interface HttpModelConfig {
  spec: string;
  label: string;
  /** Model name sent as `model`. */
  model: string;
  baseUrl: string;
  apiKey: string | null;
  timeoutMs: number;
  maxRetries: number;
  concurrency: number;
  rpm?: number;
  rpmWindowMs: number;
  extraBody: Record<string, unknown>;
  temperature: number | null;
  seed?: number;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  retry: HttpRetryPolicy;
  clock: Clock;
  /** vLLM extensions: `score` through prompt_logprobs and `ban` through bad_words. */
  vllm: boolean;
  /** A successful body beyond this many bytes is a `response_too_large` fault (default DEFAULT_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
}

/** Names that hold credentials (api_key, token, secret, …) but not e.g. max_tokens. */
const SECRET_NAME = /(^|[-_])(api[-_]?key|key|secret|password|passwd|authorization|credentials?|token|access[-_]?token|auth[-_]?token)$/i;

/** Removes credentials from a URL for records and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    for (const k of [...u.searchParams.keys()]) if (SECRET_NAME.test(k)) u.searchParams.set(k, 'REDACTED');
    return u.toString().replace(/\/$/, '');
  } catch {
    return '<unparseable url>';
  }
}

/**
 * SHA-256 of canonicalJson(messages) (sorted keys, no whitespace). A plain list of {role, content}
 * strings is serialised directly, the same bytes without building a sorted copy; anything else
 * goes through canonicalJson.
 */
export function messagesCanonicalSha256(messages: readonly unknown[]): string {
  if (!isPlain(messages)) return sha256Hex(canonicalJson(messages));
  const h = createHash('sha256').update('[');
  for (let i = 0; i < messages.length; i++) h.update((i ? ',' : '') + canonicalMessage(messages[i]));
  return h.update(']').digest('hex');
}

type PlainMessage = { role: string; content: string };
const canonicalMessage = (m: PlainMessage) => `{"content":${JSON.stringify(m.content)},"role":${JSON.stringify(m.role)}}`;
const sameMessage = (a: PlainMessage, b: PlainMessage) => a.role === b.role && a.content === b.content;

function isPlain(messages: readonly unknown[]): messages is PlainMessage[] {
  for (const m of messages) {
    const o = m as Record<string, unknown> | null;
    if (!o || typeof o !== 'object' || Array.isArray(o) || typeof o.role !== 'string' || typeof o.content !== 'string') return false;
    // Exactly these two keys (counted without allocating a key list: this runs for every message of every request).
    let keys = 0;
    for (const _ in o) keys++;
    if (keys !== 2 || !Object.hasOwn(o, 'role') || !Object.hasOwn(o, 'content')) return false;
  }
  return true;
}

/**
 * messagesCanonicalSha256 across the rounds of many conversations at once: one incremental hasher
 * per conversation (known by its first message), the least recently used dropped beyond `limit`.
 * A revision loop's history grows by two messages a round; only those are hashed.
 */
export class ConversationHashes {
  /**
   * By the first message's content, then its role. The content is the same string object round
   * after round, so a lookup reuses its cached hash instead of hashing a new key string each time.
   */
  private readonly hashers = new Map<string, Map<string, ListHasher<PlainMessage>>>();
  private size = 0;
  constructor(private readonly limit: number) {}

  digest(messages: readonly unknown[]): string {
    if (!messages.length || !isPlain(messages)) return messagesCanonicalSha256(messages);
    const { role, content } = messages[0];
    let byRole = this.hashers.get(content);
    let h = byRole?.get(role);
    if (byRole)
      this.hashers.delete(content); // re-inserted below: most recently used last
    else byRole = new Map();
    if (!h) {
      h = new ListHasher<PlainMessage>(canonicalMessage, sameMessage);
      byRole.set(role, h);
      this.size++;
    }
    this.hashers.set(content, byRole);
    while (this.size > this.limit) {
      const [oldest, roles] = this.hashers.entries().next().value!;
      this.hashers.delete(oldest);
      this.size -= roles.size;
    }
    return h.digest(messages);
  }
}

/** Whether a body field's value is redacted from records (by its name), decided once per name. */
const secretNames = new Map<string, boolean>();
function isSecretName(key: string): boolean {
  let secret = secretNames.get(key);
  if (secret === undefined) secretNames.set(key, (secret = SECRET_NAME.test(key)));
  return secret;
}

function redactValue(key: string, value: unknown): unknown {
  return isSecretName(key) ? 'REDACTED' : value;
}

/** What one attempt looked like, for the loop to decide on a retry. */
interface AttemptOutcome {
  record: AttemptRecord;
  kind?: FailureKind;
  retryAfterMs: number | null;
  parsed?: unknown;
}

export class OpenAICompatibleModel implements BackendInfoModel {
  readonly spec: string;
  readonly label: string;
  readonly capabilities: CapabilitiesWith<'info'>;
  readonly config: HttpModelConfig;
  private readonly concurrency: ConcurrencyLimiter;
  private readonly rate?: RateLimiter;
  private readonly endpoint: HttpEndpoint;
  private readonly redactedBaseUrl: string;
  private readonly messageHashes = new WeakMap<unknown[], string>();
  /** The redacted URL recorded for each request path (a handful per model). */
  private readonly recordUrls = new Map<string, string>();
  /** Record hashes of growing conversations (a few per request in flight). */
  private readonly conversations: ConversationHashes;

  /** `capabilities`: what a subclass adds (the vLLM backend: scoring and its tokenizer). */
  constructor(config: HttpModelConfig, capabilities: Partial<ModelCapabilities> = {}) {
    this.endpoint = httpEndpoint(config.baseUrl, config.apiKey);
    this.config = config;
    this.redactedBaseUrl = redactUrl(config.baseUrl);
    this.spec = config.spec;
    this.label = config.label;
    // A `sim:` model name means serve-sim (or another simulator) answers: labelled as a simulation.
    // vLLM's request extensions (bad_words, stop_token_ids) are sent only to a vLLM server.
    this.capabilities = {
      ...modelCapabilities({ ban: config.vllm, stopTokens: config.vllm, simulated: config.model.startsWith('sim:'), ...capabilities }),
      info: true,
    };
    this.concurrency = new ConcurrencyLimiter(config.concurrency);
    this.conversations = new ConversationHashes(4 * config.concurrency + 16);
    if (config.rpm != null) this.rate = new RateLimiter(config.rpm, config.rpmWindowMs, config.clock);
  }

  /** The request body for a chat completion (extra body keys last, so they win). */
  buildChatBody(messages: ChatMessage[], options: GenerateOptions): Record<string, unknown> {
    const c = this.config;
    // Validation refuses cases that ask more; this keeps any other caller from sending an absurd limit.
    // No limit at all (revise() with an AI SDK caller that set none) sends none.
    const maxTokens = options.maxTokens as number | undefined;
    if (maxTokens !== undefined && (!Number.isSafeInteger(maxTokens) || maxTokens < 0 || maxTokens > MAX_NEW_TOKENS_LIMIT))
      throw new UsageError(`${this.label}: max tokens must be a whole number from 0 to ${MAX_NEW_TOKENS_LIMIT}, got ${maxTokens}`, {
        option: 'maxTokens',
      });
    const body: Record<string, unknown> = { model: c.model };
    if (maxTokens !== undefined) body[c.maxTokensField] = maxTokens;
    const temperature = options.temperature !== undefined ? options.temperature : c.temperature;
    if (temperature !== null && temperature !== undefined) body.temperature = temperature;
    const seed = options.seed ?? c.seed;
    if (seed !== undefined) body.seed = seed;
    if (c.vllm) {
      // vLLM applies the model's generation_config.json unless every sampling parameter is sent;
      // pin neutral values so no server-side repetition penalty or top-k leaks in (docs/harness.md §13.3).
      Object.assign(body, { top_p: 1, top_k: -1, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 });
    }
    const banned = options.bannedSequences?.filter((s) => s.length > 0) ?? [];
    if (banned.length) {
      if (!c.vllm) {
        throw new CapabilityError(
          `${this.label}: this backend cannot ban token sequences during decoding (plain OpenAI-compatible APIs have no per-step ban). ` +
            'Use a vllm: spec (vLLM bad_words), a gguf: model, or a harness without a ban.',
        );
      }
      body.bad_words = banned;
    }
    if (options.bannedAnswers?.length) {
      // vLLM's bad_words takes strings and masks a sequence's last token after its prefix; no string
      // names the end of the answer, so "this draft, then stop" cannot be said (src/models/ban.ts).
      throw new CapabilityError(
        `${this.label}: this backend cannot ban complete answers (masking the end of the answer after a given text); ` +
          "neither OpenAI-compatible APIs nor vLLM's bad_words can express it. Use a gguf: or sim: model, or a policy without that ban.",
      );
    }
    Object.assign(body, c.extraBody);
    if (c.vllm && options.stopTokenIds?.length) body.stop_token_ids = [...options.stopTokenIds];
    Object.assign(body, options.extraBody ?? {});
    body.stream = false;
    // A loop into a literal, not map(): docs/performance.md#deoptimisations
    const wire: ChatMessage[] = [];
    for (const m of messages) wire.push({ role: m.role, content: m.content });
    body.messages = wire;
    return body;
  }

  /** A record-safe summary of a request body: counts and hashes instead of texts, no secrets. */
  summarize(path: string, body: Record<string, unknown>, attempt: number): Record<string, unknown> {
    let url = this.recordUrls.get(path);
    if (url === undefined) this.recordUrls.set(path, (url = /^https?:\/\//.test(path) ? redactUrl(path) : this.redactedBaseUrl + path));
    const summary: Record<string, unknown> = { url, attempt };
    for (const k in body) {
      const v = body[k];
      if (k === 'messages' && Array.isArray(v)) {
        summary.message_count = v.length;
        // Retries send the same list: hash it once per generation.
        let hash = this.messageHashes.get(v);
        if (hash === undefined) this.messageHashes.set(v, (hash = this.conversations.digest(v)));
        summary.messages_sha256 = hash;
      } else if (k === 'prompt') {
        summary.prompt_sha256 = sha256Hex(canonicalJson(v));
        summary.prompt_length = Array.isArray(v) || typeof v === 'string' ? v.length : undefined;
      } else if (k === 'bad_words' && Array.isArray(v)) {
        summary.bad_words_count = v.length;
      } else {
        summary[k] = redactValue(k, v);
      }
    }
    return summary;
  }

  /** The server, the model name and the decoding extensions in use (never the API key). */
  async backendInfo(): Promise<Record<string, unknown>> {
    return {
      backend: this.config.vllm ? 'vllm (prompt_logprobs over HTTP)' : 'openai-compatible (HTTP chat completions)',
      baseUrl: this.redactedBaseUrl,
      model: this.config.model,
    };
  }

  async generate(messages: ChatMessage[], options: GenerateOptions): Promise<GenerateResult> {
    const body = this.buildChatBody(messages, options);
    const result = await this.withRetries('/chat/completions', body, options.signal, options.onAttempt, (raw) =>
      extractChatText(raw.body, raw.headers),
    );
    return { text: result.ok ? (result.record.text ?? null) : null, attempts: result.attempts };
  }

  /**
   * Runs attempts until one succeeds, a failure is not retryable, or the retries are spent.
   * `interpret` classifies a 2xx body. The caller's abort is rethrown after it is recorded.
   */
  async withRetries(
    path: string,
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onAttempt: ((a: AttemptRecord) => void) | undefined,
    interpret: (raw: {
      body: string;
      headers: HeaderLookup;
    }) => Extracted | { ok: true; parsed: unknown; meta?: Record<string, unknown>; usage?: AttemptRecord['usage'] },
  ): Promise<{ ok: boolean; record: AttemptRecord; attempts: AttemptRecord[]; parsed?: unknown }> {
    const attempts: AttemptRecord[] = [];
    const c = this.config;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attemptOnce(path, body, attempt, signal, interpret);
      const retryable = outcome.kind !== undefined && outcome.kind !== 'aborted' && isRetryable(outcome.kind, c.retry);
      const last = attempt > c.maxRetries;
      let delay: { delayMs: number; source: string } | null = null;
      if (outcome.kind !== undefined && retryable && !last) {
        delay = retryDelayMs(attempt, c.retry, outcome.retryAfterMs);
        outcome.record.meta = { ...outcome.record.meta, retryInMs: delay.delayMs, retryDelaySource: delay.source };
      } else if (outcome.kind !== undefined) {
        outcome.record.meta = { ...outcome.record.meta, final: true, retryable };
      }
      if (outcome.record.error) outcome.record.error.retryable = retryable;
      attempts.push(outcome.record);
      onAttempt?.(outcome.record);
      if (outcome.kind === undefined) return { ok: true, record: outcome.record, attempts, parsed: outcome.parsed };
      if (outcome.kind === 'aborted') throw signal?.reason ?? new Error('aborted');
      if (!delay) return { ok: false, record: outcome.record, attempts };
      try {
        await c.clock.sleep(delay.delayMs, signal);
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        throw e;
      }
    }
  }

  private async attemptOnce(
    path: string,
    body: Record<string, unknown>,
    attempt: number,
    signal: AbortSignal | undefined,
    interpret: (raw: {
      body: string;
      headers: HeaderLookup;
    }) => Extracted | { ok: true; parsed: unknown; meta?: Record<string, unknown>; usage?: AttemptRecord['usage'] },
  ): Promise<AttemptOutcome> {
    const c = this.config;
    const request = this.summarize(path, body, attempt);
    await this.concurrency.acquire(signal);
    let raw: RawOutcome, startedAt: string, t0: number;
    try {
      if (this.rate) await this.rate.acquire(signal);
      startedAt = new Date(c.clock.now()).toISOString();
      t0 = performance.now();
      raw = await postOnce(this.endpoint, path, body, c.timeoutMs, signal, c.maxResponseBytes);
    } finally {
      this.concurrency.release();
    }
    const latencyMs = Math.round((performance.now() - t0) * 1000) / 1000;
    if (raw.kind === 'failure') {
      return {
        record: {
          ok: false,
          startedAt,
          latencyMs,
          status: raw.status,
          request,
          error: { kind: raw.failure, message: raw.message, raw: raw.raw },
          meta: raw.headers ? headerMeta(raw.headers) : {},
        },
        kind: raw.failure,
        retryAfterMs: parseRetryAfter(raw.headers, c.clock.now()),
      };
    }
    const got = interpret({ body: raw.body, headers: raw.headers });
    // Object.assign, not a spread: docs/performance.md#hidden-classes
    const meta = Object.assign(headerMeta(raw.headers), got.meta);
    if (raw.masked) meta.secretsMasked = raw.masked;
    // A server that says it simulates makes this model a simulation, whatever its name.
    if (meta.simulated === true) this.capabilities.simulated = true;
    if (got.ok && 'parsed' in got) {
      return {
        record: { ok: true, startedAt, latencyMs, status: raw.status, usage: got.usage, request, meta },
        retryAfterMs: null,
        parsed: got.parsed,
      };
    }
    if (got.ok) {
      return {
        record: {
          ok: true,
          text: got.text,
          startedAt,
          latencyMs,
          status: raw.status,
          finishReason: got.finishReason,
          usage: got.usage,
          request,
          meta,
        },
        retryAfterMs: null,
      };
    }
    return {
      record: {
        ok: false,
        startedAt,
        latencyMs,
        status: raw.status,
        finishReason: got.finishReason,
        usage: got.usage,
        request,
        error: { kind: got.kind, message: got.message, raw: got.raw },
        meta,
      },
      kind: got.kind,
      retryAfterMs: parseRetryAfter(raw.headers, c.clock.now()),
    };
  }
}

function headerMeta(headers: HeaderLookup): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const rid = headers.get('x-request-id');
  if (rid) meta.requestId = rid;
  const ra = headers.get('retry-after');
  if (ra) meta.retryAfter = ra;
  return meta;
}
