// An AI SDK LanguageModel as a model the kernel calls (docs/revise.md §6), so `revise()` runs on any
// AI SDK provider. One generation is one `doGenerate` call, retried under the AI SDK's own policy
// when the provider marks the error retryable (revise/retry.ts); each call is one provider attempt
// with the usage the provider reported. An error, an empty text or a tool call instead of text is a
// failed attempt, never a draft (docs/protocol.md §0.3). The `ai` packages are optional peers: this
// module imports none of them.
import type { AttemptRecord, ChatMessage, GenerateResult, ModelCallOptions, ReviseModel } from '../model.ts';
import { isRetryableError, retryDelayMs, sleep, type RetryPolicy } from './retry.ts';
import type { AiSdkCallOptions, AiSdkGenerateResult, AiSdkPromptMessage, AiSdkUsage, LanguageModelLike } from './ai-sdk-types.ts';

/** Whether a value is an AI SDK LanguageModel (v2 or v3) rather than a revise model. */
export function isAiSdkModel(m: unknown): m is LanguageModelLike {
  const v = m as Partial<LanguageModelLike> | null;
  return (
    !!v &&
    typeof v === 'object' &&
    (v.specificationVersion === 'v2' || v.specificationVersion === 'v3') &&
    typeof v.doGenerate === 'function'
  );
}

/** Options of `aiSdkModel`: provider options, how bans reach the provider, retries, and what the middleware passes. */
export interface AiSdkModelOptions {
  /** Provider options sent with every call (e.g. `{ myVllm: { chat_template_kwargs: {...} } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
  /**
   * How banned sequences reach the provider, when it can ban (e.g. a vLLM server through
   * `createOpenAICompatible({ name: 'vllm', … })`: `(s) => ({ vllm: { bad_words: s } })`). Without
   * it the model declares no `ban` capability and `ban: 'failed-drafts'` is refused.
   */
  banOption?: (sequences: string[]) => Record<string, Record<string, unknown>>;
  /** The messages before these are replaced by this prompt (the middleware keeps the caller's own parts). */
  basePrompt?: { prompt: AiSdkPromptMessage[]; replaces: number };
  /** Extra call settings (tools, response format …) sent with every call. */
  callSettings?: Omit<AiSdkCallOptions, 'prompt'>;
  /** The first generation's result, already obtained (the middleware's own call): used instead of calling. */
  firstResult?: AiSdkGenerateResult;
  /** Retries of retryable provider errors (default: the AI SDK's, 2 retries). */
  retry?: RetryPolicy;
  label?: string;
}

const num = (v: AiSdkUsage['inputTokens']): number | undefined =>
  typeof v === 'number' ? v : typeof v?.total === 'number' ? v.total : undefined;

/** The usage of an AI SDK result in revise's terms. */
export function aiSdkUsage(u: AiSdkUsage | undefined): AttemptRecord['usage'] | undefined {
  if (!u) return undefined;
  const promptTokens = num(u.inputTokens);
  const completionTokens = num(u.outputTokens);
  if (promptTokens === undefined && completionTokens === undefined) return undefined;
  return { promptTokens, completionTokens, totalTokens: (promptTokens ?? 0) + (completionTokens ?? 0) };
}

/** The text parts of an AI SDK result, joined. */
export function aiSdkText(r: AiSdkGenerateResult): string {
  return (Array.isArray(r?.content) ? r.content : [])
    .filter((c) => c?.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('');
}

/** Chat messages as an AI SDK prompt. */
export function toAiSdkPrompt(messages: readonly ChatMessage[]): AiSdkPromptMessage[] {
  return messages.map((m) =>
    m.role === 'system' ? { role: 'system', content: m.content } : { role: m.role, content: [{ type: 'text', text: m.content }] },
  );
}

/** An AI SDK prompt as chat messages: text parts only (other parts are kept by `basePrompt`). */
export function fromAiSdkPrompt(prompt: readonly AiSdkPromptMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of prompt) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content });
    else if (m.role === 'user' || m.role === 'assistant') {
      const text = m.content
        .filter((p) => p.type === 'text')
        .map((p) => String(p.text ?? ''))
        .join('');
      out.push({ role: m.role, content: text });
    }
  }
  return out;
}

/** A revise model over an AI SDK model; `results` keeps each generation's raw AI SDK result (null: failed). */
export interface AiSdkBackedModel extends ReviseModel {
  readonly results: Array<AiSdkGenerateResult | null>;
}

const isAbort = (e: unknown, signal?: AbortSignal) =>
  signal?.aborted === true || (e as Error)?.name === 'AbortError' || (e as Error)?.name === 'TimeoutError';

