// `revloop worker`: claim and run trajectories of planned runs in a PostgreSQL store, one of any
// number of workers on any machines (app/worker.ts, docs/workers.md).
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { redactLocation } from '../../store/store.ts';
import { modelFlagOptions, modelOptionsFromFlags, sessionOptionsFromFlags, type ModelFlags } from '../flags.ts';
import {
  concurrencyOption,
  leaseSecondsOption,
  maxConsecutiveFailuresOption,
  pluginOption,
  reconnectSecondsOption,
  requireStore,
  runOption,
  storeOption,
} from '../options.ts';
import { RUN_DEFAULTS } from '../../app/defaults.ts';
import { nextCommands } from '../invocation.ts';
import { lineProgress } from '../progress.ts';
import { fitted } from '../terminal.ts';
import { stoppedExitCode, stoppedWord } from '../run-outcome.ts';
import { interruptible } from '../signals.ts';

interface WorkerFlags extends Pick<ModelFlags, 'timeout' | 'retries' | 'modelConcurrency' | 'rpm' | 'apiKeyEnv'> {
  store?: string;
  run?: string;
  untilDone?: boolean;
  oneRunAtATime?: boolean;
  concurrency: number;
  leaseSeconds: number;
  maxConsecutiveFailures: number;
  reconnectSeconds: number;
  plugin?: string[];
  maxResponseBytes?: string;
}

/** The model flags a worker takes: how it reaches the provider (the model and its decoding come from the run's plan). */
const WORKER_MODEL_FLAGS = new Set(['--timeout', '--retries', '--model-concurrency', '--rpm', '--api-key-env', '--max-response-bytes']);

export function register(program: Command): void {
  const cmd = program
    .command('worker')
    .summary('claim and run trajectories of planned runs in a PostgreSQL store (one of many workers)')
    .description(
      'Claims pending trajectories under leases (FOR UPDATE SKIP LOCKED; renewed by a heartbeat) and runs them through the engine; ' +
        'any number of workers on any machines share a run. Every round is appended in the transaction that checks the lease, so ' +
        'a worker whose lease was taken over can never write again (its late write is refused and counted). A killed worker ' +
        'loses only its in-flight generations: its trajectories are claimed again as soon as its database session closes or its lease expires, ' +
        "and continue from their last committed round. The model, protocol and families come from the run's plan. " +
        'Plan runs with `revloop run … --store postgres://… --workers 0`. With --run the worker exits 0 once that run has no pending trajectory. ' +
        'See docs/workers.md.',
    )
    .addOption(storeOption({ postgresOnly: true }))
    .addOption(runOption('work on this run only, and exit once it has no pending trajectory (default: every run, until stopped)'))
    .option(
      '--until-done',
      'without --run: exit once no planned run has a pending trajectory (plan the whole sweep first); a run this worker cannot run is skipped, and the exit code is 2 if no worker is running the rest of it',
    )
    .option(
      '--one-run-at-a-time',
      "without --run: claim from one run at a time and close its model before loading the next run's (a sweep of GGUF models that do not fit in memory twice)",
    )
    .addOption(concurrencyOption(RUN_DEFAULTS.concurrency))
    .addOption(leaseSecondsOption('how long a claim lasts without renewal (the heartbeat renews it every third of that)'))
    .addOption(maxConsecutiveFailuresOption())
    .addOption(reconnectSecondsOption())
    .addOption(pluginOption('load a module that registers more families (repeatable; as the run was planned)'));
  for (const option of modelFlagOptions().filter((o) => WORKER_MODEL_FLAGS.has(o.long!))) {
    if (option.long === '--model-concurrency') option.description = 'HTTP requests in flight per model (default: --concurrency)';
    if (option.long === '--rpm') option.description = 'at most this many HTTP attempts per minute (per worker)';
    cmd.addOption(option);
  }
  cmd.action(async (flags: WorkerFlags) => {
    const { tuneV8ForBatch } = await import('../jit.ts');
    tuneV8ForBatch();
    process.exitCode = await workerAction(flags);
  });
}

