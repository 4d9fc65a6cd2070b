// `revloop run`: load the cases, create the model, plan or resume the run in the store, show
// progress, stop cleanly on Ctrl-C, and say what to do next. The CLI module only parses options.
import { basename } from 'node:path';
import { loadCaseSet, parseFormat } from '../cases/index.ts';
import { createModel, parseSpec, type ModelOptions } from '../models/index.ts';
import type { Model } from '../models/types.ts';
import { openStore } from '../store/store.ts';
import { UserError } from '../util/errors.ts';
import { getFamily } from '../verify/index.ts';
import { parseHistoryPolicy } from './history.ts';
import { createProgressReporter } from './progress.ts';
import { parseBudget, parseVariant, protocolName, type ProtocolConfig } from './protocol.ts';
import { executeRun, type RunResult } from './run.ts';

export interface RunCommandOptions {
  cases: string;
  model: string;
  store: string;
  runId?: string;
  budget?: string;
  history?: string;
  variant?: string;
  concurrency?: string;
  limit?: string;
  format?: string;
  timeout?: string;
  retries?: string;
  rpm?: string;
  apiKeyEnv?: string;
  extraBody?: string;
  temperature?: string;
  seed?: string;
  label?: string;
  maxConsecutiveFailures?: string;
}

export interface CommandIO {
  out: { write(s: string): unknown };
  err: { write(s: string): unknown; isTTY?: boolean };
  /** Replaces process signal handling in tests. */
  signal?: AbortSignal;
}

export function intOption(name: string, value: string | undefined, min: number, fallback: number): number;
export function intOption(name: string, value: string | undefined, min: number, fallback?: undefined): number | undefined;
export function intOption(name: string, value: string | undefined, min: number, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UserError(`--${name}: expected a whole number ≥ ${min}, got '${value}'`);
  return n;
}

function numberOption(name: string, value: string, min: number, max = Infinity): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new UserError(`--${name}: expected a number from ${min}${max < Infinity ? ` to ${max}` : ''}, got '${value}'`);
  return n;
}

