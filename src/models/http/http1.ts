// A minimal HTTP/1.1 client over node:net for plain `http:` endpoints: what revloop's HTTP model
// backends talk to most (vLLM, llama.cpp, serve-sim on loopback or a LAN).
//
// One request at a time per connection (no pipelining), written in one piece; the whole response
// buffered. Framing as RFC 9112 §6 has it: no body for HEAD, 1xx, 204 and 304 (1xx heads are
// skipped), chunked when it is the final transfer coding, else Content-Length, else until the
// server closes. A connection goes back to its pool (LIFO, unreferenced, so it never keeps the
// process alive) only after a complete response that allows keep-alive; it is retired after
// `idleSocketMs` idle, or a second before the server's announced `Keep-Alive: timeout`. Each
// connection has one set of listeners for its whole life, dispatching to the exchange it carries.
//
// Errors read as node:http's: connect errors pass through (ECONNREFUSED, ENOTFOUND, …), a
// connection closed before any response byte is "socket hang up" (ECONNRESET).
//
// Why not node:http or undici: docs/performance.md#http-client
import { connect, type Socket } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/** What one exchange returns (node-fetch.ts's ExchangeResult before decoding). */
export interface Http1Response {
  status: number;
  statusText: string;
  /** Lower-cased names, as node:http builds them: repeats joined by ", ", set-cookie an array, and the first value only for the single-valued names below. */
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  /** The body bytes as received (content-coding not undone); null when the response has none. */
  body: Buffer | null;
  /** An error response's body was cut at `maxErrorBodyBytes` (the rest was never read). */
  truncated?: boolean;
}

export interface Http1Request {
  method: string;
  /** Name, value, … pairs (host included), sent as they are after validation. */
  headers: readonly string[];
  body: string | Buffer | null;
  /** A 2xx body longer than this is not read: the exchange fails with BodyTooLarge (no limit when absent). */
  maxBodyBytes?: number;
  /** Of any other response's body only this much is read (then the connection is closed). */
  maxErrorBodyBytes?: number;
}

/**
 * A successful response's body exceeded the caller's limit: reading stopped there (a model's reply
 * of 50 MB is a fault to record, not text to hold in memory). `head` keeps its first bytes.
 */
export class BodyTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly received: number,
    readonly status: number,
    readonly head: Buffer,
    readonly announced: number | null = null,
  ) {
    super(
      announced !== null
        ? `the response announced ${announced} bytes, more than the limit of ${limit}`
        : `the response exceeded the limit of ${limit} bytes (reading stopped after ${received})`,
    );
    this.name = 'BodyTooLarge';
  }
}

/** How many of a refused body's first bytes a BodyTooLarge keeps (for the fault record). */
const KEPT_HEAD_BYTES = 4096;

/** node:http's limit on a response head (--max-http-header-size's default). */
const MAX_HEAD_BYTES = 16 * 1024;
/** node:http keeps only the first of these when a response repeats them. */
const SINGLE_VALUED = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

function errorWithCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The header block of a request ("name: value\r\n" lines), checked as node:http checks them. */
function headerBlock(pairs: readonly string[]): string {
  let out = '';
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i];
    const value = pairs[i + 1];
    if (!TOKEN.test(name))
      throw Object.assign(new TypeError(`Header name must be a valid HTTP token ["${name}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
    if (BAD_VALUE.test(value))
      throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), { code: 'ERR_INVALID_CHAR' });
    out += `${name}: ${value}\r\n`;
  }
  return out;
}

interface ParsedHead {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  keepAlive: boolean;
}

function parseHead(text: string): ParsedHead {
  const lines = text.split('\r\n');
  const m = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/.exec(lines[0]);
  if (!m) throw errorWithCode(`malformed HTTP response status line: ${JSON.stringify(lines[0].slice(0, 80))}`, 'HPE_INVALID_CONSTANT');
  const headers: Record<string, string | string[]> = {};
  const rawHeaders: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw errorWithCode(`malformed HTTP response header line: ${JSON.stringify(line.slice(0, 80))}`, 'HPE_INVALID_HEADER_TOKEN');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    rawHeaders.push(name, value);
    const key = name.toLowerCase();
    const prev = headers[key];
    if (prev === undefined) headers[key] = key === 'set-cookie' ? [value] : value;
    else if (key === 'set-cookie') (prev as string[]).push(value);
    else if (!SINGLE_VALUED.has(key)) headers[key] = `${prev as string}, ${value}`;
  }
  const connection = String(headers.connection ?? '').toLowerCase();
  const keepAlive = m[1] === '1' ? !/(?:^|,)\s*close\s*(?:,|$)/.test(connection) : /(?:^|,)\s*keep-alive\s*(?:,|$)/.test(connection);
  return { status: Number(m[2]), statusText: m[3] ?? '', headers: headers as IncomingHttpHeaders, rawHeaders, keepAlive };
}

/** How a response body ends. */
type Framing = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' };

function framing(method: string, head: ParsedHead): Framing {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return { kind: 'none' };
  const te = head.headers['transfer-encoding'];
  if (te !== undefined) return /(?:^|,)\s*chunked\s*$/i.test(te) ? { kind: 'chunked' } : { kind: 'close' };
  const cl = head.headers['content-length'];
  if (cl !== undefined) {
    if (!/^\d+$/.test(cl))
      throw errorWithCode(`invalid content-length in the response: ${JSON.stringify(cl)}`, 'HPE_INVALID_CONTENT_LENGTH');
    return { kind: 'length', length: Number(cl) };
  }
  return { kind: 'close' };
}

/** Chunked decoding, between chunk data: a size line next, the trailers (after the last chunk), or the CRLF that ends a chunk's data. */
const CHUNK_SIZE_LINE = -1;
const CHUNK_TRAILERS = -2;
const CHUNK_DATA_END = -3;

/** One connection of a pool, with the exchange it is carrying (null while idle). */
interface Connection {
  socket: Socket;
  pool: Connection[];
  current: Exchange | null;
  /** The socket's idle timeout now set (ms). */
  idleMs: number;
}

/** One request/response on a connection: parses the bytes it is handed and settles once. */
class Exchange {
  private buffered: Buffer | null = null;
  private head: ParsedHead | null = null;
  private frame: Framing | null = null;
  private bodyParts: Buffer[] = [];
  private bodyBytes = 0;
  /** Chunked decoding: bytes left in the current chunk, or which line comes next (CHUNK_SIZE_LINE, …). */
  private chunkLeft = CHUNK_SIZE_LINE;
  /** The body limit of this response (set with its head) and whether it cuts (error) or fails (2xx). */
  private limit = Infinity;
  private cuts = false;
  private truncated = false;
  settled = false;

  constructor(
    readonly method: string,
    private readonly limits: { body?: number; errorBody?: number },
    private readonly done: (err: Error | null, res?: Http1Response, reusable?: boolean) => void,
  ) {}

  onData(data: Buffer): void {
    if (this.settled) return;
    try {
      this.consume(this.buffered ? Buffer.concat([this.buffered, data]) : data);
    } catch (e) {
      this.finish(e as Error);
    }
  }

  /** The server closed the connection (end, or close without an error). */
  onEnd(): void {
    if (this.settled) return;
    if (this.head && this.frame?.kind === 'close') return this.complete(false);
    this.finish(
      this.head
        ? new Error('the server closed the connection before the response body was complete')
        : errorWithCode('socket hang up', 'ECONNRESET'),
    );
  }

  onError(e: Error): void {
    this.finish(e);
  }

  finish(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.done(err);
  }

  private consume(buf: Buffer): void {
    let at = 0;
    while (!this.head) {
      const end = buf.indexOf('\r\n\r\n', at, 'latin1');
      if (end < 0) {
        if (buf.length - at > MAX_HEAD_BYTES) throw errorWithCode('the response headers exceed 16 KiB', 'HPE_HEADER_OVERFLOW');
        this.buffered = at ? buf.subarray(at) : buf;
        return;
      }
      const head = parseHead(buf.toString('latin1', at, end));
      at = end + 4;
      if (head.status >= 100 && head.status < 200) {
        if (head.status === 101) throw errorWithCode('the server switched protocols (101), which revloop does not speak', 'HPE_UPGRADE');
        continue; // an interim response (100 Continue, 103 Early Hints): the final one follows
      }
      this.head = head;
      this.frame = framing(this.method, head);
      const ok = head.status >= 200 && head.status <= 299;
      this.limit = (ok ? this.limits.body : this.limits.errorBody) ?? Infinity;
      this.cuts = !ok;
      // A successful body announced beyond the limit is refused before any of it is read.
      if (ok && this.frame.kind === 'length' && this.frame.length > this.limit)
        throw new BodyTooLarge(this.limit, 0, head.status, Buffer.alloc(0), this.frame.length);
    }
    this.buffered = null;
    const frame = this.frame!;
    switch (frame.kind) {
      case 'none':
        if (at < buf.length) throw errorWithCode('the server sent bytes after a response without a body', 'HPE_INVALID_CONSTANT');
        return this.complete(this.head.keepAlive);
      case 'length': {
        const need = frame.length - this.bodyBytes;
        const have = buf.length - at;
        if (have > need) throw errorWithCode('the server sent more bytes than its content-length', 'HPE_INVALID_CONSTANT');
        if (have > 0) this.push(at === 0 ? buf : buf.subarray(at));
        if (this.bodyBytes === frame.length) this.complete(this.head.keepAlive);
        return;
      }
      case 'close':
        if (at < buf.length) this.push(at === 0 ? buf : buf.subarray(at));
        return;
      case 'chunked':
        return this.chunks(buf, at);
    }
  }

  private push(part: Buffer): void {
    if (this.settled) return;
    if (this.bodyBytes + part.length > this.limit) {
      const room = this.limit - this.bodyBytes;
      if (!this.cuts) {
        const kept = Buffer.concat([...this.bodyParts, part.subarray(0, Math.max(0, room))]).subarray(0, KEPT_HEAD_BYTES);
        throw new BodyTooLarge(this.limit, this.bodyBytes + part.length, this.head!.status, Buffer.from(kept));
      }
      // An error body: keep what a record keeps, read no further (the connection is not reused).
      if (room > 0) this.bodyParts.push(part.subarray(0, room));
      this.bodyBytes += Math.max(0, room);
      this.truncated = true;
      return this.complete(false);
    }
    this.bodyParts.push(part);
    this.bodyBytes += part.length;
  }

  private chunks(buf: Buffer, at: number): void {
    while (at < buf.length) {
      if (this.chunkLeft > 0) {
        const take = Math.min(this.chunkLeft, buf.length - at);
        this.push(buf.subarray(at, at + take));
        at += take;
        this.chunkLeft -= take;
        if (this.chunkLeft === 0) this.chunkLeft = CHUNK_DATA_END;
        continue;
      }
      const eol = buf.indexOf('\r\n', at, 'latin1');
      if (eol < 0) {
        if (buf.length - at > MAX_HEAD_BYTES) throw errorWithCode('a chunk line of the response exceeds 16 KiB', 'HPE_HEADER_OVERFLOW');
        this.buffered = buf.subarray(at);
        return;
      }
      const line = buf.toString('latin1', at, eol);
      at = eol + 2;
      if (this.chunkLeft === CHUNK_DATA_END) {
        if (line !== '') throw errorWithCode('malformed chunked response: no CRLF after a chunk', 'HPE_INVALID_CHUNK_SIZE');
        this.chunkLeft = CHUNK_SIZE_LINE;
      } else if (this.chunkLeft === CHUNK_SIZE_LINE) {
        const m = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (!m)
          throw errorWithCode(`malformed chunked response: chunk size line ${JSON.stringify(line.slice(0, 40))}`, 'HPE_INVALID_CHUNK_SIZE');
        const size = parseInt(m[1], 16);
        this.chunkLeft = size === 0 ? CHUNK_TRAILERS : size;
      } else if (line === '') {
        // The blank line after the last chunk and its trailers (which we do not keep).
        if (at < buf.length) throw errorWithCode('the server sent bytes after the end of a chunked response', 'HPE_INVALID_CONSTANT');
        return this.complete(this.head!.keepAlive);
      }
    }
    this.buffered = null;
  }

  private complete(reusable: boolean): void {
    if (this.settled) return;
    this.settled = true;
    const head = this.head!;
    const parts = this.bodyParts;
    const body = this.frame!.kind === 'none' ? null : parts.length === 1 ? parts[0] : Buffer.concat(parts, this.bodyBytes);
    const res: Http1Response = {
      status: head.status,
      statusText: head.statusText,
      headers: head.headers,
      rawHeaders: head.rawHeaders,
      body,
    };
    if (this.truncated) res.truncated = true;
    this.done(null, res, reusable && !this.truncated);
  }
}

/** Sends one request and buffers its response; `abort` ends it early (the connection is closed). */
export interface Http1Client {
  send(url: URL, req: Http1Request, settle: (err: Error | null, res?: Http1Response) => void): { abort(): void };
}

/**
 * Where every connection's reads land: node hands each read to its `onread` callback before the
 * next one, and the callback copies the bytes out, so one buffer serves all connections.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** A client with one pool of keep-alive connections per host:port. */
export function createHttp1Client(options: { idleSocketMs?: number } = {}): Http1Client {
  const idleMs = options.idleSocketMs ?? 4000;
  const pools = new Map<string, Connection[]>();
  /** Each header list's block, checked and joined once, and whether it is ASCII (then head and a string body go out as one UTF-8 string). */
  const blocks = new WeakMap<readonly string[], { text: string; ascii: boolean }>();

  function open(url: URL, pool: Connection[]): Connection {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // Reads land in READ_BUFFER and come straight to the exchange (`onread`): docs/performance.md#http-client
    const socket = connect({
      host,
      port: Number(url.port || 80),
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number, buf: Uint8Array): boolean => {
          // The buffer is reused by the next read (of any connection): the exchange gets a copy.
          if (conn.current) conn.current.onData(Buffer.from(buf.subarray(0, n)));
          else socket.destroy(); // bytes nobody asked for: the connection is out of step
          return true; // keep reading (false would pause the socket)
        },
      },
    });
    const conn: Connection = { socket, pool, current: null, idleMs };
    socket.setTimeout(idleMs);
    socket.on('end', () => {
      if (conn.current) conn.current.onEnd();
      socket.destroy();
    });
    socket.on('error', (e) => conn.current?.onError(e));
    socket.on('close', () => {
      const i = pool.indexOf(conn);
      if (i >= 0) pool.splice(i, 1);
      conn.current?.onEnd();
    });
    // While idle the timeout retires the connection; during an exchange the deadline is the caller's.
    socket.on('timeout', () => {
      if (!conn.current) socket.destroy();
    });
    return conn;
  }

  /** Back to the pool after a complete response, honouring the server's Keep-Alive hint. */
  function release(conn: Connection, res: Http1Response): void {
    let ms = idleMs;
    const hint = res.headers['keep-alive'];
    const m = typeof hint === 'string' ? /(?:^|,)\s*timeout=(\d+)/i.exec(hint) : null;
    if (m) ms = Math.min(ms, Number(m[1]) * 1000 - 1000);
    if (ms <= 0) return void conn.socket.destroy();
    if (ms !== conn.idleMs) {
      conn.idleMs = ms;
      conn.socket.setTimeout(ms);
    }
    conn.socket.unref();
    conn.pool.push(conn);
  }

  return {
    send(url, req, settle) {
      let block = blocks.get(req.headers);
      if (block === undefined) {
        const text = headerBlock(req.headers);
        blocks.set(req.headers, (block = { text, ascii: !/[^\x00-\x7f]/.test(text) }));
      }
      const key = url.host;
      let pool = pools.get(key);
      if (!pool) pools.set(key, (pool = []));
      let conn = pool.pop();
      while (conn && conn.socket.destroyed) conn = pool.pop();
      conn ??= open(url, pool);
      const c = conn;
      const exchange = new Exchange(req.method, { body: req.maxBodyBytes, errorBody: req.maxErrorBodyBytes }, (err, res, reusable) => {
        c.current = null;
        if (err || !reusable) c.socket.destroy();
        else release(c, res!);
        settle(err, res);
      });
      c.current = exchange;
      c.socket.ref();
      const body = req.body;
      const length = body === null ? '' : `content-length: ${typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length}\r\n`;
      const head = `${req.method} ${url.pathname}${url.search} HTTP/1.1\r\n${block.text}${length}\r\n`;
      // One write: header bytes are Latin-1 (as node:http sends them), the body UTF-8.
      if (body === null) c.socket.write(head, 'latin1');
      else if (typeof body === 'string' && block.ascii) c.socket.write(head + body, 'utf8');
      else c.socket.write(Buffer.concat([Buffer.from(head, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]));
      return {
        abort() {
          if (exchange.settled) return;
          exchange.settled = true;
          c.current = null;
          c.socket.destroy();
        },
      };
    },
  };
}
