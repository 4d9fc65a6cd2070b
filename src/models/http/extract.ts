// Turns a 2xx chat-completion body into text or a failure. Anything that is not real text (null,
// blank, a refusal, no choices, a body that is not JSON) is a failure: the paper's runner turned a
// null content into the text "None"; revloop never does (docs/protocol.md §0.3).
import { pyStrip } from '../../core/py/format.ts';
import { escapeText, textFault } from '../../core/util/text-boundary.ts';
import type { AttemptRecord } from '../types.ts';
import type { FailureKind } from './retry.ts';

export type Extracted =
  | { ok: true; text: string; finishReason: string | null; usage?: AttemptRecord['usage']; meta: Record<string, unknown> }
  | {
      ok: false;
      kind: FailureKind;
      message: string;
      raw: unknown;
      finishReason?: string | null;
      usage?: AttemptRecord['usage'];
      meta: Record<string, unknown>;
    };

/** Characters of a bad response a record keeps. */
export const RAW_LIMIT = 4000;

/** A raw body kept for the record, truncated so one bad response cannot bloat the store. */
export function rawForRecord(raw: unknown): unknown {
  if (typeof raw === 'string') return raw.length > RAW_LIMIT ? raw.slice(0, RAW_LIMIT) + `…[${raw.length - RAW_LIMIT} more chars]` : raw;
  try {
    const s = JSON.stringify(raw);
    if (s !== undefined && s.length > RAW_LIMIT) return s.slice(0, RAW_LIMIT) + `…[${s.length - RAW_LIMIT} more chars]`;
  } catch {
    return String(raw);
  }
  return raw;
}

function usageOf(body: Record<string, unknown>): AttemptRecord['usage'] | undefined {
  const u = body.usage as Record<string, unknown> | undefined | null;
  if (!u || typeof u !== 'object') return undefined;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { promptTokens: num(u.prompt_tokens), completionTokens: num(u.completion_tokens), totalTokens: num(u.total_tokens) };
}

/** Provider metadata worth keeping with every attempt (docs/protocol.md §1.6 `api` fields). */
function metaOf(body: Record<string, unknown>, headers?: { get(name: string): string | null }): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (body.id != null) meta.responseId = body.id;
  const gen = headers?.get('x-generation-id');
  if (gen) meta.generationId = gen;
  if (body.model != null) meta.returnedModel = body.model;
  if (body.system_fingerprint != null) meta.systemFingerprint = body.system_fingerprint;
  const orMeta = body.openrouter_metadata as Record<string, unknown> | undefined;
  const provider = body.provider ?? orMeta?.provider_name;
  if (provider != null) meta.provider = provider;
  if (orMeta != null) meta.openrouterMetadata = orMeta;
  if (body.revloop_simulated === true) meta.simulated = true;
  return meta;
}

/** Text of a message content: a string, or the text parts of a list (as the reference joins them). */
function contentText(content: unknown): string | null | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter((p): p is Record<string, unknown> => !!p && typeof p === 'object' && (p as Record<string, unknown>).type === 'text')
      .map((p) => (typeof p.text === 'string' ? p.text : ''))
      .join('');
  }
  if (content === null) return null;
  return undefined;
}

/** Classifies the raw text of a 2xx response body. */
export function extractChatText(rawBody: string, headers?: { get(name: string): string | null }): Extracted {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch (e) {
    return {
      ok: false,
      kind: 'malformed_json',
      message: `response body is not JSON: ${(e as Error).message}`,
      raw: rawForRecord(rawBody),
      meta: {},
    };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, kind: 'malformed_json', message: 'response body is not a JSON object', raw: rawForRecord(rawBody), meta: {} };
  }
  const b = body as Record<string, unknown>;
  const meta = metaOf(b, headers);
  const usage = usageOf(b);
  const choices = b.choices;
  if (!Array.isArray(choices) || choices.length === 0) {
    const err = b.error as Record<string, unknown> | undefined;
    const code = err && typeof err === 'object' ? Number(err.code) : NaN;
    const message = err && typeof err === 'object' && typeof err.message === 'string' ? `: ${err.message}` : '';
    // As in the reference runner: an embedded error code below 500 will not go away on retry.
    const kind: FailureKind = Number.isFinite(code) && code < 500 ? 'bad_request' : 'no_choices';
    return { ok: false, kind, message: `response has no choices${message}`, raw: rawForRecord(b), usage, meta };
  }
  const choice = choices[0] as Record<string, unknown> | null;
  const finishReason = choice && typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  const message = choice?.message as Record<string, unknown> | undefined | null;
  if (!message || typeof message !== 'object') {
    return { ok: false, kind: 'malformed_json', message: 'choices[0].message is missing', raw: rawForRecord(b), finishReason, usage, meta };
  }
  const refusal = message.refusal;
  if (typeof refusal === 'string' && refusal.trim() !== '') {
    return {
      ok: false,
      kind: 'refusal',
      message: `the model refused: ${refusal.slice(0, 500)}`,
      raw: rawForRecord(b),
      finishReason,
      usage,
      meta,
    };
  }
  const text = contentText(message.content);
  if (text === undefined) {
    return {
      ok: false,
      kind: 'malformed_json',
      message: `choices[0].message.content has an unexpected type (${typeof message.content})`,
      raw: rawForRecord(b),
      finishReason,
      usage,
      meta,
    };
  }
  if (text === null || pyStrip(text) === '') {
    if (finishReason === 'content_filter') {
      return {
        ok: false,
        kind: 'refusal',
        message: 'the provider filtered the response (finish_reason content_filter)',
        raw: rawForRecord(b),
        finishReason,
        usage,
        meta,
      };
    }
    return text === null
      ? { ok: false, kind: 'null_content', message: 'choices[0].message.content is null', raw: rawForRecord(b), finishReason, usage, meta }
      : {
          ok: false,
          kind: 'empty_content',
          message: 'choices[0].message.content is empty after stripping',
          raw: rawForRecord(b),
          finishReason,
          usage,
          meta,
        };
  }
  // The text boundary: NUL or a lone surrogate would not read back as what was verified.
  const fault = textFault(text);
  if (fault) {
    return {
      ok: false,
      kind: 'invalid_text',
      message: `choices[0].message.content ${fault.problem}: not text, so it was not verified`,
      raw: escapeText(text, RAW_LIMIT),
      finishReason,
      usage,
      meta,
    };
  }
  return { ok: true, text, finishReason, usage, meta };
}
