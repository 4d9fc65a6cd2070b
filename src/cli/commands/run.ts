// `revloop run`: plan and run (or resume) the closed loop over a case set. Parses flags into
// app/run.ts's typed options, shows progress, stops cleanly on Ctrl-C and says what to do next.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { markedName } from '../../core/simulated.ts';
import {
  addModelOptions,
  budgetFlag,
  collect,
  banFlag,
  historyFlag,
  modelOptionsFromFlags,
  RECONNECT_HELP,
  sessionOptionsFromFlags,
  STORE_HELP,
  storeFlag,
  variantFlag,
  wholeNumber,
  type ModelFlags,
} from '../flags.ts';
import { commandLine } from '../invocation.ts';
import { headLine } from '../heads.ts';
import { inputPath } from '../stdio.ts';
import { redactLocation } from '../../store/store.ts';
import { trajectoryProgress } from '../progress.ts';
import { reportIncomplete, reportStopped } from '../run-outcome.ts';
import { interruptible } from '../signals.ts';

interface RunFlags extends ModelFlags {
  cases: string;
  model: string;
  store?: string;
  runId?: string;
  workers?: string;
  leaseSeconds?: string;
  reconnectSeconds?: string;
  budget?: string;
  history?: string;
  harness?: string;
  ban?: string;
  variant?: string;
  concurrency?: string;
  limit?: string;
  format?: string;
  maxConsecutiveFailures?: string;
  plugin?: string[];
  ifevalMode?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('run')
    .summary('run (or resume) the closed loop over a case set, recording every step in the store')
    .description(
      'Plans a run (immutable: cases, model, protocol, prompt and verifier fingerprints, all hashed) and runs it: ' +
        'draft, verify, feed back, revise, until the first joint success or after revision T. ' +
        'Repeating the command resumes: finished trajectories are skipped, the others continue from their ' +
        'last accepted draft. A different plan under an existing run id is refused. Ctrl-C stops cleanly. ' +
        'With a PostgreSQL store, `--workers 0` only plans the run, for `revloop worker` processes on any machine ' +
        '(docs/workers.md). See docs/running.md.',
    )
    .requiredOption('--cases <file>', "case file (paper, COLLIE, IFEval or native JSON Lines; '-' = standard input)")
    .requiredOption('--model <spec>', 'openai:<model>, openai-compatible:<url>#<model>, vllm:<url>#<model>, gguf:<path>, sim:<profile>')
    .option('--store <location>', STORE_HELP)
    .option('--run-id <id>', 'run id (default: <cases>__<model label>[__<protocol>])')
    .option('--budget <T>', 'revisions after the first draft (at most T+1 generations)', '8')
    .option('--history <policy>', 'full | last:K | reset', 'full')
    .option(
      '--harness <name>',
      "verbatim (the paper's) | abstract | drop | reset-on-recurrence | revloop-default (docs/revise.md); recorded in the plan",
      'verbatim',
    )
    .option('--ban <what>', "failed-drafts: ban earlier failed drafts at decoding (gguf:, vllm:, sim:) | none (default: the harness's own)")
    .option('--variant <name>', 'prompt wording: baseline | structured | concise', 'baseline')
    .option('--concurrency <n>', 'trajectories in flight at once', '4')
    .option('--limit <n>', 'only the first n cases')
    .option('--format <name>', 'case format: paper-exact, paper-structured, collie, native, ifeval (default: detect)')
    .option('--ifeval-mode <mode>', 'IFEval cases: joint success from the strict or the loose follow list', 'strict')
    .option('--max-consecutive-failures <n>', 'stop after n protocol-incomplete trajectories in a row (0 = never)', '3')
    .option('--plugin <module>', 'load a module that registers more families (repeatable)', collect, [])
    .option(
      '--workers <n>',
      '0: plan the run (or check its plan and reopen protocol-incomplete trajectories) and run nothing; 1: run it here',
      '1',
    )
    .option('--lease-seconds <s>', 'PostgreSQL: how long a claim on a trajectory lasts without renewal', '60')
    .option('--reconnect-seconds <s>', `PostgreSQL: ${RECONNECT_HELP}`, '300');
  addModelOptions(cmd).action(async (flags: RunFlags) => {
    const { tuneV8ForBatch } = await import('../jit.ts');
    tuneV8ForBatch();
    process.exitCode = await runAction(flags);
  });
}

