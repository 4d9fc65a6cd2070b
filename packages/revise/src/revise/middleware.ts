// Vercel AI SDK adapters (docs/revise.md §6): `reviseMiddleware` runs every `generateText` call
// of a wrapped model through `revise()`, and `repairToolCall` repairs an invalid tool call by
// revision from an abstracted failure record (the failed call itself is never shown again). The
// `ai` packages are optional peers: nothing here imports them.
import { UsageError } from '../core/errors.ts';
import type { ChatMessage, Model } from '../models/types.ts';
import { abstractFailureNote } from '../remedy/failure-record.ts';
import { aiSdkModel, fromAiSdkPrompt, type AiSdkModelOptions } from './ai-sdk.ts';
import type { AiSdkCallOptions, AiSdkGenerateResult, AiSdkPromptMessage, LanguageModelLike } from './ai-sdk-types.ts';
import { revise } from './revise.ts';
import type { ReviseOptions, ReviseResult } from './types.ts';
import { jsonSchemaVerifier, jsonText } from './verifiers.ts';

/** Options of `reviseMiddleware`: the verifier, budget and policy applied to every generation of the wrapped model. */
export interface ReviseMiddlewareOptions extends Omit<ReviseOptions, 'model' | 'prompt' | 'signal'> {
  /** When no draft passes: return the best draft with its status in provider metadata (default), or throw. */
  onFailure?: 'best' | 'throw';
  /** How banned sequences reach the provider (see `aiSdkModel`); without it `ban: 'failed-drafts'` is refused. */
  banOption?: AiSdkModelOptions['banOption'];
  /** Called with every loop's result (what it cost, why it stopped). */
  onResult?: (result: ReviseResult) => void;
}

/** Thrown by the middleware under `onFailure: 'throw'`; carries the loop's result. */
export class RevisionFailedError extends Error {
  constructor(readonly result: ReviseResult) {
    super(`revloop: no draft passed verification (${result.status}: ${result.reason})`);
    this.name = 'RevisionFailedError';
  }
}

/** What the AI SDK's wrapLanguageModel takes (LanguageModelV3Middleware, generate only). */
export interface ReviseLanguageModelMiddleware {
  readonly specificationVersion: 'v3';
  // The SDK's option and result types are assignable to and from these loose ones (no dependency on its packages).
  wrapGenerate(options: { doGenerate: () => PromiseLike<any>; params: any; model: LanguageModelLike }): Promise<any>;
}

/** A JSON-safe summary of a loop, for provider metadata. */
function summary(r: ReviseResult): Record<string, unknown> {
  return {
    status: r.status,
    reason: r.reason,
    generations: r.usage.generations,
    providerAttempts: r.usage.providerAttempts,
    promptTokens: r.usage.promptTokens,
    completionTokens: r.usage.completionTokens,
    cycles: r.cycles.map((c) => ({ kind: c.kind, period: c.period, attempt: c.attempt })),
    ...(r.usd !== undefined ? { usd: r.usd } : {}),
    ...(r.runId ? { runId: r.runId } : {}),
  };
}

/**
 * Middleware for `wrapLanguageModel({ model, middleware: reviseMiddleware({ verify }) })`: the
 * call's own generation is the first draft; failed drafts are revised under the policy and budget;
 * the result carries the passing (or best) draft, the usage of every attempt, and
 * `providerMetadata.revloop` (status, reason, cycles). Streaming calls pass through unverified.
 */
