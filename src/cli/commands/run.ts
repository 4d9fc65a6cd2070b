// `revloop run`: plan and run (or resume) the closed loop over a case set. Parses flags into
// app/run.ts's typed options, shows progress, stops cleanly on Ctrl-C and says what to do next.
import { Command, Option } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { markedName } from '../../core/simulated.ts';
import { addModelOptions, banFlag, historyFlag, modelOptionsFromFlags, sessionOptionsFromFlags, type ModelFlags } from '../flags.ts';
import {
  addOptionWithAliases,
  budgetOption,
  casesOption,
  concurrencyOption,
  ifevalModeOption,
  inputFormatOption,
  leaseSecondsOption,
  limitOption,
  maxConsecutiveFailuresOption,
  modelOption,
  pluginOption,
  reconnectSecondsOption,
  runOption,
  storeOption,
  variantOption,
  wholeParser,
} from '../options.ts';
import { RUN_DEFAULTS } from '../../app/defaults.ts';
import type { RunCasesOptions } from '../../app/run.ts';
import { formatHistoryWindow } from '../../remedy/history-window.ts';
import { commandLine, nextCommands } from '../invocation.ts';
import { headLine } from '../heads.ts';
import { inputPath } from '../stdio.ts';
import { redactLocation } from '../../store/store.ts';
import { trajectoryProgress } from '../progress.ts';
import { fitted } from '../terminal.ts';
import { reportIncomplete, reportStopped } from '../run-outcome.ts';
import { interruptible } from '../signals.ts';

/**
 * The flags as commander parses them: those with runCases' own name and type are RunCasesOptions';
 * the others are the words typed, turned into options by runAction.
 */
interface RunFlags
  extends
    ModelFlags,
    Pick<
      RunCasesOptions,
      'cases' | 'model' | 'leaseSeconds' | 'reconnectSeconds' | 'budget' | 'harness' | 'concurrency' | 'limit' | 'maxConsecutiveFailures'
    >,
    Partial<Pick<RunCasesOptions, 'store'>> {
  /** `--run`: RunCasesOptions.runId. */
  run?: string;
  workers?: number;
  history?: string;
  ban?: string;
  variant?: string;
  inputFormat?: string;
  plugin?: string[];
  ifevalMode?: string;
}

/** The options of `revloop run`, each with its default: the resume command leaves those out. */
function runOptions(): Option[] {
  return [
    casesOption(),
    modelOption({ required: true }),
    storeOption(),
    runOption('run id (default: <cases>__<model label>[__<protocol>]; the same command resumes it)'),
    budgetOption(RUN_DEFAULTS.budget),
    new Option('--history <policy>', 'full | last:K | reset')
      .argParser((v) => (historyFlag(v), v.trim()))
      .default(formatHistoryWindow(RUN_DEFAULTS.history)),
    new Option(
      '--harness <name>',
      "verbatim (the paper's) | abstract | drop | reset-on-recurrence | revloop-default (docs/revise.md); recorded in the plan",
    ).default(RUN_DEFAULTS.harness),
    new Option(
      '--ban <what>',
      'failed-drafts: ban earlier failed drafts as token sequences at decoding (gguf:, vllm:, sim:) | ' +
        'complete-repeats: ban them as complete answers, extensions allowed (gguf:, sim:) | ' +
        "none (default: the harness's own)",
    ).choices(['failed-drafts', 'complete-repeats', 'none']),
    variantOption(),
    concurrencyOption(RUN_DEFAULTS.concurrency),
    limitOption(),
    inputFormatOption(),
    ifevalModeOption(),
    maxConsecutiveFailuresOption(),
    pluginOption(),
    new Option(
      '--workers <n>',
      '0: plan the run (or check its plan and reopen protocol-incomplete trajectories) and run nothing; 1: run it here',
    )
      .argParser(workersFlag)
      .default(RUN_DEFAULTS.workers),
    leaseSecondsOption('PostgreSQL: how long a claim on a trajectory lasts without renewal'),
    reconnectSecondsOption('PostgreSQL: '),
  ];
}

/** Old spellings of run's options, kept for one release. */
const RUN_ALIASES: Record<string, string[]> = { '--run': ['--run-id'], '--input-format': ['--format'] };

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
    );
  for (const option of runOptions()) addOptionWithAliases(cmd, option, ...(RUN_ALIASES[option.long!] ?? []));
  addModelOptions(cmd).action(async (flags: RunFlags) => {
    const { tuneV8ForBatch } = await import('../jit.ts');
    tuneV8ForBatch();
    process.exitCode = await runAction(flags);
  });
}

