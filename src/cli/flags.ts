// Every flag of every command is parsed here, from the strings commander hands over to the typed
// options the app functions take: whole numbers, the shared model flags, protocol settings,
// repeatable flags and `controller=panel` assignments. Errors name the flag as typed.
import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.ts';
import { PROMPT_VARIANTS, type PromptVariant } from '../core/verify/types.ts';
import { parseHistoryWindow, type HistoryWindow } from '../remedy/history-window.ts';
import { DEFAULT_API_KEY_ENV, DEFAULT_CONCURRENCY, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type ModelOptions } from '../models/options.ts';
import { RUN_DEFAULTS } from '../app/defaults.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES_LIMIT } from '../models/limits.ts';

/** Commander's collector for a repeatable flag (`--plugin a.ts --plugin b.ts`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A whole-number flag within [min, max]; undefined stays undefined (the caller's default applies). */
export function wholeNumber(flag: string, value: string, range?: { min?: number; max?: number }): number;
export function wholeNumber(flag: string, value: string | undefined, range?: { min?: number; max?: number }): number | undefined;
export function wholeNumber(flag: string, value: string | undefined, range: { min?: number; max?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  const min = range.min ?? 0;
  const n = Number(value);
  const bounds = range.max !== undefined ? `from ${min} to ${range.max}` : `≥ ${min}`;
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || (range.max !== undefined && n > range.max)) {
    throw new UsageError(`${flag} must be a whole number ${bounds} (got "${value}")`, { option: flag });
  }
  return n;
}

/** A number flag ≥ min (and ≤ max when given; integers only when asked, and then safe integers: 2^53 is not a seed). */
export function numberFlag(
  flag: string,
  value: string | undefined,
  o: { min: number; max?: number; integer?: boolean },
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const max = o.max ?? (o.integer ? Number.MAX_SAFE_INTEGER : Infinity);
  if (value.trim() === '' || !Number.isFinite(n) || (o.integer && !Number.isSafeInteger(n)) || n < o.min || n > max) {
    const range = Number.isFinite(max) ? `from ${o.min} to ${max}` : `≥ ${o.min}`;
    throw new UsageError(`${flag} must be ${o.integer ? 'an integer' : 'a number'} ${range} (got "${value}")`, { option: flag });
  }
  return n;
}

/** The run a command names as its argument or with --run; two different names are a mistake. */
export function oneRun(command: string, positional: string | undefined, flag: string | undefined, usage: string): string {
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw new UsageError(`${command}: two runs named ('${positional}' and --run '${flag}'); name one (${usage})`, { option: '--run' });
  }
  const run = flag ?? positional;
  if (!run) throw new UsageError(`${command}: name the run (${usage})`, { option: '--run' });
  return run;
}

/** `--panel controller=panel` assignments (the last '=' splits, so controller names may contain one). */
export function parsePanels(command: string, specs: readonly string[]): Record<string, string> {
  return parseAssignments(command, '--panel', 'controller=panel', specs, '--panel "sim:fast=simulated"');
}

/** `--FLAG controller=value` assignments, split at the last '='. */
export function parseAssignments(
  command: string,
  flag: string,
  form: string,
  specs: readonly string[],
  example: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const spec of specs) {
    const at = spec.lastIndexOf('=');
    if (at <= 0 || at === spec.length - 1) {
      throw new UsageError(`${command}: ${flag} expects ${form} (got "${spec}"), e.g. ${example}`, { option: flag });
    }
    out[spec.slice(0, at)] = spec.slice(at + 1);
  }
  return out;
}

// ---- protocol ------------------------------------------------------------------------------------

/** `--ban failed-drafts | complete-repeats | none`; undefined leaves it to the harness. */
export function banFlag(value: string | undefined): 'failed-drafts' | 'complete-repeats' | 'none' | undefined {
  if (value === undefined) return undefined;
  if (value === 'failed-drafts' || value === 'complete-repeats' || value === 'none') return value;
  throw new UsageError(`--ban: expected failed-drafts, complete-repeats or none, got '${value}'`, { option: '--ban' });
}

export function historyFlag(value: string | undefined): HistoryWindow {
  return value === undefined ? RUN_DEFAULTS.history : parseHistoryWindow(value);
}

export function variantFlag(value: string | undefined): PromptVariant {
  const v = value ?? RUN_DEFAULTS.variant;
  if (!(PROMPT_VARIANTS as readonly string[]).includes(v)) {
    throw new UsageError(`--variant: unknown prompt variant '${v}'; use ${PROMPT_VARIANTS.join(', ')}`, { option: '--variant' });
  }
  return v as PromptVariant;
}

