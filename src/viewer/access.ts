// Who may use the viewer (docs/viewer.md, "Security"). It binds to loopback unless told otherwise,
// and then refuses requests whose Host header is not a loopback name (a web page cannot reach it
// through DNS rebinding). On any other address every request must carry the access token — a
// header, the `token` query parameter, or the cookie set when a page was opened with it — compared
// in constant time.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { cookie, problemPage, send, TYPES } from './http.ts';

/** The cookie that keeps the token for the app's own requests. */
const TOKEN_COOKIE = 'revloop_token';

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

/** The token a request presents, and how. */
export interface PresentedToken {
  value: string | null;
  via: 'header' | 'query' | 'cookie' | null;
}

/** The token a request presents: a Bearer or X-Revloop-Token header, the `token` parameter, or the cookie. */
export function presentedToken(req: IncomingMessage, url: URL): PresentedToken {
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

/**
 * Answers a request that may not go further: with a token, one presenting no match (401), or a
 * page opened with ?token= (redirected without it, the token kept in a cookie); without one, a
 * request not addressed to this machine (403). Returns whether it answered.
 */
export function answeredByAccessCheck(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  token: string | null,
  given: PresentedToken | null,
  isApi: boolean,
): boolean {
  if (token && given) {
    if (!tokenMatches(given.value, token)) {
      const text =
        'This revloop viewer needs its access token: open the address `revloop view` printed (it ends in ?token=…), or send the token as a Bearer header.';
      if (isApi)
        send(res, 401, 'application/json; charset=utf-8', JSON.stringify({ error: text }), {
          'www-authenticate': 'Bearer realm="revloop view"',
        });
      else
        send(res, 401, TYPES.html, problemPage('Access token required', text), {
          'www-authenticate': 'Bearer realm="revloop view"',
        });
      return true;
    }
    if (given.via === 'query' && !isApi && req.method === 'GET') {
      // A page opened with ?token=: keep the token in a cookie for the app's own requests, and drop it from the address bar.
      url.searchParams.delete('token');
      const location = url.pathname + (url.search || '');
      send(res, 303, 'text/plain; charset=utf-8', 'see ' + location, {
        location,
        'set-cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`,
      });
      return true;
    }
  } else if (!loopbackHostHeader(req)) {
    send(
      res,
      403,
      'text/plain; charset=utf-8',
      'revloop view answers only requests addressed to this machine (localhost, 127.0.0.1 or [::1]).',
    );
    return true;
  }
  return false;
}
