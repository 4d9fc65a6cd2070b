// One HTTP attempt against an OpenAI-compatible server: the JSON body in one write over a pooled
// keep-alive connection, the whole response buffered, every outcome classified (never thrown,
// except the caller's abort), so that every attempt is ours to time, classify and record. Our
// deadline covers the whole exchange (connect, headers and body). Non-2xx answers are worded as
// the openai SDK words them (`<status> <error.message>`), so records read the same as before the
// SDK left the request path (it cost about 0.1 ms of CPU and a dozen objects per request).
import { REVLOOP_VERSION } from '../../core/version.ts';
import { kindForStatus, type FailureKind } from './retry.ts';
import { rawForRecord } from './extract.ts';
import { createExchange, DeadlineExceeded, type ExchangeResult, type HttpExchange } from './node-fetch.ts';

/** Response headers, looked up by any-case name (what the extractors and the retry loop read). */
export interface HeaderLookup {
  get(name: string): string | null;
}

export type RawOutcome =
  | { kind: 'response'; status: number; headers: HeaderLookup; body: string }
  | { kind: 'failure'; failure: FailureKind; status?: number; headers?: HeaderLookup; message: string; raw?: unknown };

/** Where requests go and what they carry besides their body. */
export interface HttpEndpoint {
  /** No trailing slash; paths starting with http(s):// are used as they are. */
  baseUrl: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  exchange: HttpExchange;
  /** Parsed URLs and their raw header lists by path (a handful per model). */
  targets: Map<string, { url: URL; headers: string[] }>;
}

/**
 * An endpoint with its own connection pool. Headers: JSON both ways, our user agent, the bearer
 * key when there is one, and OpenAI's organisation and project when their variables are set (as
 * the SDK sends them).
 */
export function httpEndpoint(baseUrl: string, apiKey: string | null, env: NodeJS.ProcessEnv = process.env): HttpEndpoint {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': `revloop/${REVLOOP_VERSION}`,
  };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  if (env.OPENAI_ORG_ID) headers['openai-organization'] = env.OPENAI_ORG_ID;
  if (env.OPENAI_PROJECT_ID) headers['openai-project'] = env.OPENAI_PROJECT_ID;
  return { baseUrl, headers, exchange: createExchange(), targets: new Map() };
}

function describeCause(e: unknown): string {
  const err = e as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const parts = [err?.message ?? String(e)];
  const cause = err?.cause;
  if (cause?.message && cause.message !== err?.message) parts.push(cause.message);
  const code = err?.code ?? cause?.code;
  if (code) parts.push(`(${code})`);
  return parts.join(': ');
}

function lookup(h: ExchangeResult['headers']): HeaderLookup {
  return {
    get(name) {
      const v = h[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

/** The openai SDK's wording of an API error (APIError.makeMessage), so records stay comparable. */
function apiErrorMessage(status: number, error: unknown, message: string | undefined): string {
  const e = error as { message?: unknown } | undefined;
  const msg = e?.message
    ? typeof e.message === 'string'
      ? e.message
      : JSON.stringify(e.message)
    : error
      ? JSON.stringify(error)
      : message;
  return msg ? `${status} ${msg}` : `${status} status code (no body)`;
}

/**
 * POSTs `body` to `path` (relative to the endpoint's base URL, or absolute) and returns the raw
 * outcome. Never throws for provider faults; rethrows only the caller's abort.
 */
export async function postOnce(
  endpoint: HttpEndpoint,
  path: string,
  body: Record<string, unknown>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RawOutcome> {
  let target = endpoint.targets.get(path);
  if (!target) {
    const url = new URL(/^https?:\/\//.test(path) ? path : endpoint.baseUrl + path);
    target = { url, headers: Object.entries({ host: url.host, ...endpoint.headers }).flat() };
    endpoint.targets.set(path, target);
  }
  try {
    // The deadline (a timer in the exchange) covers connect, headers and body; the caller's signal aborts it.
    const r = await endpoint.exchange(target.url, {
      method: 'POST',
      headers: target.headers,
      body: JSON.stringify(body),
      signal,
      timeoutMs,
    });
    const text = r.body ? r.body.toString('utf8') : '';
    const headers = lookup(r.headers);
    if (r.status >= 200 && r.status <= 299) return { kind: 'response', status: r.status, headers, body: text };
    let json: { error?: unknown } | undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const error = json?.error;
    const message = apiErrorMessage(r.status, error, json ? undefined : text || undefined);
    return {
      kind: 'failure',
      failure: kindForStatus(r.status),
      status: r.status,
      headers,
      message: `HTTP ${r.status}: ${message}`,
      raw: rawForRecord(error ?? message),
    };
  } catch (e) {
    if (signal?.aborted) return { kind: 'failure', failure: 'aborted', message: `aborted by the caller: ${describeCause(signal.reason)}` };
    if (e instanceof DeadlineExceeded) return { kind: 'failure', failure: 'timeout', message: `timed out after ${timeoutMs} ms` };
    return { kind: 'failure', failure: 'network', message: `network error: Connection error.: ${describeCause(e)}` };
  }
}
