// The viewer's HTTP server: one Node process serves the static app (src/viewer/app, its TypeScript
// bundled into main.js and shipped in the package), the JSON API of api.ts and a server-sent event stream over the store's
// event log. It knows HTTP only; every answer comes from the backend (src/app/view.ts). Each
// request passes the access check (access.ts: the token, or the Host header on loopback), then
// goes to its route: the API (api-routes.ts), the event stream (event-streams.ts), or the app's
// files and pages (here); http.ts reads requests and writes responses with the security headers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { NotFoundError, UsageError, UserError, RevloopError, namingOption } from '../core/errors.ts';
import { browserScript } from '../html/bundle.ts';
import type { ViewerBackend } from './api.ts';
import { answeredByAccessCheck, isLoopbackHost, presentedToken, type PresentedToken } from './access.ts';
import { answerApi } from './api-routes.ts';
import { EventStreams } from './event-streams.ts';
import { VIEWER_SERVER_DEFAULTS } from './defaults.ts';
import { BadRequest, problemPage, segments, send, sendJson, TYPES } from './http.ts';

export { generateToken, isLoopbackHost, tokenMatches } from './access.ts';
export { MAX_QUERY_CHARS } from './api-routes.ts';
export { CONTENT_SECURITY_POLICY } from './http.ts';

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

/**
 * The static app's files, read once: name → bytes. The app's script is the bundle of
 * src/viewer/app/*.ts: dist/viewer/app/main.js from `npm run build`, or, run from the sources,
 * bundled now (src/html/bundle.ts).
 */
function loadApp(): Map<string, Buffer> {
  const dir = new URL('./app/', import.meta.url);
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) if (/^[a-z0-9-]+\.(?:html|css)$/.test(name)) files.set(name, readFileSync(new URL(name, dir)));
  if (!files.has('index.html')) throw new Error(`the viewer's app is missing (no index.html in ${dir.pathname}); reinstall revloop`);
  files.set('main.js', Buffer.from(browserScript(new URL('./app/main.js', import.meta.url))));
  return files;
}

/** The app's own files under /app/, and its pages (every view of the app is the same page). */
function answerApp(app: Map<string, Buffer>, backend: ViewerBackend, res: ServerResponse, url: URL, parts: string[]): void {
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
}

export async function startViewerServer(o: ViewerServerOptions): Promise<ViewerServer> {
  const host = o.host ?? VIEWER_SERVER_DEFAULTS.host;
  const loopback = isLoopbackHost(host);
  const token = loopback ? null : (o.token ?? null);
  if (!loopback && !token) throw new UsageError(`a viewer on ${host} (not loopback) needs an access token`, { option: 'token' });
  const app = loadApp();
  const backend = o.backend;
  const log = o.log ?? (() => {});
  const streams = new EventStreams(
    backend,
    o.pollMs ?? VIEWER_SERVER_DEFAULTS.pollMs,
    o.batch ?? VIEWER_SERVER_DEFAULTS.batch,
    o.maxStreams ?? VIEWER_SERVER_DEFAULTS.maxStreams,
    log,
  );

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    let given: PresentedToken | null = null;
    try {
      url = new URL(req.url ?? '/', 'http://viewer.invalid');
      if (token) given = presentedToken(req, url);
    } catch (e) {
      // A request that cannot be read is the client's mistake: a plain 400, nothing on the console.
      const why = e instanceof BadRequest ? e.message : 'the request target is not a valid path';
      return send(res, 400, 'text/plain; charset=utf-8', `bad request: ${why}`);
    }
    const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
    if (answeredByAccessCheck(req, res, url, token, given, isApi)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'text/plain; charset=utf-8', 'the viewer is read-only: GET only', { allow: 'GET, HEAD' });
    try {
      const parts = segments(url.pathname);
      if (isApi) return await answerApi(backend, streams, req, res, url, parts);
      return answerApp(app, backend, res, url, parts);
    } catch (e) {
      if (res.headersSent) {
        res.end();
        return;
      }
      const code = RevloopError.isInstance(e) ? e.code : null;
      const status =
        e instanceof NotFoundError ? 404 : code === 'E_INTEGRITY' ? 409 : e instanceof UserError || RevloopError.isInstance(e) ? 400 : 500;
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
        reject(new UsageError(`cannot listen on ${host}: no such address on this machine (${e.code})`, { option: 'host' }));
      else if (e.code === 'EACCES')
        reject(new UsageError(`not allowed to listen on port ${o.port} (ports below 1024 need privileges)`, { option: 'port' }));
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
      streams.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
