// createModel(spec, options): a model spec string → a Model (the scheme list is in models/index.ts
// and docs/models.md). The HTTP configuration is checked here, before any request.
import { simulatedLabel } from '../core/simulated.ts';
import { namingOption, UserError, UsageError } from '../core/errors.ts';
import type { Model } from './types.ts';
import {
  DEFAULT_API_KEY_ENV,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIMEOUT_MS,
  realClock,
  type ModelOptions,
} from './options.ts';
import { booleanParam, numberParam, parseSpec, type ParsedSpec } from './spec.ts';
import type { HttpModelConfig, OpenAICompatibleModel } from './http/openai-compatible.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES_LIMIT } from './limits.ts';

/** Parameters an HTTP spec may carry after `?`, and the option each one sets. */
const HTTP_PARAMS = [
  'timeout',
  'max_retries',
  'concurrency',
  'rpm',
  'temperature',
  'seed',
  'api_key_env',
  'max_tokens_field',
  'vllm',
  'label',
  'max_response_bytes',
] as const;

function httpConfig(parsed: ParsedSpec, options: ModelOptions, env: NodeJS.ProcessEnv): HttpModelConfig {
  const { spec, params } = parsed;
  for (const k of Object.keys(params)) {
    if (!(HTTP_PARAMS as readonly string[]).includes(k)) {
      throw new UsageError(`invalid model spec ${JSON.stringify(spec)}: unknown parameter "${k}"; known: ${HTTP_PARAMS.join(', ')}`, {
        option: k,
      });
    }
  }
  const num = (k: string, o: { min?: number; max?: number; integer?: boolean }) =>
    params[k] !== undefined ? numberParam(spec, k, params[k], o) : undefined;
  const timeoutMs = num('timeout', { min: 1 }) ?? checkNum('timeout', options.timeout, { min: 1 }) ?? DEFAULT_TIMEOUT_MS;
  const maxRetries =
    num('max_retries', { min: 0, integer: true }) ??
    checkNum('maxRetries', options.maxRetries, { min: 0, integer: true }) ??
    DEFAULT_MAX_RETRIES;
  const concurrency =
    num('concurrency', { min: 1, integer: true }) ??
    checkNum('concurrency', options.concurrency, { min: 1, integer: true }) ??
    DEFAULT_CONCURRENCY;
  const rpm = num('rpm', { min: 1 }) ?? checkNum('rpm', options.rpm, { min: 1 });
  const maxResponseBytes =
    num('max_response_bytes', { min: 1024, max: MAX_RESPONSE_BYTES_LIMIT, integer: true }) ??
    checkNum('maxResponseBytes', options.maxResponseBytes, { min: 1024, max: MAX_RESPONSE_BYTES_LIMIT, integer: true }) ??
    DEFAULT_MAX_RESPONSE_BYTES;
  let temperature: number | null = 0;
  if (params.temperature !== undefined)
    temperature = params.temperature === 'omit' ? null : numberParam(spec, 'temperature', params.temperature, { min: 0, max: 2 });
  else if (options.temperature !== undefined)
    temperature = options.temperature === null ? null : (checkNum('temperature', options.temperature, { min: 0, max: 2 }) as number);
  const seed = num('seed', { integer: true }) ?? checkNum('seed', options.seed, { integer: true });
  const maxTokensField = (params.max_tokens_field ?? options.maxTokensField ?? 'max_tokens') as HttpModelConfig['maxTokensField'];
  if (maxTokensField !== 'max_tokens' && maxTokensField !== 'max_completion_tokens') {
    throw new UsageError(`invalid model spec ${JSON.stringify(spec)}: max_tokens_field must be max_tokens or max_completion_tokens`, {
      option: 'max_tokens_field',
    });
  }
  const vllm = parsed.scheme === 'vllm' || (params.vllm !== undefined && booleanParam(spec, 'vllm', params.vllm));

  // The key comes from the environment only, never from files.
  const keyEnv = params.api_key_env ?? options.apiKeyEnv;
  let apiKey: string | null;
  if (keyEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv))
      throw new UsageError(`api key variable name "${keyEnv}" is not a valid environment variable name`, { option: 'api_key_env' });
    apiKey = env[keyEnv]?.trim() || null;
    if (!apiKey) throw new UserError(`${spec}: the API key variable ${keyEnv} is not set (or empty); export it, e.g. export ${keyEnv}=…`);
  } else {
    apiKey = env[DEFAULT_API_KEY_ENV]?.trim() || null;
  }
  if (parsed.scheme === 'openai' && !apiKey) {
    throw namingOption(
      'apiKeyEnv',
      (n) => new UserError(`${spec}: no API key; set ${DEFAULT_API_KEY_ENV} (or name another variable with ${n})`),
    );
  }
  const baseUrl = (parsed.baseUrl ?? options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const extraBody = options.extraBody ?? {};
  if (typeof extraBody !== 'object' || Array.isArray(extraBody))
    throw new UsageError('extraBody must be a JSON object', { option: 'extraBody' });
  return {
    spec,
    // Models named `sim:…` are served by a simulator: their label always says so.
    label: parsed.target.startsWith('sim:')
      ? simulatedLabel(params.label ?? options.label ?? parsed.target)
      : (params.label ?? options.label ?? parsed.target),
    model: parsed.target,
    baseUrl,
    apiKey,
    timeoutMs,
    maxRetries,
    concurrency,
    rpm,
    rpmWindowMs: options.rpmWindowMs ?? 60_000,
    extraBody,
    temperature,
    seed,
    maxTokensField,
    maxResponseBytes,
    retry: { ...DEFAULT_RETRY_POLICY, ...(options.retry ?? {}) },
    clock: options.clock ?? realClock,
    vllm,
  };
}

