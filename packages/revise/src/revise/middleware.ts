// Vercel AI SDK adapters (docs/revise.md §6), for ai 5 (LanguageModelV2) and ai 6 (V3):
// `reviseMiddleware` runs every `generateText` / `streamText` call of a wrapped model through
// `revise()`, and `repairToolCall` repairs an invalid tool call by revision from an abstracted
// failure record (the failed call itself is never shown again). What an SDK user expects holds:
// the call's own first generation is the SDK's (its errors reach the SDK's `maxRetries`), a
// response with tool calls passes through untouched (or has its invalid tool inputs repaired, with
// `toolCalls: 'repair'`), an abort ends as the SDK's abort does, `max_tokens` is sent only when the
// caller set it, and `providerOptions.revloop` overrides the budget and policy of one call. The
// `ai` packages are optional peers: nothing here imports them.
import { RevisionFailedError, UsageError } from '../errors.ts';
import type { ChatMessage, ReviseModel } from '../model.ts';
import { abstractFailureNote } from '../policy/failure-record.ts';
import type { PolicyName, RevisionPolicy } from '../policy/revision-policy.ts';
import { aiSdkModel, fromAiSdkPrompt, type AiSdkModelOptions } from './ai-sdk.ts';
import type { AiSdkCallOptions, AiSdkGenerateResult, AiSdkPromptMessage, LanguageModelLike } from './ai-sdk-types.ts';
import { revise } from './revise.ts';
import type { ReviseBudget, ReviseOptions, ReviseResult, FeedbackRenderer, Usage } from './revise-types.ts';
import { jsonSchemaVerifier, jsonText } from './verifiers.ts';

/** Options of `reviseMiddleware`: the verifier, budget and policy applied to every generation of the wrapped model. */
export interface ReviseMiddlewareOptions extends Omit<ReviseOptions, 'model' | 'prompt' | 'signal'> {
  /** When no draft passes: return the best draft with its status in provider metadata (default), or throw `RevisionFailedError`. */
  onFailure?: 'best' | 'throw';
  /** How banned sequences reach the provider (see `aiSdkModel`); without it `ban: 'failed-drafts'` is refused. */
  banOption?: AiSdkModelOptions['banOption'];
  /** Called with every loop's result (what it cost, why it stopped). */
  onResult?: (result: ReviseResult) => void;
  /**
   * `streamText`: `verify` (default) streams the passing (or best) draft once the loop is done — the
   * first token waits for the whole loop; `passthrough` streams the model's first answer unverified.
   */
  stream?: 'verify' | 'passthrough';
  /**
   * A response with tool calls: `passthrough` (default) returns it untouched; `repair` checks each
   * call's input against its tool's JSON Schema and repairs an invalid one by revision, as
   * `repairToolCall` does (needs the optional peer `ajv`), its tokens added to the call's usage.
   */
  toolCalls?: 'passthrough' | 'repair';
}

/** What one call may override through `providerOptions: { revloop: { … } }`. */
export interface ReviseCallOptions {
  budget?: ReviseBudget;
  policy?: Partial<RevisionPolicy<FeedbackRenderer>> | PolicyName;
  onFailure?: 'best' | 'throw';
  maxTokens?: number;
}

const CALL_KEYS = new Set(['budget', 'policy', 'onFailure', 'maxTokens']);

/** The call's `providerOptions.revloop`, checked; and the provider options without it. */
function callOverrides(params: AiSdkCallOptions): {
  overrides: ReviseCallOptions;
  providerOptions?: Record<string, Record<string, unknown>>;
} {
  const all = params.providerOptions;
  const own = all?.revloop;
  if (own === undefined) return { overrides: {}, providerOptions: all };
  if (!own || typeof own !== 'object' || Array.isArray(own))
    throw new UsageError('providerOptions.revloop must be an object: { budget?, policy?, onFailure?, maxTokens? }', {
      option: 'providerOptions.revloop',
    });
  for (const k of Object.keys(own))
    if (!CALL_KEYS.has(k))
      throw new UsageError(`providerOptions.revloop.${k} is not an option here; use budget, policy, onFailure or maxTokens`, {
        option: `providerOptions.revloop.${k}`,
      });
  const { revloop: _own, ...rest } = all!;
  return { overrides: own as ReviseCallOptions, providerOptions: Object.keys(rest).length ? rest : undefined };
}