/** Options a resumed session must repeat, in help order (the plan's, then the provider's and the session's). */
const RESUME_FLAGS: ReadonlyArray<keyof RunFlags> = [
  'inputFormat',
  'limit',
  'budget',
  'history',
  'harness',
  'ban',
  'variant',
  'extraBody',
  'temperature',
  'seed',
  'label',
  'apiKeyEnv',
  'timeout',
  'retries',
  'rpm',
  'modelConcurrency',
  'concurrency',
  'maxConsecutiveFailures',
  'ifevalMode',
  'leaseSeconds',
  'reconnectSeconds',
];

/**
 * The command that resumes a run: every option given that shapes the plan (limit, budget, history,
 * variant, decoding, label, plugins) or reaches the provider (key variable, timeouts), shell-quoted,
 * so that pasting it resumes instead of being refused as a different plan. Options at their
 * defaults (the options' own, runOptions) are left out.
 */
export function resumeCommand(o: Partial<Record<keyof RunFlags, unknown>>, runId: string, env: NodeJS.ProcessEnv = process.env): string {
  const options = [...runOptions(), ...addModelOptions(new Command('run')).options];
  const words = [
    'run',
    '--cases',
    String(o.cases),
    '--model',
    String(o.model),
    '--store',
    redactLocation(String(o.store ?? RUN_DEFAULTS.store)),
    '--run',
    runId,
  ];
  for (const key of RESUME_FLAGS) {
    const value = o[key];
    const option = options.find((x) => x.attributeName() === key);
    if (value === undefined || value === null || !option) continue;
    if (option.defaultValue !== undefined && String(value) === String(option.defaultValue)) continue;
    words.push(option.long!, String(value));
  }
  for (const plugin of (o.plugin as string[] | undefined) ?? []) words.push('--plugin', plugin);
  return commandLine(words, env);
}

async function runAction(flags: RunFlags, io = { out: fitted(process.stdout), err: fitted(process.stderr) }): Promise<number> {
  const { loadFamilyPlugins } = await import('../../core/verify/plugins.ts');
  await loadFamilyPlugins(flags.plugin ?? []);
  const maxConsecutiveFailures = flags.maxConsecutiveFailures ?? RUN_DEFAULTS.maxConsecutiveFailures;
  const options = {
    ifevalMode: (flags.ifevalMode ?? RUN_DEFAULTS.ifevalMode) as 'strict' | 'loose',
    cases: await inputPath(flags.cases, '--cases'),
    casesName: flags.cases,
    format: flags.inputFormat as import('../../core/cases/types.ts').CaseFormat | undefined,
    limit: flags.limit,
    model: flags.model,
    modelOptions: modelOptionsFromFlags(flags),
    store: flags.store ?? RUN_DEFAULTS.store,
    runId: flags.run,
    workers: (flags.workers ?? RUN_DEFAULTS.workers) as 0 | 1,
    leaseSeconds: flags.leaseSeconds,
    reconnectSeconds: flags.reconnectSeconds,
    budget: flags.budget ?? RUN_DEFAULTS.budget,
    history: historyFlag(flags.history),
    harness: flags.harness,
    ban: banFlag(flags.ban),
    variant: (flags.variant ?? RUN_DEFAULTS.variant) as import('../../core/verify/types.ts').PromptVariant,
    concurrency: flags.concurrency ?? RUN_DEFAULTS.concurrency,
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
          progress = trajectoryProgress(process.stderr, { simulated: s.simulated });
          io.out.write(
            `run '${s.runId}' in ${shownStore}: ${s.resumed ? `resuming (${s.alreadyComplete} of ${s.cases} trajectories already complete)` : 'new'}\n` +
              `  cases: ${flags.cases} (${s.cases}${s.cases !== s.casesInFile ? ` of ${s.casesInFile}` : ''}, ${s.format}) · model: ${markedName(s.model, s.simulated)}` +
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
        nextCommands(
          [
            ['worker', ...db, '--run', runId],
            ['runs', ...db],
          ],
          'next (workers on any number of machines; docs/workers.md):',
        ),
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
    nextCommands([
      ['audit', ...db, '--run', runId],
      ['export', ...db, '--run', runId, '-o', `${runId}.jsonl`],
      ['analyze', ...db, runId],
    ]),
  );
  return 0;
}

/** `--workers`: 0 plans only, 1 runs here; more local workers are `revloop worker` processes. */
function workersFlag(value: string): 0 | 1 {
  const n = wholeParser('--workers', { min: 0 })(value);
  if (n > 1)
    throw new UsageError(
      `--workers ${n}: this process is one worker; plan with --workers 0 and start \`revloop worker\` processes (as many as you like, on any machine; docs/workers.md)`,
      { option: '--workers' },
    );
  return n as 0 | 1;
}