function checkNum(name: string, v: unknown, o: { min?: number; max?: number; integer?: boolean }): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new UsageError(`model option ${name} must be a number (got ${JSON.stringify(v)})`, { option: name });
  if (o.integer && !Number.isInteger(v)) throw new UsageError(`model option ${name} must be an integer (got ${v})`, { option: name });
  if (o.min != null && v < o.min) throw new UsageError(`model option ${name} must be at least ${o.min} (got ${v})`, { option: name });
  if (o.max != null && v > o.max) throw new UsageError(`model option ${name} must be at most ${o.max} (got ${v})`, { option: name });
  return v;
}

/** An OpenAI-compatible HTTP model (openai:, openai-compatible:, vllm:). */
export async function createHttpModel(
  parsed: ParsedSpec,
  options: ModelOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<OpenAICompatibleModel> {
  const config = httpConfig(parsed, options, env);
  if (config.vllm) {
    const { VllmModel } = await import('./http/vllm.ts');
    return new VllmModel(config);
  }
  const { OpenAICompatibleModel } = await import('./http/openai-compatible.ts');
  return new OpenAICompatibleModel(config);
}

interface GgufModule {
  createGgufModel(spec: string, options: Record<string, unknown>): Promise<Model> | Model;
  requireNodeLlamaCpp(spec: string): Promise<unknown>;
}

/** Creates a model from its spec. Unknown schemes and bad parameters are UserErrors. */
export async function createModel(spec: string, options: ModelOptions = {}): Promise<Model> {
  const parsed = parseSpec(spec);
  switch (parsed.scheme) {
    case 'sim': {
      // Imported only for sim: specs (docs/performance.md#start-up).
      const { createSimModel } = await import('./sim/model.ts');
      return createSimModel(spec, parsed.target, parsed.params, {
        seed: checkNum('seed', options.seed, { integer: true }),
        label: options.label,
        clock: options.clock,
      });
    }
    case 'openai':
    case 'openai-compatible':
    case 'vllm':
      return createHttpModel(parsed, options);
    case 'gguf': {
      // Imported only for gguf: specs (a literal path, so the build rewrites it to dist's .js). The
      // backend needs node-llama-cpp, an optional peer dependency: refused here, with the install
      // command, when it is missing.
      const mod: GgufModule = await import('./gguf/index.ts');
      await mod.requireNodeLlamaCpp(spec);
      const { clock: _clock, ...rest } = options;
      return mod.createGgufModel(spec, rest);
    }
  }
}
