// Teacher-forced scoring against a vLLM server (docs/harness.md §3.4, §13.3):
//   1. POST /tokenize {messages, add_generation_prompt: true, add_special_tokens: false} → context ids
//      (the server renders its own chat template, as the reference renders the HF template);
//   2. POST /tokenize {prompt: continuation, add_special_tokens: false} → continuation ids
//      (the candidate alone, no special tokens, no leading space, appended after the context ids);
//   3. POST /v1/completions {prompt: [...context, ...continuation] (token ids), max_tokens: 1,
//      prompt_logprobs: 1} → the log-probability and rank of every prompt token; the continuation
//      positions are summed. Rank 1 = the argmax (for is_greedy).
// Token-id prompts avoid re-tokenising the seam between template and candidate.
import type { AttemptRecord, ChatMessage, ScoreResult } from '../types.ts';
import type {
  BackendInfoModel,
  BanningModel,
  CapabilitiesWith,
  ScoringModel,
  StopTokenModel,
  TokenizingModel,
  VerifyReport,
  VerifySample,
} from '../capabilities.ts';
import { scoreEach, scoreFromTokens, verifyByRescoring } from '../scoring.ts';
import { markErrorClass, ProviderError } from '../../core/errors.ts';
import { OpenAICompatibleModel, redactUrl, type HttpModelConfig } from './openai-compatible.ts';

/** Scoring or tokenizing through the server failed; `attempts` are every provider call it made. */
export class ScoreError extends ProviderError {
  /** Whether `e` is a ScoreError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<ScoreError>(this, 'revloop.error.ScoreError');
  readonly attempts: AttemptRecord[];

  /** The error's `status` is the last attempt's. */
  constructor(message: string, options: { attempts?: AttemptRecord[]; url?: string | null; cause?: unknown } = {}) {
    const attempts = options.attempts ?? [];
    super(message, { ...options, status: attempts.at(-1)?.status ?? null });
    this.attempts = attempts;
    this.name = 'ScoreError';
  }
}

/**
 * An OpenAI-compatible backend talking to a vLLM server: chat completions plus teacher-forced
 * scoring (prompt_logprobs), the server's tokenizer (/tokenize), bans (bad_words) and extra stop
 * tokens (stop_token_ids).
 */
export class VllmModel
  extends OpenAICompatibleModel
  implements ScoringModel, TokenizingModel, BanningModel, StopTokenModel, BackendInfoModel
{
  declare readonly capabilities: CapabilitiesWith<'score' | 'tokenize' | 'ban' | 'stopTokens' | 'info'>;

  constructor(config: HttpModelConfig) {
    super({ ...config, vllm: true }, { score: true, tokenize: true });
  }

  score(context: readonly ChatMessage[], continuation: string): Promise<ScoreResult> {
    return vllmScore(this, context, continuation);
  }

  scoreMany(context: readonly ChatMessage[], continuations: readonly string[]): Promise<ScoreResult[]> {
    return scoreEach((c, x) => this.score(c, x), context, continuations);
  }

  verifyScoring(sample: readonly VerifySample[], options: { tolerance?: number } = {}): Promise<VerifyReport> {
    return verifyByRescoring((c, x) => this.score(c, x), sample, options);
  }

  /** Token ids of `text` through the server's /tokenize (no special tokens added), with the model's retries and auth. */
  async tokenize(text: string): Promise<number[]> {
    const attempts: AttemptRecord[] = [];
    const url = serverRoot(this.config.baseUrl) + '/tokenize';
    const resp = await postJson(this, url, { model: this.config.model, prompt: text, add_special_tokens: false }, 'tokenizing', attempts);
    return tokenIds(resp, 'tokenizing', attempts);
  }

  async countTokens(text: string): Promise<number> {
    return (await this.tokenize(text)).length;
  }

  /**
   * The prompt tokens a chat completion from `messages` sends: the server's /tokenize with the
   * messages and the generation prompt (its chat template, the same call as scoring's context).
   */
  async countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    const attempts: AttemptRecord[] = [];
    const url = serverRoot(this.config.baseUrl) + '/tokenize';
    const body = {
      model: this.config.model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      add_generation_prompt: true,
      add_special_tokens: false,
      ...templateKeys(this.config.extraBody),
    };
    const resp = await postJson(this, url, body, 'tokenizing the prompt', attempts);
    return tokenIds(resp, 'tokenizing the prompt', attempts).length;
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
  model: VllmModel,
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
    throw new ScoreError(`${model.label}: ${what} failed after ${result.attempts.length} attempt(s): ${e?.kind}: ${e?.message}`, {
      attempts,
      url: redactUrl(/^https?:\/\//.test(path) ? path : model.config.baseUrl + path),
    });
  }
  return result.parsed as Record<string, unknown>;
}

function tokenIds(value: unknown, what: string, attempts: AttemptRecord[]): number[] {
  const tokens = (value as Record<string, unknown>)?.tokens;
  if (!Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t))) {
    throw new ScoreError(`${what}: the /tokenize response has no integer "tokens" list`, { attempts });
  }
  return tokens as number[];
}

/** Keys of the model's extra body that also shape tokenization (chat template and its kwargs). */
function templateKeys(extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['chat_template', 'chat_template_kwargs']) if (extra[k] !== undefined) out[k] = extra[k];
  return out;
}

/** Teacher-forced score of `continuation` after the server-rendered context (the steps above). */
export async function vllmScore(
  model: VllmModel,
  context: readonly ChatMessage[],
  continuation: string,
): Promise<ScoreResult & { attempts: AttemptRecord[] }> {
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
  if (!cont.length) return { ...scoreFromTokens([], 0, ctx.length), attempts };
  if (!ctx.length) throw new ScoreError('the rendered context has no tokens; nothing to condition on', { attempts });
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
      { attempts },
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
        { attempts },
      );
    }
    if (lp > 0)
      throw new ScoreError(`scoring: positive log-probability ${lp} at continuation token ${i - ctx.length}; refusing to record scores`, {
        attempts,
      });
    tokenLogprobs.push(lp);
    if (entry?.rank === 1) argmaxMatches++;
  }
  // Object.assign, not a spread: docs/performance.md#hidden-classes
  return Object.assign(scoreFromTokens(tokenLogprobs, argmaxMatches, ctx.length), { attempts });
}
