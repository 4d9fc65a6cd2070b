// The viewer server's HTTP plumbing: reading a request (its path, query parameters and cookies,
// each refused by name when malformed) and writing a response, always with the security headers
// (a strict Content-Security-Policy: scripts and styles only from this server, no inline script,
// no request anywhere else).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UsageError } from '../core/errors.ts';

/** The page's policy: nothing but this origin, no inline script or style, no framing. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Headers of every response. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Content types of the static app's files, by extension. */
export const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** A request that cannot be read (a malformed target or cookie): 400, no stack trace anywhere. */
export class BadRequest extends Error {}

/** A cookie's value, or null when the request has none by that name. */
export function cookie(req: IncomingMessage, name: string): string | null {
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

/** Sends a whole response with the security headers, never cached. */
export function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'no-store', ...extra });
  res.end(body);
}

/** Sends a JSON response. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** A small HTML page saying what went wrong (the text escaped). */
export function problemPage(title: string, text: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}

/** A whole-number query parameter, or undefined when absent; refuses anything else by name. */
export function wholeParam(url: URL, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(`query parameter ${name}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`, {
      option: name,
    });
  return Number(raw);
}

/** A text query parameter (at most `max` characters), or undefined when absent or empty. */
export function textParam(url: URL, name: string, max = 1000): string | undefined {
  const v = url.searchParams.get(name);
  if (v !== null && v.length > max)
    throw new UsageError(`query parameter ${name}: at most ${max} characters (got ${v.length}); search for something more specific`, {
      option: name,
    });
  return v === null || v === '' ? undefined : v;
}

/** The path's segments, percent-decoded. */
export function segments(path: string): string[] {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new UsageError(`bad percent-encoding in the path ${JSON.stringify(path)}`);
  }
}