export function parseExtraBody(value: string | undefined): Record<string, unknown> | null {
  if (value === undefined) return null;
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch (e) {
    throw new UserError(`--extra-body: not valid JSON (${(e as Error).message}); pass an object such as '{"chat_template_kwargs": {"enable_thinking": false}}'`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UserError('--extra-body: expected a JSON object');
  return v as Record<string, unknown>;
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
}

/** The run id a command gets when none is given: the same command always resumes the same run. */
export function defaultRunId(casesPath: string, model: Model, protocol: ProtocolConfig, limit: number | undefined): string {
  const parts = [slug(basename(casesPath).replace(/\.jsonl?$/i, '')), slug(model.label)];
  const name = protocolName(protocol);
  if (name !== 'paper') parts.push(slug(name.replace(/^paper\+/, '')));
  if (protocol.budget !== 8) parts.push(`T${protocol.budget}`);
  if (limit !== undefined) parts.push(`n${limit}`);
  return parts.join('__');
}

export async function runCommand(o: RunCommandOptions, io: CommandIO): Promise<number> {
  const budget = o.budget === undefined ? 8 : parseBudget(o.budget);
  const history = parseHistoryPolicy(o.history ?? 'full');
  const variant = parseVariant(o.variant ?? 'baseline');
  const concurrency = intOption('concurrency', o.concurrency, 1, 4);
  const limit = intOption('limit', o.limit, 1);
  const maxConsecutiveFailures = intOption('max-consecutive-failures', o.maxConsecutiveFailures, 0, 3);
  const extraBody = parseExtraBody(o.extraBody);
  const specParams = parseSpec(o.model).params;

  // Decoding: greedy unless told otherwise; a setting in the spec itself is left to the spec.
  let temperature: number | null = 0;
  if (o.temperature !== undefined) temperature = o.temperature === 'omit' ? null : numberOption('temperature', o.temperature, 0, 2);
  const seed = o.seed === undefined ? null : intOption('seed', o.seed, 0)!;
  const modelOptions: ModelOptions = { concurrency };
  if (o.timeout !== undefined) modelOptions.timeout = numberOption('timeout', o.timeout, 0.001) * 1000;
  if (o.retries !== undefined) modelOptions.maxRetries = intOption('retries', o.retries, 0);
  if (o.rpm !== undefined) modelOptions.rpm = numberOption('rpm', o.rpm, 1);
  if (o.apiKeyEnv !== undefined) modelOptions.apiKeyEnv = o.apiKeyEnv;
  if (extraBody) modelOptions.extraBody = extraBody;
  if (o.label !== undefined) modelOptions.label = o.label;
  modelOptions.temperature = temperature;
  if (seed !== null) modelOptions.seed = seed;

  const protocol: ProtocolConfig = {
    budget,
    history,
    variant,
    temperature: specParams.temperature !== undefined ? null : temperature,
    seed: specParams.seed !== undefined ? null : seed,
    messagePolicy: 'verbatim',
    banProvider: null,
  };

  const loaded = await loadCaseSet(o.cases, o.format ? { format: parseFormat(o.format) } : {});
  if (loaded.unsupported.length) io.err.write(`note: ${loaded.unsupported.length} rows of ${o.cases} have structures without a family and are not run\n`);
  const cases = limit !== undefined ? loaded.cases.slice(0, limit) : loaded.cases;
  if (!cases.length) throw new UserError(`${o.cases}: no runnable cases`);
  const model = await createModel(o.model, modelOptions);
  const simulated = model.capabilities.simulated;
  const runId = o.runId ?? defaultRunId(o.cases, model, protocol, limit);
  const store = openStore(o.store);

  const ac = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) {
      io.err.write('\nrevloop: second interrupt, exiting now (the store is consistent; resume with the same command)\n');
      process.exit(130);
    }
    io.err.write('\nrevloop: stopping: in-flight calls are abandoned, nothing half-written is kept (Ctrl-C again to quit at once)\n');
    ac.abort();
  };
  if (io.signal) io.signal.addEventListener('abort', () => ac.abort(), { once: true });
  else process.on('SIGINT', onSigint);

  const reporter = createProgressReporter(io.err, { tty: io.err.isTTY === true, simulated });
  const prior = store.getRun(runId);
  io.out.write(
    `run '${runId}' in ${o.store}: ${prior ? `resuming (${prior.summary.complete} of ${prior.summary.cases} trajectories already complete)` : 'new'}\n` +
      `  cases: ${o.cases} (${cases.length}${limit !== undefined ? ` of ${loaded.cases.length}` : ''}, ${loaded.format}) · model: ${model.label}` +
      ` · protocol: ${protocolName(protocol)}, budget ${budget} · concurrency ${concurrency}\n` +
      (simulated ? '  SIMULATED controller: every number from this run describes a simulation, not a language model.\n' : ''),
  );

  let result: RunResult;
  try {
    result = await executeRun({
      store,
      runId,
      cases,
      caseSet: { format: loaded.format, total: loaded.cases.length, limit: limit ?? null, fileSha256: loaded.manifest.file_sha256, manifest: loaded.manifest, path: o.cases },
      model,
      protocol,
      resolveFamily: getFamily,
      extraBody,
      concurrency,
      signal: ac.signal,
      maxConsecutiveFailures,
      sessionOptions: { timeout_s: o.timeout ?? null, retries: o.retries ?? null, rpm: o.rpm ?? null, api_key_env: o.apiKeyEnv ?? null, max_consecutive_failures: maxConsecutiveFailures },
      onProgress: (p) => reporter.update(p),
    });
  } finally {
    reporter.finish();
    process.off('SIGINT', onSigint);
    await model.close?.();
    store.close();
  }

  const p = result.progress;
  const finished = p.skipped + p.done;
  const tag = simulated ? ' [SIMULATED]' : '';
  const again = `revloop run --cases ${o.cases} --model ${o.model} --store ${o.store} --run-id ${runId}`;
  if (result.stopped) {
    io.out.write(`${result.stopped.reason === 'interrupted' ? 'interrupted' : 'stopped'}: ${result.stopped.message}; ${finished} of ${p.total} trajectories finished${tag}\n`);
    io.out.write(`the store is consistent; resume with the same command:\n  ${again}\n`);
    return result.stopped.reason === 'interrupted' ? 130 : 3;
  }
  const store2 = openStore(o.store, { readonly: true });
  const summary = store2.getRun(runId)!.summary;
  store2.close();
  io.out.write(
    `finished${tag}: ${summary.complete + summary.incomplete}/${summary.cases} trajectories · ${summary.successes} joint successes (${((100 * summary.successes) / summary.cases).toFixed(1)}%)` +
      ` · ${summary.incomplete} protocol-incomplete · ${summary.rounds} rounds · ${summary.failedAttempts} failed provider attempts\n`,
  );
  if (summary.incomplete) io.out.write(`${summary.incomplete} trajectories are protocol-incomplete (provider failures); run the same command again to retry them:\n  ${again}\n`);
  io.out.write(`next: revloop audit --store ${o.store} --run ${runId} · revloop export --store ${o.store} --run ${runId} --format paper -o ${runId}.jsonl · revloop analyze --store ${o.store} ${runId}\n`);
  return 0;
}
