// The exchange revloop's HTTP backends use (src/models/http/node-fetch.ts's HttpExchange: one request,
// the whole response buffered, a deadline over the whole exchange, the caller's AbortSignal, a 2xx
// body refused past maxBodyBytes while it is read, an error body cut at maxErrorBodyBytes), built on
// undici's Pool instead of revloop's own HTTP/1.1 client, for bench/http.ts and bench/run-http.ts to
// measure the two side by side (issue 38; docs/performance.md#http-client). Two ways to use undici:
//
//   'undici'           pool.request(): the documented API (a Readable body, a signal per request)
//   'undici-dispatch'  pool.dispatch() with a handler of our own: undici's lowest layer (no stream,
//                      no per-request signal listener), the cheapest undici can be
//
// One Pool per origin, keep-alive as revloop's (4 s idle, or the server's Keep-Alive hint, which
// undici honours itself), pipelining off (one request per connection at a time, as http1.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { Pool, type Dispatcher } from 'undici';
import * as srcFetch from '../src/models/http/node-fetch.ts';
import { whenAborted, type ExchangeInit, type ExchangeResult, type HttpExchange } from '../src/models/http/node-fetch.ts';

export type UndiciFlavour = 'undici' | 'undici-dispatch';

/**
 * The error classes the transport tells apart with instanceof: the sources' by default, the
 * compiled library's when bench/run-http.ts --dist swaps the client in dist/ (undici-node-fetch.ts).
 */
let BodyTooLarge = srcFetch.BodyTooLarge;
let DeadlineExceeded = srcFetch.DeadlineExceeded;

/** Status codes whose responses carry no body (as node-fetch.ts). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const SINGLE_VALUED = new Set(['content-length', 'content-type', 'retry-after', 'location', 'server', 'etag', 'age', 'expires']);

/** Undoes the content-coding within `max` bytes (as node-fetch.ts's decode). */
function decode(encoding: string | undefined, raw: Buffer, max: number): Buffer {
  const o = Number.isFinite(max) ? { maxOutputLength: Math.max(1, max) } : {};
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return raw;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(raw, o);
    case 'deflate':
      return inflateSync(raw, o);
    case 'br':
      return brotliDecompressSync(raw, o);
    default:
      throw new Error(`unsupported content-encoding "${encoding}"`);
  }
}

/** undici's raw header list (Buffers, name, value, …) as node:http parses it. */
function headersOf(raw: Buffer[] | string[]): { headers: IncomingHttpHeaders; rawHeaders: string[] } {
  const headers: Record<string, string | string[]> = {};
  const rawHeaders: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toString('latin1');
    const value = raw[i + 1].toString('latin1');
    rawHeaders.push(name, value);
    const key = name.toLowerCase();
    const prev = headers[key];
    if (prev === undefined) headers[key] = key === 'set-cookie' ? [value] : value;
    else if (key === 'set-cookie') (prev as string[]).push(value);
    else if (!SINGLE_VALUED.has(key)) headers[key] = `${prev as string}, ${value}`;
  }
  return { headers: headers as IncomingHttpHeaders, rawHeaders };
}

/** The buffered result, decoded within its limit (a 2xx past it is BodyTooLarge, an error body cut). */
function result(
  status: number,
  statusText: string,
  raw: Buffer[] | string[],
  body: Buffer | null,
  init: ExchangeInit,
  cut: boolean,
): ExchangeResult {
  const { headers, rawHeaders } = headersOf(raw);
  const ok = status >= 200 && status <= 299;
  const max = (ok ? init.maxBodyBytes : init.maxErrorBodyBytes) ?? Infinity;
  let decoded: Buffer | null;
  try {
    decoded = NULL_BODY_STATUS.has(status) ? null : decode(headers['content-encoding'], body ?? Buffer.alloc(0), max);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw e;
    if (ok) throw new BodyTooLarge(max, max + 1, status, Buffer.alloc(0));
    decoded = Buffer.from(`[a compressed error body that decodes to more than ${max} bytes]`);
    cut = true;
  }
  const r: ExchangeResult = { status, statusText, headers, rawHeaders, body: decoded };
  if (cut) r.truncated = true;
  return r;
}

/** The dispatch handler: buffers one response, enforcing the limits while it reads. */
class BufferingHandler implements Dispatcher.DispatchHandlers {
  private abortFn: ((err?: Error) => void) | null = null;
  private status = 0;
  private statusText = '';
  private raw: Buffer[] = [];
  private parts: Buffer[] = [];
  private bytes = 0;
  private limit = Infinity;
  private ok = false;
  settled = false;
  /** Set before the connection is assigned: applied in onConnect. */
  private pendingAbort: Error | null = null;

  constructor(
    private readonly init: ExchangeInit,
    private readonly done: (err: unknown, r?: ExchangeResult) => void,
  ) {}