/** Flags a resumed session must repeat, in help order, with the defaults they are left out at. */
const RESUME_FLAGS: ReadonlyArray<[keyof RunFlags, string, string | undefined]> = [
  ['format', '--format', undefined],
  ['limit', '--limit', undefined],
  ['budget', '--budget', '8'],
  ['history', '--history', 'full'],
  ['harness', '--harness', 'verbatim'],
  ['ban', '--ban', undefined],
  ['variant', '--variant', 'baseline'],
  ['extraBody', '--extra-body', undefined],
  ['temperature', '--temperature', undefined],
  ['seed', '--seed', undefined],
  ['label', '--label', undefined],
  ['apiKeyEnv', '--api-key-env', undefined],
  ['timeout', '--timeout', undefined],
  ['retries', '--retries', undefined],
  ['rpm', '--rpm', undefined],
  ['modelConcurrency', '--model-concurrency', undefined],
  ['concurrency', '--concurrency', '4'],
  ['maxConsecutiveFailures', '--max-consecutive-failures', '3'],
  ['ifevalMode', '--ifeval-mode', 'strict'],
  ['leaseSeconds', '--lease-seconds', '60'],
  ['reconnectSeconds', '--reconnect-seconds', '300'],
];

/**
 * The command that resumes a run: every option given that shapes the plan (limit, budget, history,
 * variant, decoding, label, plugins) or reaches the provider (key variable, timeouts), shell-quoted,
 * so that pasting it resumes instead of being refused as a different plan.
 */
export function resumeCommand(o: RunFlags, runId: string, env: NodeJS.ProcessEnv = process.env): string {
  const words = [
    'run',
    '--cases',
    o.cases,
    '--model',
    o.model,
    '--store',
    redactLocation(storeFlag(o.store, undefined, env)),
    '--run-id',
    runId,
  ];
  for (const [key, flag, fallback] of RESUME_FLAGS) {
    const value = o[key];
    if (typeof value === 'string' && value !== fallback) words.push(flag, value);
  }
  for (const plugin of o.plugin ?? []) words.push('--plugin', plugin);
  return commandLine(words, env);
}

