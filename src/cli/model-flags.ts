// Command-line flags for model options, shared by every command that takes `--model SPEC`
// (`addModelOptions(cmd)` then `modelOptionsFromFlags(opts)`). Times are in seconds on the command
// line and in milliseconds in the library.
import type { Command } from 'commander';
import { UserError } from '../core/errors.ts';
import type { ModelOptions } from '../models/options.ts';

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
}

export function addModelOptions(cmd: Command): Command {
  return cmd
    .option('--timeout <seconds>', 'per-attempt timeout for HTTP models (default 180)')
    .option('--retries <n>', 'retries after a failed HTTP attempt (default 4)')
    .option('--model-concurrency <n>', 'HTTP requests in flight per model (default 16)')
    .option('--rpm <n>', 'at most this many HTTP attempts per minute')
    .option('--api-key-env <NAME>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--extra-body <json>', 'extra request-body keys as a JSON object, e.g. \'{"chat_template_kwargs":{"enable_thinking":false}}\'')
    .option('--temperature <t>', 'sampling temperature (default 0; "omit" to send none)')
    .option('--seed <n>', 'seed sent with every request (and the seed of sim models)')
    .option('--label <name>', 'controller name shown in analyses');
}

function num(flag: string, v: string | undefined, integer: boolean, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min) {
    throw new UserError(`--${flag} must be ${integer ? 'an integer' : 'a number'} ≥ ${min} (got "${v}")`);
  }
  return n;
}

export function modelOptionsFromFlags(flags: ModelFlags): ModelOptions {
  const o: ModelOptions = {};
  const timeout = num('timeout', flags.timeout, false, 0.001);
  if (timeout !== undefined) o.timeout = Math.round(timeout * 1000);
  const retries = num('retries', flags.retries, true, 0);
  if (retries !== undefined) o.maxRetries = retries;
  const conc = num('model-concurrency', flags.modelConcurrency, true, 1);
  if (conc !== undefined) o.concurrency = conc;
  const rpm = num('rpm', flags.rpm, false, 1);
  if (rpm !== undefined) o.rpm = rpm;
  if (flags.apiKeyEnv !== undefined) o.apiKeyEnv = flags.apiKeyEnv;
  if (flags.extraBody !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(flags.extraBody);
    } catch (e) {
      throw new UserError(`--extra-body is not valid JSON: ${(e as Error).message}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UserError('--extra-body must be a JSON object, e.g. \'{"seed": 0}\'');
    o.extraBody = v as Record<string, unknown>;
  }
  if (flags.temperature !== undefined)
    o.temperature = flags.temperature === 'omit' ? null : num('temperature', flags.temperature, false, 0);
  const seed = num('seed', flags.seed, true, -(2 ** 53));
  if (seed !== undefined) o.seed = seed;
  if (flags.label !== undefined) o.label = flags.label;
  return o;
}
