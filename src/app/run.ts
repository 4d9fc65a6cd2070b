// `revloop run`: load the cases, create the model, plan or resume the run in the store, show
// progress, stop cleanly on Ctrl-C, and say what to do next. The CLI module only parses options.
import { basename } from 'node:path';
import { loadCaseSet, parseFormat } from '../core/cases/index.ts';
import { createModel, parseSpec, type ModelOptions } from '../models/index.ts';
import { modelOptionsFromFlags, type ModelFlags } from '../cli/model-flags.ts';
import type { Model } from '../models/types.ts';
import { openStore } from '../store/store.ts';
import { UserError } from '../core/errors.ts';
import { getFamily } from '../core/verify/index.ts';
import { parseHistoryPolicy } from '../engine/history.ts';
import { createProgressReporter } from '../cli/progress/run-progress.ts';
import { parseBudget, parseVariant, protocolName, type ProtocolConfig } from '../engine/protocol.ts';
import { executeRun, type RunResult } from '../engine/run.ts';
import { slug } from '../core/util/slug.ts';

/** The flags of `revloop run`: the run's own, plus the shared model flags (src/models/cli-options.ts). */
export interface RunCommandOptions extends ModelFlags {
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
  maxConsecutiveFailures?: string;
  plugin?: string[];
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

/** A word as a POSIX shell reads it back: quoted unless it holds only characters that need none. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Flags a resumed session must repeat, in help order, with the defaults they are left out at. */
const RESUME_FLAGS: ReadonlyArray<[keyof RunCommandOptions, string, string | undefined]> = [
  ['format', '--format', undefined],
  ['limit', '--limit', undefined],
  ['budget', '--budget', '8'],
  ['history', '--history', 'full'],
  ['variant', '--variant', 'baseline'],
  ['extraBody', '--extra-body', undefined],
  ['temperature', '--temperature', undefined],
  ['seed', '--seed', undefined],
  ['label', '--label', undefined],
  ['apiKeyEnv', '--api-key-env', undefined],
  ['timeout', '--timeout', undefined],
  ['retries', '--retries', undefined],
  ['rpm', '--rpm', undefined],
  ['concurrency', '--concurrency', '4'],
  ['maxConsecutiveFailures', '--max-consecutive-failures', '3'],
];

/**
 * The command that resumes a run: every option given that shapes the plan (limit, budget, history,
 * variant, decoding, label, plugins) or reaches the provider (key variable, timeouts), shell-quoted,
 * so that pasting it resumes instead of being refused as a different plan.
 */
export function resumeCommand(o: RunCommandOptions, runId: string): string {
  const words = ['revloop', 'run', '--cases', o.cases, '--model', o.model, '--store', o.store, '--run-id', runId];
  for (const [key, flag, fallback] of RESUME_FLAGS) {
    const value = o[key];
    if (typeof value === 'string' && value !== fallback) words.push(flag, value);
  }
  for (const plugin of o.plugin ?? []) words.push('--plugin', plugin);
  return words.map(shellQuote).join(' ');
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
  const specParams = parseSpec(o.model).params;

  // The model flags parse as for every command with --model; the run's concurrency is the model's.
  const modelOptions: ModelOptions = { ...modelOptionsFromFlags(o), concurrency };
  const extraBody = modelOptions.extraBody ?? null;
  // Decoding: greedy unless told otherwise; a setting in the spec itself is left to the spec.
  const temperature: number | null = modelOptions.temperature === undefined ? 0 : modelOptions.temperature;
  modelOptions.temperature = temperature;
  const seed = modelOptions.seed ?? null;

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
  if (loaded.unsupported.length)
    io.err.write(`note: ${loaded.unsupported.length} rows of ${o.cases} have structures without a family and are not run\n`);
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
  // Said once the plan is accepted (the first progress report), so a refused plan is never announced as a resume.
  let announced = false;
  const announce = () => {
    if (announced) return;
    announced = true;
    io.out.write(
      `run '${runId}' in ${o.store}: ${prior ? `resuming (${prior.summary.complete} of ${prior.summary.cases} trajectories already complete)` : 'new'}\n` +
        `  cases: ${o.cases} (${cases.length}${limit !== undefined ? ` of ${loaded.cases.length}` : ''}, ${loaded.format}) · model: ${model.label}` +
        ` · protocol: ${protocolName(protocol)}, budget ${budget} · concurrency ${concurrency}\n` +
        (simulated ? '  SIMULATED controller: every number from this run describes a simulation, not a language model.\n' : ''),
    );
  };

  let result: RunResult;
  try {
    result = await executeRun({
      store,
      runId,
      cases,
      caseSet: {
        format: loaded.format,
        total: loaded.cases.length,
        limit: limit ?? null,
        fileSha256: loaded.manifest.file_sha256,
        manifest: loaded.manifest,
        path: o.cases,
      },
      model,
      protocol,
      resolveFamily: getFamily,
      extraBody,
      concurrency,
      signal: ac.signal,
      maxConsecutiveFailures,
      sessionOptions: {
        timeout_s: o.timeout ?? null,
        retries: o.retries ?? null,
        rpm: o.rpm ?? null,
        api_key_env: o.apiKeyEnv ?? null,
        max_consecutive_failures: maxConsecutiveFailures,
      },
      onProgress: (p) => {
        announce();
        reporter.update(p);
      },
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
  const again = resumeCommand(o, runId);
  if (result.stopped) {
    io.out.write(
      `${result.stopped.reason === 'interrupted' ? 'interrupted' : 'stopped'}: ${result.stopped.message}; ${finished} of ${p.total} trajectories finished${tag}\n`,
    );
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
  if (summary.incomplete)
    io.out.write(
      `${summary.incomplete} trajectories are protocol-incomplete (provider failures); run the same command again to retry them:\n  ${again}\n`,
    );
  const [db, id] = [shellQuote(o.store), shellQuote(runId)];
  io.out.write(
    `next: revloop audit --store ${db} --run ${id} · revloop export --store ${db} --run ${id} --format paper -o ${shellQuote(`${runId}.jsonl`)} · revloop analyze --store ${db} ${id}\n`,
  );
  return 0;
}