async function runAction(flags: RunFlags, io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const { loadFamilyPlugins } = await import('../../core/verify/plugins.ts');
  await loadFamilyPlugins(flags.plugin ?? []);
  const { parseFormat } = await import('../../core/cases/load.ts');
  const maxConsecutiveFailures = wholeNumber('--max-consecutive-failures', flags.maxConsecutiveFailures, { min: 0 }) ?? 3;
  const ifevalMode = flags.ifevalMode ?? 'strict';
  if (ifevalMode !== 'strict' && ifevalMode !== 'loose')
    throw new UsageError('--ifeval-mode', `--ifeval-mode: expected strict or loose, got '${ifevalMode}'`);
  const options = {
    ifevalMode: ifevalMode as 'strict' | 'loose',
    cases: await inputPath(flags.cases, '--cases'),
    casesName: flags.cases,
    format: flags.format ? parseFormat(flags.format) : undefined,
    limit: wholeNumber('--limit', flags.limit, { min: 1 }),
    model: flags.model,
    modelOptions: modelOptionsFromFlags(flags),
    store: storeFlag(flags.store),
    runId: flags.runId,
    workers: workersFlag(flags.workers),
    leaseSeconds: wholeNumber('--lease-seconds', flags.leaseSeconds, { min: 1, max: 86_400 }),
    reconnectSeconds: wholeNumber('--reconnect-seconds', flags.reconnectSeconds, { min: 0, max: 86_400 }),
    budget: budgetFlag(flags.budget, 8),
    history: historyFlag(flags.history),
    harness: flags.harness,
    ban: banFlag(flags.ban),
    variant: variantFlag(flags.variant),
    concurrency: wholeNumber('--concurrency', flags.concurrency, { min: 1 }) ?? 4,
    maxConsecutiveFailures,
    sessionOptions: sessionOptionsFromFlags(flags, maxConsecutiveFailures),
  };
  const shownStore = redactLocation(options.store);
  const { runCases } = await import('../../app/run.ts');
  let progress: ReturnType<typeof trajectoryProgress> | undefined;
  const outcome = await interruptible(io.err, 'in-flight calls are abandoned, nothing half-written is kept', (signal) =>
    runCases(
      { ...options, signal },
      {
        onNote: (text) => io.err.write(`note: ${text}\n`),
        onStart: (s) => {
          progress = trajectoryProgress(io.err, { simulated: s.simulated });
          io.out.write(
            `run '${s.runId}' in ${shownStore}: ${s.resumed ? `resuming (${s.alreadyComplete} of ${s.cases} trajectories already complete)` : 'new'}\n` +
              `  cases: ${flags.cases} (${s.cases}${options.limit !== undefined ? ` of ${s.casesInFile}` : ''}, ${s.format}) · model: ${markedName(s.model, s.simulated)}` +
              ` · protocol: ${s.protocol}, budget ${s.budget} · concurrency ${s.concurrency}\n` +
              (s.simulated ? '  SIMULATED controller: every number from this run describes a simulation, not a language model.\n' : ''),
          );
        },
        onProgress: (p) => progress?.update(p),
      },
    ),
  ).finally(() => progress?.finish());

  const { result, summary, runId, simulated } = outcome;
  const p = result.progress;
  const again = resumeCommand(flags, runId);
  const tag = simulated ? ' [SIMULATED]' : '';
  const db = ['--store', shownStore];
  if (outcome.planOnly) {
    io.out.write(
      `planned${tag}: run '${runId}' in ${shownStore}, ${summary.cases} trajectories (${summary.complete} complete, ${summary.incomplete} protocol-incomplete, ${summary.pending} pending` +
        `${outcome.reopened ? `; ${outcome.reopened} protocol-incomplete reopened` : ''}); nothing was run\n` +
        `next: ${commandLine(['worker', ...db, '--run', runId])} on any number of machines (docs/workers.md) · ${commandLine(['runs', ...db])}\n`,
    );
    if (outcome.head) io.out.write(`${headLine(options.store, runId, outcome.head)}\n`);
    return 0;
  }
  if (result.stopped) return reportStopped(io.out, result.stopped, p, tag, again);
  const finished = summary.complete + summary.incomplete;
  io.out.write(
    `finished${tag}: ${finished}/${summary.cases} trajectories · ${summary.successes} joint successes (${((100 * summary.successes) / summary.cases).toFixed(1)}%)` +
      ` · ${summary.incomplete} protocol-incomplete · ${summary.rounds} rounds · ${summary.failedAttempts} failed provider attempts\n`,
  );
  reportIncomplete(io.out, summary.incomplete, again);
  // The finished run's head, to keep outside the store: `audit --expect-head` finds a log shortened since.
  if (outcome.head) io.out.write(`${headLine(options.store, runId, outcome.head)}\n`);
  io.out.write(
    `next: ${commandLine(['audit', ...db, '--run', runId])} · ${commandLine(['export', ...db, '--run', runId, '--format', 'paper', '-o', `${runId}.jsonl`])} · ${commandLine(['analyze', ...db, runId])}\n`,
  );
  return 0;
}

/** `--workers`: 0 plans only, 1 runs here; more local workers are `revloop worker` processes. */
function workersFlag(value: string | undefined): 0 | 1 {
  const n = wholeNumber('--workers', value, { min: 0 }) ?? 1;
  if (n > 1)
    throw new UsageError(
      '--workers',
      `--workers ${n}: this process is one worker; plan with --workers 0 and start \`revloop worker\` processes (as many as you like, on any machine; docs/workers.md)`,
    );
  return n as 0 | 1;
}
