// Teacher-forced scoring against a vLLM server (docs/harness.md §3.4, §13.3):
//   1. POST /tokenize {messages, add_generation_prompt: true, add_special_tokens: false} → context ids
//      (the server renders its own chat template, as the reference renders the HF template);
//   2. POST /tokenize {prompt: continuation, add_special_tokens: false} → continuation ids
//      (the candidate alone, no special tokens, no leading space, appended after the context ids);
//   3. POST /v1/completions {prompt: [...context, ...continuation] (token ids), max_tokens: 1,
//      prompt_logprobs: 1} → the log-probability and rank of every prompt token; the continuation
//      positions are summed. Rank 1 = the argmax (for is_greedy).
// Token-id prompts avoid re-tokenising the seam between template and candidate.
import type { ChatMessage, ScoreResult } from '../types.ts';
import type { AttemptRecord } from '../types.ts';
import type { Model } from '../types.ts';
import { UserError } from '../../core/errors.ts';
import type { OpenAICompatibleModel } from './openai-compatible.ts';

export class ScoreError extends Error {
  constructor(
    message: string,
    readonly attempts: AttemptRecord[] = [],
  ) {
    super(message);
    this.name = 'ScoreError';
  }
}

/** The server root for vLLM's non-/v1 endpoints (`/tokenize`): the base URL without a trailing /v1. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function parseJsonObject(body: string): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  try {
    const v = JSON.parse(body);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { ok: true, value: v as Record<string, unknown> };
    return { ok: false, message: 'response body is not a JSON object' };
  } catch (e) {
    return { ok: false, message: `response body is not JSON: ${(e as Error).message}` };
  }
}

async function postJson(
  model: OpenAICompatibleModel,
  path: string,
  body: Record<string, unknown>,
  what: string,
  attempts: AttemptRecord[],
): Promise<Record<string, unknown>> {
  const result = await model.withRetries(path, body, undefined, undefined, (raw) => {
    const parsed = parseJsonObject(raw.body);
    return parsed.ok
      ? { ok: true, parsed: parsed.value }
      : { ok: false, kind: 'malformed_json', message: parsed.message, raw: raw.body.slice(0, 2000), meta: {} };
  });
  attempts.push(...result.attempts);
  if (!result.ok) {
    const e = result.record.error;
    throw new ScoreError(`${model.label}: ${what} failed after ${result.attempts.length} attempt(s): ${e?.kind}: ${e?.message}`, attempts);
  }
  return result.parsed as Record<string, unknown>;
}

function tokenIds(value: unknown, what: string, attempts: AttemptRecord[]): number[] {
  const tokens = (value as Record<string, unknown>)?.tokens;
  if (!Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t))) {
    throw new ScoreError(`${what}: the /tokenize response has no integer "tokens" list`, attempts);
  }
  return tokens as number[];
}

/** Keys of the model's extra body that also shape tokenization (chat template and its kwargs). */
function templateKeys(extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['chat_template', 'chat_template_kwargs']) if (extra[k] !== undefined) out[k] = extra[k];
  return out;
}