/** Wraps an AI SDK LanguageModel as a revise model. */
export function aiSdkModel(model: LanguageModelLike, options: AiSdkModelOptions = {}): AiSdkBackedModel {
  let generations = 0;
  const label = options.label ?? `ai-sdk:${model.provider}#${model.modelId}`;
  const results: Array<AiSdkGenerateResult | null> = [];
  const retry = options.retry ?? {};
  const maxRetries = retry.maxRetries ?? 2;
  return {
    results,
    spec: `ai-sdk:${model.provider}#${model.modelId}`,
    label,
    capabilities: { ban: !!options.banOption, simulated: false },
    async generate(messages: ChatMessage[], o: ModelCallOptions): Promise<GenerateResult> {
      const base = options.basePrompt;
      const prompt = base ? [...base.prompt, ...toAiSdkPrompt(messages.slice(base.replaces))] : toAiSdkPrompt(messages);
      const bans = o.bannedSequences?.length && options.banOption ? options.banOption(o.bannedSequences) : undefined;
      const providerOptions = mergeProviderOptions(
        options.callSettings?.providerOptions as Record<string, Record<string, unknown>> | undefined,
        options.providerOptions,
        bans,
      );
      const call: AiSdkCallOptions = {
        ...(options.callSettings ?? {}),
        prompt,
        // Sent only when set: a provider's own limit otherwise, as the caller's first call had.
        ...(o.maxTokens !== undefined ? { maxOutputTokens: o.maxTokens } : {}),
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
        ...(o.signal ? { abortSignal: o.signal } : {}),
        ...(providerOptions ? { providerOptions } : {}),
      };
      if (!providerOptions) delete call.providerOptions;
      const first = generations++ === 0 ? options.firstResult : undefined;
      const attempts: AttemptRecord[] = [];
      const request = { model: model.modelId, max_tokens: o.maxTokens ?? null, message_count: prompt.length };
      for (let n = 0; ; n++) {
        const startedAt = new Date().toISOString();
        const t0 = performance.now();
        let record: AttemptRecord;
        try {
          const r: AiSdkGenerateResult = first ?? (await model.doGenerate(call));
          const got = aiSdkText(r);
          const finishReason = typeof r.finishReason === 'string' ? r.finishReason : (r.finishReason?.unified ?? null);
          const meta = { startedAt, latencyMs: performance.now() - t0, finishReason, usage: aiSdkUsage(r.usage), request };
          const toolCalls = (Array.isArray(r.content) ? r.content : []).filter((c) => c?.type === 'tool-call').length;
          if (got.trim() === '') {
            record = toolCalls
              ? {
                  ok: false,
                  ...meta,
                  error: { kind: 'tool_call', message: `the model called a tool (${toolCalls}) instead of answering`, retryable: false },
                }
              : { ok: false, ...meta, error: { kind: 'empty_content', message: 'the model returned no text', retryable: false } };
          } else {
            record = { ok: true, text: got, ...meta, meta: { responseId: r.response?.id ?? null } };
            attempts.push(record);
            o.onAttempt?.(record);
            results.push(r);
            return { text: got, attempts };
          }
          attempts.push(record);
          o.onAttempt?.(record);
          break;
        } catch (e) {
          if (isAbort(e, o.signal)) throw e;
          const retryable = isRetryableError(e) && n < maxRetries;
          record = {
            ok: false,
            startedAt,
            latencyMs: performance.now() - t0,
            request,
            ...(typeof (e as { statusCode?: unknown })?.statusCode === 'number'
              ? { status: (e as { statusCode: number }).statusCode }
              : {}),
            error: { kind: (e as Error)?.name ?? 'error', message: (e as Error)?.message ?? String(e), retryable: isRetryableError(e) },
          };
          attempts.push(record);
          o.onAttempt?.(record);
          if (!retryable) break;
          await sleep(retryDelayMs(retry, n + 1, e), o.signal);
        }
      }
      results.push(null);
      return { text: null, attempts };
    },
  };
}

function mergeProviderOptions(
  ...parts: Array<Record<string, Record<string, unknown>> | undefined>
): Record<string, Record<string, unknown>> | undefined {
  const out: Record<string, Record<string, unknown>> = {};
  let any = false;
  for (const p of parts) {
    if (!p) continue;
    for (const [k, v] of Object.entries(p)) {
      out[k] = { ...(out[k] ?? {}), ...v };
      any = true;
    }
  }
  return any ? out : undefined;
}
