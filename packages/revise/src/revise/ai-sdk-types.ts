// The parts of the Vercel AI SDK's language-model interface (LanguageModelV2 / V3, the
// `@ai-sdk/provider` specification) that revise uses, written structurally so that its types never
// require the optional `ai` packages to be installed.

export interface AiSdkTextPart {
  type: 'text';
  text: string;
}

/** A message of an AI SDK prompt (LanguageModelV2/V3 prompt). */
export type AiSdkPromptMessage =
  | { role: 'system'; content: string; providerOptions?: Record<string, unknown> }
  | {
      role: 'user' | 'assistant' | 'tool';
      content: ReadonlyArray<{ type: string; [key: string]: unknown }>;
      providerOptions?: Record<string, unknown>;
    };

/** The call options of doGenerate / doStream (LanguageModelV2/V3 call options), loosely. */
export interface AiSdkCallOptions {
  prompt: AiSdkPromptMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  seed?: number;
  abortSignal?: AbortSignal;
  providerOptions?: Record<string, Record<string, unknown>>;
  tools?: ReadonlyArray<{ type: string; name: string; inputSchema?: unknown; [key: string]: unknown }>;
  [key: string]: unknown;
}

/** V3: `{ inputTokens: { total }, outputTokens: { total } }`; V2: plain numbers. */
export interface AiSdkUsage {
  inputTokens?: number | { total?: number } | undefined;
  outputTokens?: number | { total?: number } | undefined;
  [key: string]: unknown;
}

/** A doGenerate result (LanguageModelV2/V3 generate result), loosely. */
export interface AiSdkGenerateResult {
  content: ReadonlyArray<{ type: string; text?: string; [key: string]: unknown }>;
  finishReason: string | { unified: string; raw?: string };
  usage: AiSdkUsage;
  providerMetadata?: Record<string, Record<string, unknown>>;
  response?: { id?: string; modelId?: string; [key: string]: unknown };
  warnings?: unknown[];
  [key: string]: unknown;
}

/**
 * An AI SDK LanguageModel (specification v2 or v3). The call options are typed loosely on purpose:
 * the SDK's own option types must be assignable here without revise depending on its packages.
 */
export interface LanguageModelLike {
  readonly specificationVersion: 'v2' | 'v3';
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: any): PromiseLike<any>;
  doStream?(options: any): PromiseLike<any>;
}