/** What the AI SDK's wrapLanguageModel takes (LanguageModelV3Middleware for ai 6, V2 for ai 5). */
export interface ReviseLanguageModelMiddleware {
  readonly specificationVersion: 'v3';
  readonly middlewareVersion: 'v2';
  // The SDK's option and result types are assignable to and from these loose ones (no dependency on its packages).
  wrapGenerate(options: { doGenerate: () => PromiseLike<any>; params: any; model: LanguageModelLike }): Promise<any>;
  wrapStream(options: {
    doGenerate: () => PromiseLike<any>;
    doStream: () => PromiseLike<any>;
    params: any;
    model: LanguageModelLike;
  }): Promise<any>;
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
    cycles: r.cycles.map((c) => ({ kind: c.kind, period: c.period, attempt: c.attempt, action: c.action })),
    ...(r.usd !== undefined ? { usd: r.usd } : {}),
    ...(r.runId ? { runId: r.runId } : {}),
  };
}

/** The signal's reason as the SDK's abort surfaces it (an AbortError). */
function abortError(signal: AbortSignal | undefined): unknown {
  const reason = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}

/** Token counts in the usage shape of the model's specification (V3: objects, V2: numbers). */
function sdkUsage(v3: boolean, input: number, output: number): Record<string, unknown> {
  return v3
    ? {
        inputTokens: { total: input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: output, text: undefined, reasoning: undefined },
      }
    : { inputTokens: input, outputTokens: output, totalTokens: input + output };
}

const num = (v: unknown): number =>
  typeof v === 'number' ? v : typeof (v as { total?: unknown })?.total === 'number' ? (v as { total: number }).total : 0;

/**
 * Middleware for `wrapLanguageModel({ model, middleware: reviseMiddleware({ verify }) })`: the
 * call's own generation is the first draft; failed drafts are revised under the policy and budget;
 * the result carries the passing (or best) draft, the usage of every attempt, and
 * `providerMetadata.revloop` (status, reason, cycles). Works with ai 5 and ai 6.
 */
export function reviseMiddleware(options: ReviseMiddlewareOptions): ReviseLanguageModelMiddleware {
  const { onFailure = 'best', banOption, onResult, stream = 'verify', toolCalls = 'passthrough', ...reviseOptions } = options;
  if (stream !== 'verify' && stream !== 'passthrough')
    throw new UsageError(`stream must be 'verify' or 'passthrough' (got ${String(stream)})`, { option: 'stream' });
  if (toolCalls !== 'passthrough' && toolCalls !== 'repair')
    throw new UsageError(`toolCalls must be 'passthrough' or 'repair' (got ${String(toolCalls)})`, { option: 'toolCalls' });
  const verifyReady = (reviseOptions.verify as { ready?: () => Promise<void> }).ready;

  const generate = async ({
    doGenerate,
    params: raw,
    model,
  }: {
    doGenerate: () => PromiseLike<any>;
    params: any;
    model: LanguageModelLike;
  }) => {
    const params = raw as AiSdkCallOptions;
    const { overrides, providerOptions } = callOverrides(params);
    // Missing optional peers are reported before the call.
    await verifyReady?.();
    if (toolCalls === 'repair' && params.tools?.length) await jsonSchemaVerifier({}).ready!();
    // The call's own generation: its errors (retryable ones included) reach the SDK's maxRetries.
    const first = (await doGenerate()) as AiSdkGenerateResult;
    const v3 = model.specificationVersion === 'v3';
    if (first.content?.some((c) => c?.type === 'tool-call')) {
      if (toolCalls !== 'repair') return first;
      return repairToolCalls(first, params, model, reviseOptions, v3, onResult);
    }
    const initial = fromAiSdkPrompt(params.prompt);
    const { prompt: _prompt, maxOutputTokens, temperature, seed, abortSignal, providerOptions: _p, ...callSettings } = params;
    const adapter = aiSdkModel(model, {
      basePrompt: { prompt: params.prompt, replaces: initial.length },
      callSettings: providerOptions ? { ...callSettings, providerOptions } : callSettings,
      firstResult: first,
      banOption,
      retry: reviseOptions.retry,
    });
    const r = await revise({
      ...reviseOptions,
      ...(overrides.budget ? { budget: { ...reviseOptions.budget, ...overrides.budget } } : {}),
      ...(overrides.policy ? { policy: overrides.policy } : {}),
      model: adapter,
      prompt: initial,
      maxTokens: overrides.maxTokens ?? maxOutputTokens ?? reviseOptions.maxTokens,
      temperature: temperature ?? reviseOptions.temperature,
      seed: seed ?? reviseOptions.seed,
      signal: abortSignal,
    });
    onResult?.(r);
    if (r.status === 'aborted') throw abortError(abortSignal);
    if (r.status !== 'ok' && (overrides.onFailure ?? onFailure) === 'throw') throw revisionFailed(r);
    const chosen = r.status === 'ok' ? r.attempts.at(-1)! : r.attempts[r.best?.attempt ?? -1];
    const base: AiSdkGenerateResult | null | undefined =
      (chosen && adapter.results[chosen.index]) ?? adapter.results.filter((x) => x !== null).at(-1);
    if (!base) throw revisionFailed(r);
    return {
      ...base,
      content: [{ type: 'text', text: chosen?.draft ?? '' }, ...base.content.filter((c) => c.type !== 'text')],
      usage: sdkUsage(v3, r.usage.promptTokens, r.usage.completionTokens),
      providerMetadata: { ...(base.providerMetadata ?? {}), revloop: summary(r) },
    };
  };

  return {
    specificationVersion: 'v3',
    middlewareVersion: 'v2',
    wrapGenerate: generate,
    async wrapStream({ doGenerate, doStream, params, model }) {
      if (stream === 'passthrough') return doStream();
      const result = (await generate({ doGenerate, params, model })) as AiSdkGenerateResult;
      return { stream: streamOf(result), request: result.request, response: { headers: result.response?.headers } };
    },
  };
}

