// A readable description of what a spec resolves to, without contacting any server or loading any
// weights. Never includes an API key, only where it came from.
import { DEFAULT_API_KEY_ENV, type ModelOptions } from './options.ts';
import { parseSpec } from './spec.ts';
import { createHttpModel } from './create.ts';
import { createSimModel } from './sim/model.ts';
import { redactUrl } from './http/openai-compatible.ts';

export async function describeModel(spec: string, options: ModelOptions = {}): Promise<Record<string, unknown>> {
  const parsed = parseSpec(spec);
  if (parsed.scheme === 'sim') {
    const m = createSimModel(spec, parsed.target, parsed.params, { seed: options.seed, label: options.label });
    return {
      backend: 'simulated controller (in process)',
      spec,
      label: m.label,
      capabilities: m.capabilities,
      profile: m.resolved.profile.name,
      description: m.resolved.profile.description,
      params: m.params,
    };
  }
  if (parsed.scheme === 'gguf') {
    return {
      backend: 'gguf (in-process llama.cpp)',
      spec,
      path: parsed.target,
      params: parsed.params,
      capabilities: 'score, ban, tokenize, decode, stopTokens, counters, info, sizeContext (declared by the in-process backend)',
    };
  }
  const m = await createHttpModel(parsed, options);
  const c = m.config;
  const keyEnv = options.apiKeyEnv ?? parsed.params.api_key_env ?? DEFAULT_API_KEY_ENV;
  return {
    backend: c.vllm ? 'vLLM (OpenAI-compatible + prompt_logprobs scoring + bad_words bans)' : 'OpenAI-compatible HTTP',
    spec,
    label: m.label,
    capabilities: m.capabilities,
    baseUrl: redactUrl(c.baseUrl),
    model: c.model,
    apiKey: c.apiKey ? `from $${keyEnv}` : 'none (no Authorization header)',
    timeoutMs: c.timeoutMs,
    maxRetries: c.maxRetries,
    concurrency: c.concurrency,
    rpm: c.rpm ?? null,
    temperature: c.temperature,
    seed: c.seed ?? null,
    maxTokensField: c.maxTokensField,
    extraBody: c.extraBody,
    retry: c.retry,
  };
}