  abort(err: Error): void {
    if (this.abortFn) this.abortFn(err);
    else this.pendingAbort = err;
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort;
    if (this.pendingAbort) abort(this.pendingAbort);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], _resume: () => void, statusText: string): boolean {
    if (statusCode < 200) return true; // an interim response: the final one follows
    this.status = statusCode;
    this.statusText = statusText;
    this.raw = rawHeaders;
    this.ok = statusCode >= 200 && statusCode <= 299;
    this.limit = (this.ok ? this.init.maxBodyBytes : this.init.maxErrorBodyBytes) ?? Infinity;
    if (this.ok && Number.isFinite(this.limit)) {
      for (let i = 0; i < rawHeaders.length; i += 2) {
        if (rawHeaders[i].length === 14 && rawHeaders[i].toString('latin1').toLowerCase() === 'content-length') {
          const announced = Number(rawHeaders[i + 1].toString('latin1'));
          if (announced > this.limit) this.fail(new BodyTooLarge(this.limit, 0, statusCode, Buffer.alloc(0), announced));
        }
      }
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return false;
    if (this.bytes + chunk.length > this.limit) {
      const room = this.limit - this.bytes;
      if (this.ok) {
        const head = Buffer.concat([...this.parts, chunk]).subarray(0, 4096);
        this.fail(new BodyTooLarge(this.limit, this.bytes + chunk.length, this.status, Buffer.from(head)));
        return false;
      }
      if (room > 0) this.parts.push(chunk.subarray(0, room));
      this.bytes = this.limit;
      this.settle(true);
      this.abortFn?.(new Error('error body cut'));
      return false;
    }
    this.parts.push(chunk);
    this.bytes += chunk.length;
    return true;
  }

  onComplete(): void {
    this.settle(false);
  }

  onError(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.done(err);
  }

  private fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.done(err);
    this.abortFn?.(err);
  }

  private settle(cut: boolean): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.bytes);
    try {
      this.done(undefined, result(this.status, this.statusText, this.raw, body, this.init, cut));
    } catch (e) {
      this.done(e);
    }
  }
}

/** An HttpExchange over undici Pools (one per origin). `close()` ends the pools. */
export function createUndiciExchange(
  flavour: UndiciFlavour,
  options: { idleSocketMs?: number; errors?: Pick<typeof srcFetch, 'BodyTooLarge' | 'DeadlineExceeded'> } = {},
): HttpExchange & { close(): Promise<void> } {
  if (options.errors) ({ BodyTooLarge, DeadlineExceeded } = options.errors);
  const keepAliveTimeout = options.idleSocketMs ?? 4000;
  const pools = new Map<string, Pool>();
  const poolFor = (url: URL) => {
    let pool = pools.get(url.origin);
    if (!pool) pools.set(url.origin, (pool = new Pool(url.origin, { keepAliveTimeout, pipelining: 1 })));
    return pool;
  };

  function viaDispatch(url: URL, init: ExchangeInit): Promise<ExchangeResult> {
    const signal = init.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<ExchangeResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let unwatch: (() => void) | undefined;
      const handler = new BufferingHandler(init, (err, r) => {
        if (timer) clearTimeout(timer);
        unwatch?.();
        if (err !== undefined) reject(err);
        else resolve(r!);
      });
      const stop = (reason: unknown) => {
        if (handler.settled) return;
        handler.onError(reason as Error);
        handler.abort(reason instanceof Error ? reason : new Error(String(reason)));
      };
      // One 'abort' listener per signal, as node-fetch.ts has it (the same cost for both clients).
      if (signal) unwatch = whenAborted(signal, () => stop(signal.reason));
      if (init.timeoutMs !== undefined) timer = setTimeout(() => stop(new DeadlineExceeded(init.timeoutMs!)), init.timeoutMs);
      poolFor(url).dispatch(
        {
          path: url.pathname + url.search,
          method: init.method as Dispatcher.HttpMethod,
          headers: init.headers as string[],
          body: init.body,
        },
        handler,
      );
    });
  }

  async function viaRequest(url: URL, init: ExchangeInit): Promise<ExchangeResult> {
    const signal = init.signal;
    if (signal?.aborted) throw signal.reason;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      init.timeoutMs !== undefined ? setTimeout(() => controller.abort(new DeadlineExceeded(init.timeoutMs!)), init.timeoutMs) : undefined;
    try {
      const res = await poolFor(url).request({
        path: url.pathname + url.search,
        method: init.method as Dispatcher.HttpMethod,
        headers: init.headers as string[],
        body: init.body,
        signal: controller.signal,
      });
      // Stops reading (undici then closes the connection); its abort error is expected, not unhandled.
      const discard = () => res.body.on('error', () => undefined).destroy();
      const ok = res.statusCode >= 200 && res.statusCode <= 299;
      const limit = (ok ? init.maxBodyBytes : init.maxErrorBodyBytes) ?? Infinity;
      const announced = Number(res.headers['content-length'] ?? NaN);
      if (ok && announced > limit) {
        discard();
        throw new BodyTooLarge(limit, 0, res.statusCode, Buffer.alloc(0), announced);
      }
      const parts: Buffer[] = [];
      let bytes = 0;
      let cut = false;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (bytes + chunk.length > limit) {
          if (ok) {
            const head = Buffer.concat([...parts, chunk]).subarray(0, 4096);
            discard();
            throw new BodyTooLarge(limit, bytes + chunk.length, res.statusCode, Buffer.from(head));
          }
          parts.push(chunk.subarray(0, limit - bytes));
          bytes = limit;
          cut = true;
          discard();
          break;
        }
        parts.push(chunk);
        bytes += chunk.length;
      }
      // undici's parsed headers lose the raw list: rebuild it from them (the transport reads headers only).
      const raw: string[] = [];
      for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : [v ?? '']) raw.push(k, x);
      const body = parts.length === 1 ? parts[0] : Buffer.concat(parts, bytes);
      return result(res.statusCode, '', raw, body, init, cut);
    } catch (e) {
      if (controller.signal.aborted) throw controller.signal.reason;
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  const exchange = (flavour === 'undici' ? viaRequest : viaDispatch) as HttpExchange & { close(): Promise<void> };
  exchange.close = async () => {
    await Promise.all([...pools.values()].map((p) => p.close()));
    pools.clear();
  };
  return exchange;
}
