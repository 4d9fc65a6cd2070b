// The `gguf:<path>[?k=v&…]` model spec and the options object, merged and validated into one
// settings record. Errors name the key and say what is accepted.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { UserError, UsageError, NotFoundError } from '../../core/errors.ts';
import { DEFAULT_TEMPLATE_KWARGS } from './chat-template.ts';

/** Where a GGUF model runs: `false` (CPU), `auto`, or one GPU backend. */
export type GpuSetting = false | 'auto' | 'cuda' | 'vulkan' | 'metal';
/** How a continuation is tokenized for scoring: `separate` (docs/harness.md §3.4, the default) or `lm-eval`. */
export type ScoreTokenization = 'separate' | 'lm-eval';

/** Options of `createGgufModel` (all optional; the spec's `?k=v` pairs set the same keys). */
export interface GgufModelOptions {
  /** Controller name in analyses (default: the file name). */
  label?: string;
  /** Default sampling temperature for `generate` (0 = greedy, the default). */
  temperature?: number;
  /** Default seed for sampling when temperature > 0 (default 0; recorded in every attempt). */
  seed?: number;
  /** Sampling truncation when temperature > 0: top-k (0 = off, default), top-p (1 = off, default), min-p (0 = off). */
  topK?: number;
  topP?: number;
  minP?: number;
  /** `false` (CPU, default), `"auto"` (best available: CUDA, Vulkan, Metal, else CPU), or one backend. */
  gpu?: GpuSetting;
  /** Layers to offload when a GPU is used: a number, `"auto"` or `"max"` (default `"max"` on GPU, 0 on CPU). */
  gpuLayers?: number | 'auto' | 'max';
  /** KV context size in tokens (default: min(training context, 4096)). */
  contextSize?: number;
  /** Tokens per decode batch (default: node-llama-cpp's, 512 or the context size if smaller). */
  batchSize?: number;
  /** CPU threads (default: the number of physical math cores node-llama-cpp detects). */
  threads?: number;
  /** Flash attention (default off: on CPU it changes single-token results by ~1e-4 nats). */
  flashAttention?: boolean;
  /** Path to a Jinja chat template to use instead of the GGUF's `tokenizer.chat_template`. */
  chatTemplate?: string;
  /** Extra template variables (HF kwargs). Default `{enable_thinking: false}`; yours are merged over it. */
  templateKwargs?: Record<string, unknown>;
  /** Date `strftime_now` returns in templates: `YYYY-MM-DD` (default 2024-07-26) or `now`. */
  templateDate?: string;
  /** How a continuation is tokenized for `score`: `separate` (docs/harness.md §3.4, default) or `lm-eval`. */
  scoreTokenization?: ScoreTokenization;
  /** Run the finite-output self-check after loading (default true). */
  selfCheck?: boolean;
}

/** Fully resolved settings. */
export interface GgufSettings {
  path: string;
  label: string;
  temperature: number;
  seed: number;
  topK: number;
  topP: number;
  minP: number;
  gpu: GpuSetting;
  gpuLayers: number | 'auto' | 'max';
  contextSize: number | null;
  batchSize: number | null;
  threads: number | null;
  flashAttention: boolean;
  chatTemplate: string | null;
  templateKwargs: Record<string, unknown>;
  templateDate: string;
  scoreTokenization: ScoreTokenization;
  selfCheck: boolean;
}

const KEYS = [
  'label',
  'temperature',
  'seed',
  'topK',
  'topP',
  'minP',
  'gpu',
  'gpuLayers',
  'contextSize',
  'batchSize',
  'threads',
  'flashAttention',
  'chatTemplate',
  'templateKwargs',
  'enableThinking',
  'templateDate',
  'scoreTokenization',
  'selfCheck',
] as const;

function bad(spec: string, key: string, problem: string): UserError {
  return new UsageError(`model spec ${spec}: ${key}: ${problem}`, { option: key });
}

function parseNumber(spec: string, key: string, raw: string, opts: { int?: boolean; min?: number; max?: number } = {}): number {
  const v = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(v)) throw bad(spec, key, `expected a number, got ${JSON.stringify(raw)}`);
  if (opts.int && !Number.isInteger(v)) throw bad(spec, key, `expected an integer, got ${raw}`);
  if (opts.min != null && v < opts.min) throw bad(spec, key, `must be >= ${opts.min}, got ${raw}`);
  if (opts.max != null && v > opts.max) throw bad(spec, key, `must be <= ${opts.max}, got ${raw}`);
  return v;
}

function parseBool(spec: string, key: string, raw: string): boolean {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw bad(spec, key, `expected true or false, got ${JSON.stringify(raw)}`);
}

function parseGpu(spec: string, raw: string | boolean): GpuSetting {
  if (raw === false || raw === 'false' || raw === 'cpu' || raw === 'off' || raw === '0') return false;
  if (raw === true || raw === 'auto' || raw === 'true') return 'auto';
  if (raw === 'cuda' || raw === 'vulkan' || raw === 'metal') return raw;
  throw bad(spec, 'gpu', `expected cpu|false, auto, cuda, vulkan or metal, got ${JSON.stringify(raw)}`);
}