/** A generate result as the stream parts streamText reads (the same for V2 and V3): the verified content at once, then finish. */
function streamOf(r: AiSdkGenerateResult): ReadableStream<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [{ type: 'stream-start', warnings: r.warnings ?? [] }];
  if (r.response)
    parts.push({ type: 'response-metadata', id: r.response.id, modelId: r.response.modelId, timestamp: r.response.timestamp });
  r.content.forEach((c, i) => {
    if (c.type === 'text' || c.type === 'reasoning') {
      const id = `${c.type}-${i}`;
      parts.push({ type: `${c.type}-start`, id }, { type: `${c.type}-delta`, id, delta: c.text ?? '' }, { type: `${c.type}-end`, id });
    } else parts.push({ ...c });
  });
  parts.push({ type: 'finish', finishReason: r.finishReason, usage: r.usage, providerMetadata: r.providerMetadata });
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      controller.close();
    },
  });
}

/** Options of `repairToolCall`: the revision budget and policy used to repair an invalid tool call. */
export interface RepairToolCallOptions extends Omit<ReviseOptions, 'model' | 'prompt' | 'verify' | 'onEvent'> {
  /** The model that writes the repaired input (an AI SDK model or a revise model). */
  model: LanguageModelLike | ReviseModel;
  onResult?: (result: ReviseResult, toolName: string) => void;
  onEvent?: ReviseOptions['onEvent'];
}

/** The AI SDK's tool call (LanguageModelV2/V3 tool call). */
export interface ToolCallLike {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: string;
  [key: string]: unknown;
}

/** A message of the SDK's conversation as repairToolCall reads it (text parts only). */
export type ModelMessageLike = { role: string; content: string | ReadonlyArray<{ type: string; text?: string }> };

function textOf(content: ModelMessageLike['content']): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

/**
 * Rewrites one invalid tool input by revision against the tool's JSON Schema, from the abstracted
 * record of the failed call (never the call itself), under abstract feedback. Null input: no
 * repaired input passed within the budget.
 */
async function repairInput(
  o: Omit<ReviseOptions, 'prompt' | 'verify'>,
  call: { toolName: string; input: string },
  schema: Record<string, unknown> | boolean,
  context: ChatMessage[],
): Promise<{ input: string | null; result: ReviseResult | null }> {
  const verify = jsonSchemaVerifier(schema);
  const first = await verify(call.input, { attempt: -1 });
  if (first.ok) return { input: call.input, result: null };
  const note = abstractFailureNote({ tool: call.toolName, errorType: 'invalid_input' }, 1, () => 'the input did not match the schema');
  const complaints = first.violations.map((v) => `- ${v.message} [${v.code}]`).join('\n');
  const prompt: ChatMessage[] = [
    ...context.filter((m) => m.content.trim() !== ''),
    {
      role: 'user',
      content:
        `${note}\n${complaints}\n\nWrite the input of the tool "${call.toolName}" again as one JSON object that matches this JSON Schema, ` +
        `and nothing else:\n${JSON.stringify(schema)}`,
    },
  ];
  const r = await revise({
    ...o,
    prompt,
    verify,
    policy: typeof o.policy === 'string' ? o.policy : { feedback: 'abstract', ...(o.policy ?? {}) },
  });
  return { input: r.status === 'ok' && r.output !== null ? JSON.stringify(JSON.parse(jsonText(r.output))) : null, result: r };
}