export function reviseMiddleware(options: ReviseMiddlewareOptions): ReviseLanguageModelMiddleware {
  const { onFailure = 'best', banOption, onResult, ...reviseOptions } = options;
  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params: raw, model }) {
      const params = raw as AiSdkCallOptions;
      const initial = fromAiSdkPrompt(params.prompt);
      const { prompt: _prompt, maxOutputTokens, temperature, seed, abortSignal, ...callSettings } = params;
      const adapter = aiSdkModel(model, {
        basePrompt: { prompt: params.prompt, replaces: initial.length },
        callSettings,
        firstCall: doGenerate,
        banOption,
      });
      const r = await revise({
        ...reviseOptions,
        model: adapter,
        prompt: initial,
        maxTokens: maxOutputTokens ?? reviseOptions.maxTokens,
        temperature: temperature ?? reviseOptions.temperature,
        seed: seed ?? reviseOptions.seed,
        signal: abortSignal,
      });
      onResult?.(r);
      if (r.status !== 'ok' && onFailure === 'throw') throw new RevisionFailedError(r);
      const chosen = r.status === 'ok' ? r.attempts.at(-1)! : r.attempts[r.best?.attempt ?? -1];
      const base: AiSdkGenerateResult | null | undefined =
        (chosen && adapter.results[chosen.index]) ?? adapter.results.filter((x) => x !== null).at(-1);
      if (!base) throw new RevisionFailedError(r);
      const text = chosen?.draft ?? '';
      const v3 = model.specificationVersion === 'v3';
      const usage = v3
        ? {
            inputTokens: { total: r.usage.promptTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: r.usage.completionTokens, text: undefined, reasoning: undefined },
          }
        : {
            inputTokens: r.usage.promptTokens,
            outputTokens: r.usage.completionTokens,
            totalTokens: r.usage.promptTokens + r.usage.completionTokens,
          };
      return {
        ...base,
        content: [{ type: 'text', text }, ...base.content.filter((c) => c.type !== 'text')],
        usage,
        providerMetadata: { ...(base.providerMetadata ?? {}), revloop: summary(r) },
      };
    },
  };
}

/** Options of `repairToolCall`: the revision budget and policy used to repair an invalid tool call. */
export interface RepairToolCallOptions extends Omit<ReviseOptions, 'model' | 'prompt' | 'verify' | 'onEvent'> {
  /** The model that writes the repaired input (an AI SDK model or a revloop Model). */
  model: LanguageModelLike | Model | string;
  onResult?: (result: ReviseResult, toolName: string) => void;
  onEvent?: ReviseOptions['onEvent'];
}

/** The AI SDK's tool call (LanguageModelV3ToolCall). */
export interface ToolCallLike {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: string;
  [key: string]: unknown;
}

type ModelMessageLike = { role: string; content: string | ReadonlyArray<{ type: string; text?: string }> };

function textOf(content: ModelMessageLike['content']): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

/**
 * `experimental_repairToolCall` for `generateText`: an invalid tool input is rewritten by revision
 * against the tool's JSON Schema. The request describes the failed call by an abstracted record
 * (`[attempt 1 failed: <tool> — <what was wrong>; that call is not repeatable]` and the schema's
 * complaints), never by the call itself, and the loop's feedback is abstract. Unknown tool names
 * are not repaired (null). Needs the optional peer `ajv`.
 */
export function repairToolCall(options: RepairToolCallOptions) {
  const { onResult, model, ...reviseOptions } = options;
  if (!model) throw new UsageError('model', 'repairToolCall: a model is required');
  return async (args: {
    system?: unknown;
    messages: readonly ModelMessageLike[];
    toolCall: ToolCallLike;
    inputSchema: (o: { toolName: string }) => PromiseLike<unknown>;
    error: { name?: string; message?: string };
  }): Promise<ToolCallLike | null> => {
    const { toolCall } = args;
    if (args.error?.name === 'AI_NoSuchToolError') return null;
    const schema = (await args.inputSchema({ toolName: toolCall.toolName })) as Record<string, unknown>;
    const verify = jsonSchemaVerifier(schema);
    const first = await verify(toolCall.input, { attempt: -1 });
    const note = abstractFailureNote(
      { tool: toolCall.toolName, errorType: 'invalid_input' },
      1,
      () => 'the input did not match the schema',
    );
    const complaints = first.violations.map((v) => `- ${v.message} [${v.code}]`).join('\n');
    const system = typeof args.system === 'string' ? args.system : null;
    const prompt: ChatMessage[] = [
      ...(system ? [{ role: 'system' as const, content: system }] : []),
      ...args.messages
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => ({ role: m.role as 'user' | 'assistant', content: textOf(m.content) }))
        .filter((m) => m.content.trim() !== ''),
      {
        role: 'user',
        content:
          `${note}\n${complaints}\n\nWrite the input of the tool "${toolCall.toolName}" again as one JSON object that matches this JSON Schema, ` +
          `and nothing else:\n${JSON.stringify(schema)}`,
      },
    ];
    const r = await revise({
      ...reviseOptions,
      model: model as ReviseOptions['model'],
      prompt,
      verify,
      policy: { feedback: 'abstract', ...(reviseOptions.policy ?? {}) },
    });
    onResult?.(r, toolCall.toolName);
    if (r.status !== 'ok' || r.output === null) return null;
    return { ...toolCall, input: JSON.stringify(JSON.parse(jsonText(r.output))) };
  };
}

export type { AiSdkPromptMessage };