/** Splits `gguf:<path>?k=v&…` into the path and the query options (as strings). */
export function parseGgufSpec(spec: string): { path: string; query: Record<string, string> } {
  if (!spec.startsWith('gguf:')) throw new UsageError(`model spec ${spec}: expected gguf:<path>[?key=value&…]`);
  const body = spec.slice('gguf:'.length);
  const q = body.indexOf('?');
  const rawPath = q >= 0 ? body.slice(0, q) : body;
  if (!rawPath) throw new UsageError(`model spec ${spec}: missing the path of the .gguf file (gguf:<path>)`);
  const query: Record<string, string> = {};
  if (q >= 0) {
    for (const [k, v] of new URLSearchParams(body.slice(q + 1))) {
      if (!(KEYS as readonly string[]).includes(k)) {
        throw bad(spec, k, `unknown option; known options: ${KEYS.join(', ')}`);
      }
      query[k] = v;
    }
  }
  const expanded = rawPath.startsWith('~/') ? homedir() + rawPath.slice(1) : rawPath;
  return { path: resolve(expanded), query };
}

/** Merges the spec's query with the options object (the object wins) and validates everything. */
export function resolveGgufSettings(spec: string, options: GgufModelOptions = {}): GgufSettings {
  const { path, query } = parseGgufSpec(spec);
  if (!existsSync(path)) throw new NotFoundError(`model spec ${spec}: file not found: ${path}`, { kind: 'file', target: path });
  if (!statSync(path).isFile()) throw new NotFoundError(`model spec ${spec}: not a file: ${path}`, { kind: 'file', target: path });

  const num = (key: keyof GgufModelOptions, o: { int?: boolean; min?: number; max?: number } = {}): number | undefined => {
    const v = options[key];
    if (v !== undefined && v !== null) {
      if (typeof v !== 'number') throw bad(spec, key, `expected a number, got ${JSON.stringify(v)}`);
      return parseNumber(spec, key, String(v), o);
    }
    return query[key] !== undefined ? parseNumber(spec, key, query[key], o) : undefined;
  };
  const bool = (key: keyof GgufModelOptions): boolean | undefined => {
    const v = options[key];
    if (typeof v === 'boolean') return v;
    return query[key] !== undefined ? parseBool(spec, key, query[key]) : undefined;
  };
  const str = (key: keyof GgufModelOptions): string | undefined => {
    const v = options[key];
    if (typeof v === 'string') return v;
    return query[key];
  };

  let templateKwargs: Record<string, unknown> = { ...DEFAULT_TEMPLATE_KWARGS };
  if (query.templateKwargs !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(query.templateKwargs);
    } catch {
      throw bad(spec, 'templateKwargs', 'expected a JSON object, e.g. templateKwargs={"enable_thinking":true}');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad(spec, 'templateKwargs', 'expected a JSON object');
    templateKwargs = { ...templateKwargs, ...(parsed as Record<string, unknown>) };
  }
  if (query.enableThinking !== undefined) templateKwargs.enable_thinking = parseBool(spec, 'enableThinking', query.enableThinking);
  if (options.templateKwargs) templateKwargs = { ...templateKwargs, ...options.templateKwargs };

  const gpuRaw = options.gpu !== undefined ? options.gpu : query.gpu;
  const gpu = gpuRaw === undefined ? false : parseGpu(spec, gpuRaw);
  let gpuLayers: number | 'auto' | 'max' = gpu === false ? 0 : 'max';
  const gl = options.gpuLayers ?? query.gpuLayers;
  if (gl !== undefined) {
    gpuLayers = gl === 'auto' || gl === 'max' ? gl : parseNumber(spec, 'gpuLayers', String(gl), { int: true, min: 0 });
  }

  const templateDate = str('templateDate') ?? '2024-07-26';
  if (templateDate !== 'now' && !/^\d{4}-\d{2}-\d{2}$/.test(templateDate))
    throw bad(spec, 'templateDate', `expected YYYY-MM-DD or now, got ${templateDate}`);
  const scoreTokenization = (str('scoreTokenization') ?? 'separate') as ScoreTokenization;
  if (scoreTokenization !== 'separate' && scoreTokenization !== 'lm-eval')
    throw bad(spec, 'scoreTokenization', `expected separate or lm-eval, got ${scoreTokenization}`);
  const chatTemplate = str('chatTemplate');

  return {
    path,
    label:
      str('label') ??
      path
        .split('/')
        .pop()!
        .replace(/\.gguf$/i, ''),
    temperature: num('temperature', { min: 0 }) ?? 0,
    seed: num('seed', { int: true, min: 0, max: 2 ** 32 - 1 }) ?? 0,
    topK: num('topK', { int: true, min: 0 }) ?? 0,
    topP: num('topP', { min: 0, max: 1 }) ?? 1,
    minP: num('minP', { min: 0, max: 1 }) ?? 0,
    gpu,
    gpuLayers,
    contextSize: num('contextSize', { int: true, min: 16 }) ?? null,
    batchSize: num('batchSize', { int: true, min: 1 }) ?? null,
    threads: num('threads', { int: true, min: 1 }) ?? null,
    flashAttention: bool('flashAttention') ?? false,
    chatTemplate: chatTemplate ? resolve(chatTemplate) : null,
    templateKwargs,
    templateDate,
    scoreTokenization,
    selfCheck: bool('selfCheck') ?? true,
  };
}
