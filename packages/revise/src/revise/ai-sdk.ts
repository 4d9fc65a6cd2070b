// An AI SDK LanguageModel as a revloop Model (docs/revise.md §6), so `revise()` (and everything
// else in revloop) runs on any AI SDK provider. One `generate` is one `doGenerate` call, recorded as
// one provider attempt with the usage the provider reported; an error or an empty text is a failed
// attempt, never a draft (docs/protocol.md §0.3). The `ai` packages are optional peers: this module
// imports none of them.
import type { AttemptRecord, ChatMessage, GenerateOptions, GenerateResult, Model } from '../models/types.ts';
import { modelCapabilities } from '../models/capabilities.ts';
import type { AiSdkCallOptions, AiSdkGenerateResult, AiSdkPromptMessage, AiSdkUsage, LanguageModelLike } from './ai-sdk-types.ts';

/** Whether a value is an AI SDK LanguageModel (v2 or v3) rather than a revloop Model. */
export function isAiSdkModel(m: unknown): m is LanguageModelLike {
  const v = m as Partial<LanguageModelLike> | null;
  return (
    !!v &&
    typeof v === 'object' &&
    (v.specificationVersion === 'v2' || v.specificationVersion === 'v3') &&
    typeof v.doGenerate === 'function'
  );
}

/** Options of `aiSdkModel`: the label shown in records, and what the wrapped AI SDK model can do. */
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
  /** Used for the first call instead of doGenerate (the middleware's own call). */
  firstCall?: () => PromiseLike<AiSdkGenerateResult>;
  label?: string;
}

const num = (v: AiSdkUsage['inputTokens']): number | undefined =>
  typeof v === 'number' ? v : typeof v?.total === 'number' ? v.total : undefined;

/** The usage of an AI SDK result in revloop's terms. */
export function aiSdkUsage(u: AiSdkUsage | undefined): AttemptRecord['usage'] | undefined {
  if (!u) return undefined;
  const promptTokens = num(u.inputTokens);
  const completionTokens = num(u.outputTokens);
  if (promptTokens === undefined && completionTokens === undefined) return undefined;
  return { promptTokens, completionTokens, totalTokens: (promptTokens ?? 0) + (completionTokens ?? 0) };
}

/** The text parts of an AI SDK result, joined. */
export function aiSdkText(r: AiSdkGenerateResult): string {
  return r.content
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
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

/** A revloop Model over an AI SDK model; `results` keeps each call's raw AI SDK result (null: failed). */
export interface AiSdkBackedModel extends Model {
  readonly results: Array<AiSdkGenerateResult | null>;
}

/** Wraps an AI SDK LanguageModel as a revloop Model. */
export function aiSdkModel(model: LanguageModelLike, options: AiSdkModelOptions = {}): AiSdkBackedModel {
  let calls = 0;
  const label = options.label ?? `ai-sdk:${model.provider}#${model.modelId}`;
  const results: Array<AiSdkGenerateResult | null> = [];
  return {
    results,
    spec: `ai-sdk:${model.provider}#${model.modelId}`,
    label,
    capabilities: modelCapabilities({ ban: !!options.banOption }),
    async generate(messages: ChatMessage[], o: GenerateOptions): Promise<GenerateResult> {
      const startedAt = new Date().toISOString();
      const t0 = performance.now();
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
        maxOutputTokens: o.maxTokens,
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
        ...(o.signal ? { abortSignal: o.signal } : {}),
        ...(providerOptions ? { providerOptions } : {}),
      };
      const first = calls++ === 0 && options.firstCall;
      let record: AttemptRecord;
      let text: string | null = null;
      let result: AiSdkGenerateResult | null = null;
      try {
        const r = await (first ? options.firstCall!() : model.doGenerate(call));
        const got = aiSdkText(r);
        const finishReason = typeof r.finishReason === 'string' ? r.finishReason : (r.finishReason?.unified ?? null);
        const base = {
          startedAt,
          latencyMs: performance.now() - t0,
          finishReason,
          usage: aiSdkUsage(r.usage),
          request: { model: model.modelId, max_tokens: o.maxTokens, message_count: prompt.length },
        };
        if (got.trim() === '')
          record = { ok: false, ...base, error: { kind: 'empty_content', message: 'the model returned no text', retryable: false } };
        else {
          record = { ok: true, text: got, ...base, meta: { responseId: r.response?.id ?? null } };
          text = got;
          result = r;
        }
      } catch (e) {
        if (o.signal?.aborted) throw e;
        record = {
          ok: false,
          startedAt,
          latencyMs: performance.now() - t0,
          error: { kind: (e as Error)?.name ?? 'error', message: (e as Error)?.message ?? String(e), retryable: false },
        };
      }
      results.push(result);
      o.onAttempt?.(record);
      return { text, attempts: [record] };
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