export async function vllmScore(
  model: OpenAICompatibleModel,
  context: ChatMessage[],
  continuation: string,
): Promise<ScoreResult & { argmaxMatches: number; isGreedy: boolean; contextTokens: number; attempts: AttemptRecord[] }> {
  const c = model.config;
  const attempts: AttemptRecord[] = [];
  const tokenizeUrl = serverRoot(c.baseUrl) + '/tokenize';
  const ctxResp = await postJson(
    model,
    tokenizeUrl,
    {
      model: c.model,
      messages: context.map((m) => ({ role: m.role, content: m.content })),
      add_generation_prompt: true,
      add_special_tokens: false,
      ...templateKeys(c.extraBody),
    },
    'tokenizing the context',
    attempts,
  );
  const ctx = tokenIds(ctxResp, 'context', attempts);
  const contResp = await postJson(
    model,
    tokenizeUrl,
    { model: c.model, prompt: continuation, add_special_tokens: false },
    'tokenizing the continuation',
    attempts,
  );
  const cont = tokenIds(contResp, 'continuation', attempts);
  if (!cont.length)
    return { logprob: 0, tokenLogprobs: [], tokens: 0, argmaxMatches: 0, isGreedy: true, contextTokens: ctx.length, attempts };
  if (!ctx.length) throw new ScoreError('the rendered context has no tokens; nothing to condition on', attempts);
  const prompt = [...ctx, ...cont];
  const resp = await postJson(
    model,
    '/completions',
    {
      model: c.model,
      prompt,
      max_tokens: 1,
      temperature: 0,
      prompt_logprobs: 1,
      add_special_tokens: false,
      ...(c.seed !== undefined ? { seed: c.seed } : {}),
    },
    'scoring',
    attempts,
  );
  const choice = Array.isArray(resp.choices) ? (resp.choices[0] as Record<string, unknown>) : undefined;
  const plp = (choice?.prompt_logprobs ?? resp.prompt_logprobs) as unknown;
  if (!Array.isArray(plp) || plp.length !== prompt.length) {
    throw new ScoreError(
      `scoring: expected prompt_logprobs with ${prompt.length} entries (is this a vLLM server?), got ${Array.isArray(plp) ? plp.length + ' entries' : typeof plp}`,
      attempts,
    );
  }
  const tokenLogprobs: number[] = [];
  let argmaxMatches = 0;
  for (let i = ctx.length; i < prompt.length; i++) {
    const entry = (plp[i] as Record<string, { logprob?: unknown; rank?: unknown }> | null)?.[String(prompt[i])];
    const lp = entry?.logprob;
    if (typeof lp !== 'number' || !Number.isFinite(lp)) {
      throw new ScoreError(
        `scoring: non-finite or missing log-probability for continuation token ${i - ctx.length} (id ${prompt[i]}); refusing to record scores`,
        attempts,
      );
    }
    if (lp > 0)
      throw new ScoreError(
        `scoring: positive log-probability ${lp} at continuation token ${i - ctx.length}; refusing to record scores`,
        attempts,
      );
    tokenLogprobs.push(lp);
    if (entry?.rank === 1) argmaxMatches++;
  }
  return {
    logprob: tokenLogprobs.reduce((s, x) => s + x, 0),
    tokenLogprobs,
    tokens: cont.length,
    argmaxMatches,
    isGreedy: argmaxMatches === cont.length,
    contextTokens: ctx.length,
    attempts,
  };
}

/** Whether a model is an OpenAI-compatible backend talking to a vLLM server. */
export function isVllmModel(model: Model): model is OpenAICompatibleModel {
  const m = model as Partial<OpenAICompatibleModel>;
  return !!m.config && m.config.vllm === true && typeof m.withRetries === 'function';
}

/** Token ids of `text` through vLLM's /tokenize endpoint (no special tokens). */
export async function vllmTokenize(model: Model, text: string): Promise<number[]> {
  if (!isVllmModel(model)) throw new UserError(`${model.label}: not a vLLM model (use a vllm:<url>#<model> spec)`);
  const root = model.config.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const res = await model.withRetries(
    root + '/tokenize',
    { model: model.config.model, prompt: text, add_special_tokens: false },
    undefined,
    undefined,
    (raw) => {
      try {
        return { ok: true as const, parsed: JSON.parse(raw.body) as unknown };
      } catch (e) {
        return {
          ok: false as const,
          kind: 'malformed_json' as const,
          message: (e as Error).message,
          raw: raw.body.slice(0, 2000),
          meta: {},
        };
      }
    },
  );
  const tokens = (res.parsed as { tokens?: unknown } | undefined)?.tokens;
  if (!res.ok || !Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t))) {
    throw new UserError(
      `${model.label}: tokenizing through ${root}/tokenize failed (${res.record.error?.message ?? 'no "tokens" list in the response'})`,
    );
  }
  return tokens as number[];
}
