// revloop's HTTP client: one buffered exchange with keep-alive pools (what the HTTP model backends
// use: plain http: through our own HTTP/1.1 client, http1.ts; https: through node:https), and a
// small `fetch` over it for code that wants one. Why our own: docs/performance.md#http-client
//
// What it does: one request, body sent in one write, the whole response buffered (and, for the
// fetch, a Response over that buffer). What it does not: redirects (a 3xx is returned as it is: API servers do not
// redirect POSTs), proxies (Node 20's fetch ignores them too), streaming request bodies (handed to
// the global fetch). It honours the AbortSignal at every stage (queued for a socket, connecting,
// waiting for headers, reading the body) and rejects with the signal's reason, as fetch does.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { BodyTooLarge, createHttp1Client } from './http1.ts';

export { BodyTooLarge } from './http1.ts';
import { https, zlib } from '../../core/util/lazy-builtin.ts';

type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

interface KeepAliveFetchOptions {
  /** Idle time after which a pooled socket is closed (a server's Keep-Alive hint shortens it). */
  idleSocketMs?: number;
}

/** Status codes whose responses carry no body. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * A Response whose body is already in memory: it makes a ReadableStream only if `body` is read
 * (docs/performance.md#http-client). It has the members our transport and fetch-based callers use, and `clone`.
 */
class BufferedResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;
  private stream: ReadableStream<Uint8Array> | null | undefined;

  constructor(
    private readonly payload: Buffer | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status <= 299;
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === undefined) {
      const bytes = this.payload;
      this.stream = bytes
        ? new ReadableStream<Uint8Array>({
            start: (controller) => {
              this.used = true;
              controller.enqueue(new Uint8Array(bytes));
              controller.close();
            },
          })
        : null;
    }
    return this.stream;
  }

  private consume(): Buffer {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    return this.payload ?? Buffer.alloc(0);
  }

  async text(): Promise<string> {
    return this.consume().toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(this.consume().toString('utf8'));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.consume();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(this.consume());
  }

  async blob(): Promise<Blob> {
    return new Blob([new Uint8Array(this.consume())], { type: this.headers.get('content-type') ?? '' });
  }

  async formData(): Promise<never> {
    throw new TypeError("formData() is not supported by revloop's HTTP client");
  }

  clone(): BufferedResponse {
    if (this.used) throw new TypeError('Response.clone: Body has already been consumed');
    return new BufferedResponse(this.payload, this.status, this.statusText, new Headers(this.headers), this.url);
  }
}

function headerPairs(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) {
    h.forEach((value, name) => {
      out[name] = value;
    });
  } else if (Array.isArray(h)) {
    for (const [name, value] of h) out[name.toLowerCase()] = value;
  } else {
    for (const [name, value] of Object.entries(h)) if (value !== undefined) out[name.toLowerCase()] = String(value);
  }
  return out;
}

/** The request body as a string or bytes written in one piece; undefined for bodies we do not handle. */
function bodyBytes(body: RequestInit['body']): string | Buffer | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  return undefined; // a stream, FormData or Blob: not ours to handle
}

/** Undoes the content-coding; `max` bounds the decoded size (a small compressed body can inflate to gigabytes). */
function decode(encoding: string | undefined, raw: Buffer, max = Infinity): Buffer {
  const o = Number.isFinite(max) ? { maxOutputLength: Math.max(1, max) } : {};
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return raw;
    case 'gzip':
    case 'x-gzip':
      return zlib().gunzipSync(raw, o);
    case 'deflate':
      return zlib().inflateSync(raw, o);
    case 'br':
      return zlib().brotliDecompressSync(raw, o);
    default:
      throw new Error(`unsupported content-encoding "${encoding}"`);
  }
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return headers;
}

/** One buffered HTTP exchange: status, headers as node:http parsed them, and the decoded body. */
export interface ExchangeResult {
  status: number;
  statusText: string;
  /** Lower-cased names (node:http's parse: repeated values joined, set-cookie an array). */
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  /** Null for status codes without a body. */
  body: Buffer | null;
  /** An error response's body was cut at `maxErrorBodyBytes`. */
  truncated?: boolean;
}

export interface ExchangeInit {
  method: string;
  /** Name, value, name, value, … in lower case, `host` included (sent as they are); content-length is added here. */
  headers: readonly string[];
  body: string | Buffer | null;
  signal?: AbortSignal;
  /** Abandon the whole exchange (connect, headers, body) after this long, rejecting with DeadlineExceeded. */
  timeoutMs?: number;
  /** A 2xx body (decoded) longer than this is not read: the exchange rejects with BodyTooLarge. */
  maxBodyBytes?: number;
  /** Of any other response's body only this much is read (`truncated` says when it was cut). */
  maxErrorBodyBytes?: number;
}