async function workerAction(flags: WorkerFlags, io = { out: fitted(process.stdout), err: fitted(process.stderr) }): Promise<number> {
  const { loadFamilyPlugins } = await import('../../core/verify/plugins.ts');
  await loadFamilyPlugins(flags.plugin);
  const store = requireStore(flags.store, 'worker', { postgresOnly: true });
  const shown = redactLocation(store);
  const { concurrency, leaseSeconds, maxConsecutiveFailures, reconnectSeconds } = flags;
  const modelOptions = modelOptionsFromFlags(flags);
  if (flags.oneRunAtATime && flags.run !== undefined)
    throw new UsageError('worker: --one-run-at-a-time is for a worker on every run; a worker with --run has one run already', {
      option: '--one-run-at-a-time',
    });
  if (!/^postgres(ql)?:\/\//i.test(store))
    throw new UsageError(
      `worker: --store must be a PostgreSQL URL (postgres://user@host:port/db), got '${shown}'; a SQLite store has one writer per run (use \`revloop run\`)`,
      { option: '--store' },
    );
  const { unattendedRuns, workCommand } = await import('../../app/worker.ts');
  let progress: ReturnType<typeof lineProgress> | undefined;
  let simulated = false;
  const outcome = await interruptible(io.err, 'in-flight generations are abandoned and their leases given back', (signal) =>
    workCommand(
      {
        store,
        runId: flags.run,
        untilDone: flags.untilDone,
        oneRunAtATime: flags.oneRunAtATime,
        concurrency,
        leaseSeconds,
        modelOptions,
        maxConsecutiveFailures,
        reconnectSeconds,
        sessionOptions: sessionOptionsFromFlags(flags, maxConsecutiveFailures),
        signal,
      },
      {
        onStart: (s) =>
          io.out.write(
            `worker #${s.worker} on ${shown}: ${flags.run ? `run '${flags.run}'` : `every run with pending trajectories${flags.oneRunAtATime ? ', one at a time' : ''}${flags.untilDone ? ', until none has any' : ''}`} · concurrency ${concurrency} · lease ${leaseSeconds} s\n`,
          ),
        onRun: (r) => {
          simulated ||= r.simulated;
          io.out.write(
            `  run '${r.runId}': model ${r.model}${r.simulated ? ' (SIMULATED controller: its numbers describe a simulation)' : ''}\n`,
          );
          progress ??= lineProgress(process.stderr, 'worker', { simulated: r.simulated, unit: ' traj/s' });
        },
        onProgress: (p) =>
          progress?.update(
            p.done,
            Math.max(p.claimed, p.done),
            `${p.successes} successes · ${p.rounds} rounds · ${p.inFlight} in flight${p.lost ? ` · ${p.lost} leases lost` : ''}`,
          ),
        onNote: (t) => io.err.write(`\nrevloop worker: ${t}\n`),
        onSkip: (s) =>
          io.err.write(`\nrevloop worker: run '${s.runId}' is skipped: this worker cannot run it (other workers may):\n  ${s.reason}\n`),
      },
    ),
  ).finally(() => progress?.finish());
  const p = outcome.progress;
  const tag = simulated ? ' [SIMULATED]' : '';
  io.out.write(
    `worker #${outcome.worker}${tag}: ${p.claimed} claimed · ${p.done} finished here (${p.successes} joint successes, ${p.incomplete} protocol-incomplete) · ${p.rounds} rounds` +
      ` · ${p.lost} leases lost to other workers · ${outcome.rejectedWrites} late writes refused\n`,
  );
  // Runs skipped because this worker cannot run them: said at every exit.
  for (const s of outcome.skipped) {
    const held = s.leased ? `, ${s.leased} of them being run by other workers` : '';
    io.out.write(
      `run '${s.runId}' skipped: this worker cannot run it (${s.pending === null ? 'its pending trajectories are unknown' : `${s.pending} trajectories still pending${held}`})\n`,
    );
  }
  const unattended = unattendedRuns(outcome.skipped);
  if (outcome.stopped) {
    io.out.write(`${stoppedWord(outcome.stopped)}: ${outcome.stopped.message}; its trajectories are free for other workers\n`);
    return stoppedExitCode(outcome.stopped);
  }
  if (outcome.summary) {
    const s = outcome.summary;
    io.out.write(
      `run '${s.runId}' has no pending trajectory: ${s.complete + s.incomplete}/${s.cases} finished · ${s.successes} joint successes · ${s.incomplete} protocol-incomplete\n`,
    );
    if (s.incomplete)
      io.out.write(
        'to retry the protocol-incomplete ones, plan the run again (the same `revloop run` command with --workers 0) and start workers\n',
      );
    io.out.write(
      nextCommands([
        ['audit', '--store', shown, '--run', s.runId],
        ['export', '--store', shown, '--run', s.runId, '-o', `${s.runId}.jsonl`],
      ]),
    );
  } else if (flags.untilDone) {
    io.out.write(
      `no planned run in ${shown} ${outcome.skipped.length ? 'that this worker can run ' : ''}has a pending trajectory\n` +
        nextCommands([['runs', '--store', shown], 'and for each run:', ['audit', '--store', shown, '--run', 'ID']]),
    );
  }
  if (unattended.length) {
    io.out.write(
      `not done: ${unattended.length === 1 ? `run '${unattended[0]}' has` : `runs ${unattended.map((r) => `'${r}'`).join(', ')} have`} pending trajectories ` +
        'that no worker is running and this one cannot run; start workers with the revloop version, --plugin modules and models that planned them\n',
    );
    return 2;
  }
  return 0;
}
