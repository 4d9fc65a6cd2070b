// One HTTP attempt against an OpenAI-compatible server: the JSON body in one write over a pooled
// keep-alive connection, the whole response buffered, every outcome classified (never thrown,
// except the caller's abort), so that every attempt is ours to time, classify and record. Our
// deadline covers the whole exchange (connect, headers and body). Non-2xx answers are worded as
// the openai SDK words them (`<status> <error.message>`), so records read the same as before the
// SDK left the request path (docs/performance.md#http-client).
import { REVLOOP_VERSION } from '../../core/version.ts';
import { maskSecrets } from '../../core/util/secrets.ts';
import { escapeText, utf8Fault } from '../../core/util/text-boundary.ts';
import { kindForStatus, type FailureKind } from './retry.ts';
import { RAW_LIMIT, rawForRecord } from './extract.ts';
import { BodyTooLarge, createExchange, DeadlineExceeded, type ExchangeResult, type HttpExchange } from './node-fetch.ts';

import { DEFAULT_MAX_RESPONSE_BYTES } from '../limits.ts';

/**
 * How much of an error response's body is read: a record keeps at most RAW_LIMIT characters of it
 * (up to 4 bytes each in UTF-8), so reading more would only cost memory.
 */
export const ERROR_BODY_BYTES = 4 * RAW_LIMIT;

/** Response headers, looked up by any-case name (what the extractors and the retry loop read). */
export interface HeaderLookup {
  get(name: string): string | null;
}

export type RawOutcome =
  /** `masked`: how many secrets (the key sent, URL credentials) were replaced by *** in the body. */
  | { kind: 'response'; status: number; headers: HeaderLookup; body: string; masked: number }
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
  /** What never reaches a record: the API key sent (masked as *** in every body and message). */
  secrets: string[];
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
  return { baseUrl, headers, exchange: createExchange(), targets: new Map(), secrets: apiKey ? [apiKey] : [] };
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
  maxResponseBytes: number = DEFAULT_MAX_RESPONSE_BYTES,
): Promise<RawOutcome> {
  const mask = (s: string) => maskSecrets(s, endpoint.secrets);
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
      maxBodyBytes: maxResponseBytes,
      maxErrorBodyBytes: ERROR_BODY_BYTES,
    });
    const headers = lookup(r.headers);
    const ok = r.status >= 200 && r.status <= 299;
    // The text boundary (core/util/text-boundary.ts): bytes that are not UTF-8 are no reply to verify.
    const bad = ok && r.body ? utf8Fault(r.body) : null;
    if (bad) {
      return {
        kind: 'failure',
        failure: 'invalid_text',
        status: r.status,
        headers,
        message: `the response body ${bad.problem}: not text, so it was not verified`,
        raw: mask(escapeText(r.body!, RAW_LIMIT)).text,
      };
    }
    const { text, count } = mask(r.body ? r.body.toString('utf8') : '');
    if (ok) return { kind: 'response', status: r.status, headers, body: text, masked: count };
    let json: { error?: unknown } | undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const error = json?.error;
    let message = apiErrorMessage(r.status, error, json ? undefined : text || undefined);
    if (message.length > RAW_LIMIT) message = `${message.slice(0, RAW_LIMIT)}…[${message.length - RAW_LIMIT} more chars]`;
    if (r.truncated) message += ` [the error body was cut at ${ERROR_BODY_BYTES} bytes]`;
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
    if (e instanceof BodyTooLarge) {
      return {
        kind: 'failure',
        failure: 'response_too_large',
        status: e.status,
        message:
          e.announced !== null
            ? `the response announced ${e.announced} bytes, more than the ${maxResponseBytes}-byte limit (maxResponseBytes); it was not read`
            : `the response exceeded the ${maxResponseBytes}-byte limit (maxResponseBytes); reading stopped after ${e.received} bytes`,
        raw: mask(escapeText(e.head, RAW_LIMIT)).text,
      };
    }
    return { kind: 'failure', failure: 'network', message: mask(`network error: Connection error.: ${describeCause(e)}`).text };
  }
}
