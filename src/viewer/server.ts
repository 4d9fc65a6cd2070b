// The viewer's HTTP server: one Node process serves the prebuilt static app (src/viewer/app,
// shipped in the package), the JSON API of api.ts and a server-sent event stream over the store's
// event log. It knows HTTP only; every answer comes from the backend (src/app/view.ts).
//
// Security (docs/viewer.md, "Security"): it binds to loopback unless told otherwise, and then refuses
// requests whose Host header is not a loopback name (a web page cannot reach it through DNS
// rebinding). On any other address every request must carry the access token — a header, the
// `token` query parameter, or the cookie set when a page was opened with it — compared in constant
// time. Every response carries a strict Content-Security-Policy: scripts and styles only from this
// server, no inline script, no request anywhere else.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { NotFoundError, UsageError, UserError, isRevloopError, namingOption } from '../core/errors.ts';
import type { CompareQuery, LiveEvent, TrajectoryFilter, ViewerBackend } from './api.ts';
import { VIEWER_SERVER_DEFAULTS } from './defaults.ts';

export interface ViewerServerOptions {
  backend: ViewerBackend;
  /** Address to bind (default loopback, 127.0.0.1). */
  host?: string;
  /** Port (default VIEWER_SERVER_DEFAULTS.port, 8300; 0 picks a free one). */
  port?: number;
  /** The access token; required for a non-loopback host (see generateToken), ignored on loopback. */
  token?: string | null;
  /** How often the event stream polls the store, in ms (default 250). */
  pollMs?: number;
  /** Most events read per poll and client (default 500). */
  batch?: number;
  /** Problems worth a line on the console (a failed poll, an internal error). */
  log?: (line: string) => void;
  /** Most event streams open at once (default 16); a stream beyond is answered 429 (docs/viewer.md). */
  maxStreams?: number;
}

export interface ViewerServer {
  host: string;
  port: number;
  /** The address to open (with ?token=… when a token is required). */
  url: string;
  token: string | null;
  /** Open event streams (for tests and the benchmark). */
  streams(): number;
  close(): Promise<void>;
}

/** The page's policy: nothing but this origin, no inline script or style, no framing. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

const TOKEN_COOKIE = 'revloop_token';
const MAX_LIMIT = 1000;
/** The longest text search (`q`): a search costs about the drafts' size times the query's length. */
export const MAX_QUERY_CHARS = 200;

/** A request that cannot be read (a malformed target or cookie): 400, no stack trace anywhere. */
class BadRequest extends Error {}

/** Whether binding to `host` keeps the server on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** A fresh access token: 32 random bytes, base64url. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (of SHA-256 digests, so lengths never leak either). */
export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (typeof given !== 'string' || !given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** The static app's files, read once: name → bytes. */
function loadApp(): Map<string, Buffer> {
  const dir = new URL('./app/', import.meta.url);
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) if (/^[a-z0-9-]+\.(?:html|js|css)$/.test(name)) files.set(name, readFileSync(new URL(name, dir)));
  if (!files.has('index.html')) throw new Error(`the viewer's app is missing (no index.html in ${dir.pathname}); reinstall revloop`);
  return files;
}

function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        throw new BadRequest(`the ${name} cookie is not valid percent-encoding`);
      }
    }
  }
  return null;
}

function presentedToken(req: IncomingMessage, url: URL): { value: string | null; via: 'header' | 'query' | 'cookie' | null } {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && /^Bearer\s+/i.test(auth)) return { value: auth.replace(/^Bearer\s+/i, '').trim(), via: 'header' };
  const header = req.headers['x-revloop-token'];
  if (typeof header === 'string') return { value: header, via: 'header' };
  const query = url.searchParams.get('token');
  if (query !== null) return { value: query, via: 'query' };
  const c = cookie(req, TOKEN_COOKIE);
  return c !== null ? { value: c, via: 'cookie' } : { value: null, via: null };
}

/** The Host header names this machine (the DNS-rebinding guard of a loopback server). */
function loopbackHostHeader(req: IncomingMessage): boolean {
  const host = req.headers.host;
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  return isLoopbackHost(name);
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'no-store', ...extra });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

function problemPage(title: string, text: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}