/** The middleware's `toolCalls: 'repair'`: invalid tool inputs of a response repaired, the repair's tokens added to its usage. */
async function repairToolCalls(
  first: AiSdkGenerateResult,
  params: AiSdkCallOptions,
  model: LanguageModelLike,
  o: Omit<ReviseMiddlewareOptions, 'onFailure' | 'banOption' | 'onResult' | 'stream' | 'toolCalls'>,
  v3: boolean,
  onResult?: (result: ReviseResult) => void,
): Promise<AiSdkGenerateResult> {
  const context = fromAiSdkPrompt(params.prompt);
  let input = num(first.usage?.inputTokens);
  let output = num(first.usage?.outputTokens);
  const repairs: Array<Record<string, unknown>> = [];
  const content = [];
  for (const part of first.content) {
    const tool = part.type === 'tool-call' ? params.tools?.find((t) => t.name === part.toolName) : undefined;
    if (!tool || tool.inputSchema === undefined) {
      content.push(part);
      continue;
    }
    const raw = typeof part.input === 'string' ? part.input : JSON.stringify(part.input);
    const { verify: _v, ...rest } = o;
    const { input: repaired, result } = await repairInput(
      { ...rest, model, signal: params.abortSignal },
      { toolName: String(part.toolName), input: raw },
      tool.inputSchema as Record<string, unknown>,
      context,
    );
    if (result) {
      onResult?.(result);
      input += result.usage.promptTokens;
      output += result.usage.completionTokens;
      repairs.push({ toolName: part.toolName, ...summary(result) });
      if (result.status === 'aborted') throw abortError(params.abortSignal);
    }
    content.push(repaired !== null && repaired !== raw ? { ...part, input: repaired } : part);
  }
  if (!repairs.length) return first;
  return {
    ...first,
    content,
    usage: sdkUsage(v3, input, output),
    providerMetadata: { ...(first.providerMetadata ?? {}), revloop: { repairs } },
  };
}

/** What `repairToolCall` returns: an `experimental_repairToolCall` function for generateText / streamText. */
export type ToolCallRepairFunction = (args: {
  system?: unknown;
  messages: readonly ModelMessageLike[];
  toolCall: ToolCallLike;
  inputSchema: (o: { toolName: string }) => PromiseLike<unknown>;
  error: { name?: string; message?: string };
}) => Promise<ToolCallLike | null>;

/**
 * `experimental_repairToolCall` for `generateText`: an invalid tool input is rewritten by revision
 * against the tool's JSON Schema. The request describes the failed call by an abstracted record
 * (`[attempt 1 failed: <tool> — <what was wrong>; that call is not repeatable]` and the schema's
 * complaints), never by the call itself, and the loop's feedback is abstract. Unknown tool names
 * are not repaired (null). Needs the optional peer `ajv`. The SDK has no way to add a repair's
 * tokens to `totalUsage`: they reach `onResult` (and telemetry); `reviseMiddleware({ toolCalls:
 * 'repair' })` adds them to the call's usage instead.
 */
export function repairToolCall(options: RepairToolCallOptions): ToolCallRepairFunction {
  const { onResult, model, ...reviseOptions } = options;
  if (!model) throw new UsageError('repairToolCall: a model is required', { option: 'model' });
  return async (args) => {
    const { toolCall } = args;
    if (args.error?.name === 'AI_NoSuchToolError') return null;
    await jsonSchemaVerifier({}).ready!();
    const schema = (await args.inputSchema({ toolName: toolCall.toolName })) as Record<string, unknown>;
    const system = typeof args.system === 'string' ? args.system : null;
    const context: ChatMessage[] = [
      ...(system ? [{ role: 'system' as const, content: system }] : []),
      ...args.messages
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => ({ role: m.role as 'user' | 'assistant', content: textOf(m.content) })),
    ];
    const { input, result } = await repairInput({ ...reviseOptions, model }, toolCall, schema, context);
    // An input the schema accepts was rejected by a check the JSON Schema cannot express: nothing to repair here.
    if (!result) return null;
    onResult?.(result, toolCall.toolName);
    if (input === null) return null;
    return { ...toolCall, input };
  };
}

export type { AiSdkPromptMessage, Usage };

/** The error of a revision whose caller wanted an error rather than the best draft. */
function revisionFailed(result: ReviseResult): RevisionFailedError {
  return new RevisionFailedError(`revloop: no draft passed verification (${result.status}: ${result.reason})`, { result });
}