/** The exchange did not complete within its deadline. */
export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`no complete response within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/** Sends one request and buffers the whole response (what revloop's HTTP backends need, nothing more). */
export type HttpExchange = (url: URL, init: ExchangeInit) => Promise<ExchangeResult>;

/** The exchanges waiting on each signal: one 'abort' listener per signal, not one per request (docs/performance.md#http-client). */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `fn` when `signal` aborts (it is not aborted yet); returns the function that stops waiting. */
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  let fns = waiting.get(signal);
  if (!fns) {
    const set = new Set<() => void>();
    waiting.set(signal, set);
    signal.addEventListener('abort', () => [...set].forEach((f) => f()), { once: true });
    fns = set;
  }
  fns.add(fn);
  return () => fns.delete(fn);
}

/**
 * An exchange with its own keep-alive pools: plain `http:` through revloop's HTTP/1.1 client
 * (http1.ts), `https:` through node:https. Sockets idle in a pool do not keep the process alive.
 * It honours the AbortSignal at every stage and rejects with the signal's reason.
 */
export function createExchange(options: KeepAliveFetchOptions = {}): HttpExchange {
  const idle = options.idleSocketMs ?? 4000;
  const plain = createHttp1Client({ idleSocketMs: idle });
  // The https: pool is made on the first https: request (node:https loads then, not at start-up).
  let tls: import('node:https').Agent | undefined;
  return function exchange(url, init) {
    const signal = init.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<ExchangeResult>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let cancel: (reason: unknown) => void = () => undefined;
      const finish = (err: unknown, result?: ExchangeResult) => {
        if (settled) return;
        settled = true;
        unwatch?.();
        if (timer) clearTimeout(timer);
        if (err !== undefined) reject(err);
        else resolve(result!);
      };
      const stop = (reason: unknown) => {
        finish(reason);
        cancel(reason);
      };
      const unwatch = signal ? whenAborted(signal, () => stop(signal.reason)) : undefined;
      if (init.timeoutMs !== undefined) timer = setTimeout(() => stop(new DeadlineExceeded(init.timeoutMs!)), init.timeoutMs);
      const done = (
        status: number,
        statusText: string,
        headers: IncomingHttpHeaders,
        rawHeaders: string[],
        raw: Buffer | null,
        truncated = false,
      ) => {
        const ok = status >= 200 && status <= 299;
        const max = (ok ? init.maxBodyBytes : init.maxErrorBodyBytes) ?? Infinity;
        let body: Buffer | null;
        let cut = truncated;
        try {
          body = NULL_BODY_STATUS.has(status) ? null : decode(headers['content-encoding'], raw ?? Buffer.alloc(0), max);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') return finish(e);
          if (ok) return finish(new BodyTooLarge(max, max + 1, status, Buffer.alloc(0)));
          body = Buffer.from(`[a compressed error body that decodes to more than ${max} bytes]`);
          cut = true;
        }
        const result: ExchangeResult = { status, statusText, headers, rawHeaders, body };
        if (cut) result.truncated = true;
        finish(undefined, result);
      };
      if (url.protocol === 'http:') {
        let call: { abort(): void } | undefined;
        try {
          call = plain.send(url, init, (err, res) =>
            err ? finish(err) : done(res!.status, res!.statusText, res!.headers, res!.rawHeaders, res!.body, res!.truncated),
          );
        } catch (e) {
          return finish(e);
        }
        cancel = () => call!.abort();
        return;
      }
      const body = init.body;
      // Raw header pairs skip node:https's per-header validation and bookkeeping (we build them).
      const headers =
        body === null
          ? init.headers
          : [...init.headers, 'content-length', String(typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length)];
      tls ??= new (https().Agent)({ keepAlive: true, timeout: idle, scheduling: 'lifo' });
      const req = https().request(url, { method: init.method, headers: headers as string[], agent: tls });
      cancel = (reason) => req.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      req.on('error', (e) => finish(e));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status <= 299;
        const limit = (ok ? init.maxBodyBytes : init.maxErrorBodyBytes) ?? Infinity;
        let received = 0;
        res.on('data', (c: Buffer) => {
          if (settled) return;
          if (received + c.length <= limit) {
            chunks.push(c);
            received += c.length;
            return;
          }
          // Past the limit: a successful body is refused, an error body cut where a record cuts it.
          if (ok) {
            const head = Buffer.concat([...chunks, c]).subarray(0, 4096);
            stop(new BodyTooLarge(limit, received + c.length, status, Buffer.from(head)));
            return;
          }
          chunks.push(c.subarray(0, limit - received));
          received = limit;
          done(status, res.statusMessage ?? '', res.headers, res.rawHeaders, Buffer.concat(chunks), true);
          req.destroy();
        });
        res.on('error', (e) => finish(e));
        // A connection closed before the body was complete ('end' never comes).
        res.on('close', () => {
          if (!res.complete) finish(new Error('the server closed the connection before the response body was complete'));
        });
        res.on('end', () => {
          if (settled) return;
          done(
            res.statusCode ?? 0,
            res.statusMessage ?? '',
            res.headers,
            res.rawHeaders,
            chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
          );
        });
      });
      if (body === null) req.end();
      else req.end(body);
    });
  };
}

/**
 * A `fetch` over the same exchange, for code that wants one (an SDK client, say), at a fraction of
 * Node's fetch's CPU (docs/performance.md#http-client). Bodies it does not handle (streams, forms,
 * blobs) and other protocols go to the global fetch.
 */
export function createKeepAliveFetch(options: KeepAliveFetchOptions = {}): FetchLike {
  const exchange = createExchange(options);
  return function keepAliveFetch(input, init = {}) {
    if (typeof input !== 'string' && !(input instanceof URL)) return globalThis.fetch(input, init);
    const body = bodyBytes(init.body);
    if (body === undefined) return globalThis.fetch(input, init);
    const url = typeof input === 'string' ? new URL(input) : input;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return globalThis.fetch(input, init);
    const pairs = { host: url.host, ...headerPairs(init.headers) };
    const headers = Object.entries(pairs).flat();
    return exchange(url, { method: init.method ?? 'GET', headers, body, signal: init.signal ?? undefined }).then(
      (r) => new BufferedResponse(r.body, r.status, r.statusText, responseHeaders(r.rawHeaders), url.href) as unknown as Response,
    );
  } as FetchLike;
}