// ---- the model flags, the same on every command that takes --model ------------------------------

export interface ModelFlags {
  timeout?: string;
  retries?: string;
  modelConcurrency?: string;
  rpm?: string;
  apiKeyEnv?: string;
  extraBody?: string;
  temperature?: string;
  seed?: string;
  label?: string;
  maxResponseBytes?: string;
}

/** The model flags, in help order (times in seconds here, milliseconds in the library); parsed by modelOptionsFromFlags. */
export function modelFlagOptions(): Option[] {
  return [
    new Option('--timeout <seconds>', `per-attempt timeout for HTTP models (default ${DEFAULT_TIMEOUT_MS / 1000})`),
    new Option('--retries <n>', `retries after a failed HTTP attempt (default ${DEFAULT_MAX_RETRIES})`),
    new Option(
      '--model-concurrency <n>',
      `HTTP requests in flight per model (default ${DEFAULT_CONCURRENCY}; \`run\` defaults it to --concurrency)`,
    ),
    new Option('--rpm <n>', 'at most this many HTTP attempts per minute'),
    new Option('--api-key-env <NAME>', `environment variable holding the API key (default ${DEFAULT_API_KEY_ENV})`),
    new Option('--extra-body <json>', 'extra request-body keys as a JSON object, e.g. \'{"seed": 1}\' (docs/models.md)'),
    new Option('--temperature <t>', 'sampling temperature (default 0; "omit" to send none)'),
    new Option('--seed <n>', 'seed sent with every request (and the seed of sim models)'),
    new Option('--label <name>', 'controller name shown in analyses'),
    new Option(
      '--max-response-bytes <n>',
      `HTTP models: read a reply only up to this many bytes; a longer one is recorded as a response_too_large fault (default ${DEFAULT_MAX_RESPONSE_BYTES})`,
    ),
  ];
}

/** Adds the model flags to a command. */
export function addModelOptions(cmd: Command): Command {
  for (const option of modelFlagOptions()) cmd.addOption(option);
  return cmd;
}

export function modelOptionsFromFlags(flags: ModelFlags): ModelOptions {
  const o: ModelOptions = {};
  const timeout = numberFlag('--timeout', flags.timeout, { min: 0.001 });
  if (timeout !== undefined) o.timeout = Math.round(timeout * 1000);
  const retries = numberFlag('--retries', flags.retries, { min: 0, integer: true });
  if (retries !== undefined) o.maxRetries = retries;
  const conc = numberFlag('--model-concurrency', flags.modelConcurrency, { min: 1, integer: true });
  if (conc !== undefined) o.concurrency = conc;
  const rpm = numberFlag('--rpm', flags.rpm, { min: 1 });
  if (rpm !== undefined) o.rpm = rpm;
  if (flags.apiKeyEnv !== undefined) o.apiKeyEnv = flags.apiKeyEnv;
  if (flags.extraBody !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(flags.extraBody);
    } catch (e) {
      throw new UsageError(`--extra-body is not valid JSON: ${(e as Error).message}`, { option: '--extra-body' });
    }
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new UsageError('--extra-body must be a JSON object, e.g. \'{"seed": 0}\'', { option: '--extra-body' });
    o.extraBody = v as Record<string, unknown>;
  }
  if (flags.temperature !== undefined)
    o.temperature = flags.temperature === 'omit' ? null : numberFlag('--temperature', flags.temperature, { min: 0 });
  const seed = numberFlag('--seed', flags.seed, { min: -Number.MAX_SAFE_INTEGER, integer: true });
  if (seed !== undefined) o.seed = seed;
  if (flags.label !== undefined) o.label = flags.label;
  const maxResponse = wholeNumber('--max-response-bytes', flags.maxResponseBytes, { min: 1024, max: MAX_RESPONSE_BYTES_LIMIT });
  if (maxResponse !== undefined) o.maxResponseBytes = maxResponse;
  return o;
}

/**
 * The model flags as a trajectory session records them in its `session_started` options (as typed,
 * null when not given), with the stop rule for protocol-incomplete trajectories in a row.
 */
export function sessionOptionsFromFlags(
  flags: Pick<ModelFlags, 'timeout' | 'retries' | 'rpm' | 'apiKeyEnv'>,
  maxConsecutiveFailures: number,
): Record<string, unknown> {
  return {
    timeout_s: flags.timeout ?? null,
    retries: flags.retries ?? null,
    rpm: flags.rpm ?? null,
    api_key_env: flags.apiKeyEnv ?? null,
    max_consecutive_failures: maxConsecutiveFailures,
  };
}