/** A whole-number query parameter, or undefined when absent; refuses anything else by name. */
function wholeParam(url: URL, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(name, `query parameter ${name}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function textParam(url: URL, name: string, max = 1000): string | undefined {
  const v = url.searchParams.get(name);
  if (v !== null && v.length > max)
    throw new UsageError(name, `query parameter ${name}: at most ${max} characters (got ${v.length}); search for something more specific`);
  return v === null || v === '' ? undefined : v;
}

function segments(path: string): string[] {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new UsageError(null, `bad percent-encoding in the path ${JSON.stringify(path)}`);
  }
}

interface Stream {
  res: ServerResponse;
  cursor: number;
  busy: boolean;
  blocked: boolean;
}

export async function startViewerServer(o: ViewerServerOptions): Promise<ViewerServer> {
  const host = o.host ?? VIEWER_SERVER_DEFAULTS.host;
  const loopback = isLoopbackHost(host);
  const token = loopback ? null : (o.token ?? null);
  if (!loopback && !token) throw new UsageError('token', `a viewer on ${host} (not loopback) needs an access token`);
  const app = loadApp();
  const backend = o.backend;
  const pollMs = o.pollMs ?? VIEWER_SERVER_DEFAULTS.pollMs;
  const batch = o.batch ?? VIEWER_SERVER_DEFAULTS.batch;
  const log = o.log ?? (() => {});
  const maxStreams = o.maxStreams ?? VIEWER_SERVER_DEFAULTS.maxStreams;
  const streams = new Set<Stream>();
  let poller: ReturnType<typeof setInterval> | null = null;
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  /** Sends a stream what happened after its cursor, a batch at a time, as long as the socket keeps up. */
  async function pump(s: Stream): Promise<void> {
    if (s.busy || s.blocked || s.res.writableEnded) return;
    s.busy = true;
    try {
      for (;;) {
        const events: LiveEvent[] = await backend.eventsAfter(s.cursor, batch);
        if (s.res.writableEnded) return;
        let ok = true;
        for (const e of events) ok = s.res.write(`id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`) && ok;
        if (events.length) s.cursor = events[events.length - 1].id;
        if (!ok) {
          s.blocked = true;
          s.res.once('drain', () => {
            s.blocked = false;
            void pump(s);
          });
          return;
        }
        if (events.length < batch) return;
      }
    } catch (e) {
      log(`view: reading the event log failed: ${(e as Error).message}`);
      if (!s.res.writableEnded) s.res.write(`event: problem\ndata: ${JSON.stringify({ message: (e as Error).message })}\n\n`);
    } finally {
      s.busy = false;
    }
  }

  function startTimers(): void {
    if (poller) return;
    poller = setInterval(() => {
      for (const s of streams) void pump(s);
    }, pollMs);
    heartbeat = setInterval(() => {
      for (const s of streams) if (!s.blocked) s.res.write(': keep-alive\n\n');
    }, 15_000);
  }

  function stopTimers(): void {
    if (poller) clearInterval(poller);
    if (heartbeat) clearInterval(heartbeat);
    poller = heartbeat = null;
  }

  async function openStream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // Each stream replays the log from its cursor: beyond the limit a client is asked to come back.
    if (streams.size >= maxStreams)
      return send(
        res,
        429,
        'application/json; charset=utf-8',
        JSON.stringify({
          error: `${streams.size} event streams are open, the most this viewer serves at once (maxStreams); retry later`,
        }),
        { 'retry-after': '5' },
      );
    // A reconnecting EventSource sends the last id it received; that wins over the URL's cursor.
    const last = req.headers['last-event-id'];
    let cursor: number | undefined;
    if (typeof last === 'string' && /^\d+$/.test(last.trim())) cursor = Number(last.trim());
    else cursor = wholeParam(url, 'after', 0);
    cursor ??= await backend.head();
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ cursor })}\n\n`);
    const s: Stream = { res, cursor, busy: false, blocked: false };
    streams.add(s);
    startTimers();
    const done = () => {
      streams.delete(s);
      if (!streams.size) stopTimers();
    };
    req.on('close', done);
    res.on('close', done);
    void pump(s);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, parts: string[]): Promise<void> {
    const [, resource, id, sub, key, ...rest] = parts;
    if (resource === 'runs' && parts.length === 2) return sendJson(res, 200, await backend.runs());
    if (resource === 'runs' && id !== undefined && parts.length === 3) {
      return sendJson(res, 200, await backend.run(id, { html: url.searchParams.get('html') === '1' }));
    }
    if (resource === 'runs' && id !== undefined && sub === 'trajectories' && key === undefined) {
      const filter: TrajectoryFilter = {
        controller: textParam(url, 'controller'),
        family: textParam(url, 'family'),
        source: textParam(url, 'source'),
        outcome: textParam(url, 'outcome'),
        label: textParam(url, 'label'),
        q: textParam(url, 'q', MAX_QUERY_CHARS),
        offset: wholeParam(url, 'offset', 0),
        limit: wholeParam(url, 'limit', 1, MAX_LIMIT),
      };
      return sendJson(res, 200, await backend.trajectories(id, filter));
    }
    if (resource === 'runs' && id !== undefined && sub === 'trajectories' && key !== undefined && !rest.length) {
      return sendJson(res, 200, await backend.trajectory(id, key, wholeParam(url, 'index', 0)));
    }
    if (resource === 'compare' && parts.length === 2) {
      const a = textParam(url, 'a');
      const b = textParam(url, 'b');
      if (!a || !b) throw new UsageError('a', 'compare needs two runs: /api/compare?a=RUN&b=RUN');
      const q: CompareQuery = {
        a,
        b,
        cell: textParam(url, 'cell'),
        family: textParam(url, 'family'),
        offset: wholeParam(url, 'offset', 0),
        limit: wholeParam(url, 'limit', 1, MAX_LIMIT),
      };
      return sendJson(res, 200, await backend.compare(q));
    }
    if (resource === 'events' && parts.length === 2) return openStream(req, res, url);
    throw new NotFoundError('other', url.pathname, `no API endpoint ${url.pathname} (see docs/viewer.md)`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    let given: ReturnType<typeof presentedToken> | null = null;
    try {
      url = new URL(req.url ?? '/', 'http://viewer.invalid');
      if (token) given = presentedToken(req, url);
    } catch (e) {
      // A request that cannot be read is the client's mistake: a plain 400, nothing on the console.
      const why = e instanceof BadRequest ? e.message : 'the request target is not a valid path';
      return send(res, 400, 'text/plain; charset=utf-8', `bad request: ${why}`);
    }
    const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
    if (token && given) {
      if (!tokenMatches(given.value, token)) {
        const text =
          'This revloop viewer needs its access token: open the address `revloop view` printed (it ends in ?token=…), or send the token as a Bearer header.';
        if (isApi)
          return send(res, 401, 'application/json; charset=utf-8', JSON.stringify({ error: text }), {
            'www-authenticate': 'Bearer realm="revloop view"',
          });
        return send(res, 401, TYPES.html, problemPage('Access token required', text), {
          'www-authenticate': 'Bearer realm="revloop view"',
        });
      }
      if (given.via === 'query' && !isApi && req.method === 'GET') {
        // A page opened with ?token=: keep the token in a cookie for the app's own requests, and drop it from the address bar.
        url.searchParams.delete('token');
        const location = url.pathname + (url.search || '');
        return send(res, 303, 'text/plain; charset=utf-8', 'see ' + location, {
          location,
          'set-cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`,
        });
      }
    } else if (!loopbackHostHeader(req)) {
      return send(
        res,
        403,
        'text/plain; charset=utf-8',
        'revloop view answers only requests addressed to this machine (localhost, 127.0.0.1 or [::1]).',
      );
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'text/plain; charset=utf-8', 'the viewer is read-only: GET only', { allow: 'GET, HEAD' });
    try {
      const parts = segments(url.pathname);
      if (isApi) return await api(req, res, url, parts);
      if (parts[0] === 'app' && parts.length === 2) {
        if (parts[1] === 'revloop.css') return send(res, 200, TYPES.css, backend.stylesheet(), { 'cache-control': 'no-cache' });
        const file = app.get(parts[1]);
        if (file) return send(res, 200, TYPES[parts[1].split('.').pop()!], file, { 'cache-control': 'no-cache' });
        return send(res, 404, 'text/plain; charset=utf-8', 'not found');
      }
      // Every other path is a view of the app (its state lives in the URL): the same page.
      if (!parts.length || parts[0] === 'runs' || parts[0] === 'compare')
        return send(res, 200, TYPES.html, app.get('index.html')!, { 'cache-control': 'no-cache' });
      return send(res, 404, TYPES.html, problemPage('Not found', `Nothing at ${url.pathname}.`));
    } catch (e) {
      if (res.headersSent) {
        res.end();
        return;
      }
      const code = isRevloopError(e) ? e.code : null;
      const status =
        e instanceof NotFoundError ? 404 : code === 'E_INTEGRITY' ? 409 : e instanceof UserError || isRevloopError(e) ? 400 : 500;
      if (status === 500)
        log(`view: ${req.method} ${url.pathname}: ${process.env.REVLOOP_DEBUG ? ((e as Error).stack ?? e) : (e as Error).message}`);
      const message = status === 500 ? `internal error: ${(e as Error).message}` : (e as Error).message;
      if (isApi) return sendJson(res, status, { error: message });
      return send(res, status, TYPES.html, problemPage('Error', message));
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      log(`view: ${process.env.REVLOOP_DEBUG ? ((e as Error).stack ?? e) : (e as Error).message}`);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error');
      else res.end();
    });
  });
  const requested = o.port ?? VIEWER_SERVER_DEFAULTS.port;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE')
        reject(
          namingOption(
            'port',
            (n) => new UserError(`port ${requested} is already in use on ${host}; choose another with ${n} (0 picks a free one)`),
          ),
        );
      else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
        reject(new UsageError('host', `cannot listen on ${host}: no such address on this machine (${e.code})`));
      else if (e.code === 'EACCES')
        reject(new UsageError('port', `not allowed to listen on port ${o.port} (ports below 1024 need privileges)`));
      else reject(e);
    });
    server.listen(requested, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : requested;
  const wildcard = host === '0.0.0.0' || host === '::';
  const shownHost = wildcard ? hostname() : host;
  const hostPart = isIP(shownHost) === 6 ? `[${shownHost}]` : shownHost;
  const url = `http://${hostPart}:${port}/${token ? `?token=${token}` : ''}`;
  return {
    host,
    port,
    url,
    token,
    streams: () => streams.size,
    async close() {
      stopTimers();
      for (const s of streams) s.res.end();
      streams.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
