// `revloop experiment states|history|crossover|sysid|persist`: the controlled experiments
// (docs/experiments.md). Flags are parsed here into app/experiment.ts's typed options; progress,
// Ctrl-C, the resume command and the next steps are the same as `revloop run`'s.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { markedName } from '../../core/simulated.ts';
import { redactLocation } from '../../store/store.ts';
import {
  addModelOptions,
  budgetFlag,
  modelOptionsFromFlags,
  sessionOptionsFromFlags,
  STORE_HELP,
  storeFlag,
  wholeNumber,
  type ModelFlags,
} from '../flags.ts';
import { commandLine } from '../invocation.ts';
import { trajectoryProgress } from '../progress.ts';
import { reportIncomplete, reportStopped } from '../run-outcome.ts';
import { interruptible } from '../signals.ts';

interface CommonFlags extends ModelFlags {
  store?: string;
  model: string;
  runId: string;
  concurrency?: string;
  maxConsecutiveFailures?: string;
}

interface StatesFlags {
  store?: string;
  fromRun: string;
  for?: string;
  select?: string;
  maxStates?: string;
  output?: string;
  json?: boolean;
}

const io = { out: process.stdout, err: process.stderr };

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  const v = value ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new UsageError(flag, `${flag}: expected ${allowed.join(', ')}, got '${v}'`);
  return v as T;
}

/** `--errors -50,-20,…`: nonzero whole numbers, each once. */
export function errorsFlag(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((s) => s.trim());
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[+-]?\d+$/.test(p) || Number(p) === 0)
      throw new UsageError('--errors', `--errors: '${p}' is not a nonzero whole number (e.g. --errors -10,-5,5,10)`);
    const n = Number(p);
    if (out.includes(n)) throw new UsageError('--errors', `--errors: ${n} is listed twice`);
    out.push(n);
  }
  return out;
}

/** Flags every experiment that runs a model shares. */
function common(cmd: Command): Command {
  return addModelOptions(
    cmd
      .requiredOption(
        '--model <spec>',
        'the controller: openai:<model>, openai-compatible:<url>#<model>, vllm:<url>#<model>, gguf:<path>, sim:<profile>',
      )
      .option('--store <location>', STORE_HELP)
      .requiredOption('--run-id <id>', 'the experiment run (the same command resumes it)')
      .option('--concurrency <n>', 'trajectories in flight at once', '4')
      .option('--max-consecutive-failures <n>', 'stop after n protocol-incomplete trajectories in a row (0 = never)', '3'),
  );
}

function commonOptions(flags: CommonFlags) {
  const maxConsecutiveFailures = wholeNumber('--max-consecutive-failures', flags.maxConsecutiveFailures, { min: 0 }) ?? 3;
  return {
    store: storeFlag(flags.store),
    model: flags.model,
    modelOptions: modelOptionsFromFlags(flags),
    runId: flags.runId,
    concurrency: wholeNumber('--concurrency', flags.concurrency, { min: 1 }) ?? 4,
    maxConsecutiveFailures,
    sessionOptions: sessionOptionsFromFlags(flags, maxConsecutiveFailures),
  };
}

type Outcome = Awaited<ReturnType<typeof import('../../app/experiment.ts').runHistoryExperiment>>;
type Hooks = import('../../app/experiment.ts').ExperimentHooks;

/** Runs one experiment with progress and Ctrl-C, then says how it ended and what to do next. */
async function runWithProgress(store: string, work: (signal: AbortSignal, hooks: Hooks) => Promise<Outcome>): Promise<number> {
  const shown = redactLocation(store);
  let progress: ReturnType<typeof trajectoryProgress> | undefined;
  const again = commandLine(process.argv.slice(2));
  const outcome = await interruptible(io.err, 'in-flight calls are abandoned, nothing half-written is kept', (signal) =>
    work(signal, {
      onNote: (text) => io.err.write(`note: ${text}\n`),
      onStart: (s) => {
        progress = trajectoryProgress(io.err, { simulated: s.simulated });
        io.out.write(
          `experiment ${s.design} '${s.runId}' in ${shown}: ${s.resumed ? `resuming (${s.alreadyComplete} of ${s.trajectories} trajectories already complete)` : 'new'}\n` +
            `  ${s.states} states, ${s.trajectories} trajectories${s.selected !== s.trajectories ? ` (${s.selected} in this session)` : ''} · states SHA-256 ${s.statesSha256}\n` +
            `  model: ${markedName(s.model, s.simulated)} · last revision ${s.budget} · concurrency ${s.concurrency}\n` +
            (s.simulated
              ? '  SIMULATED controller: every number from this experiment describes a simulation, not a language model.\n'
              : ''),
        );
      },
      onProgress: (p) => progress?.update(p),
    }),
  ).finally(() => progress?.finish());
  const { result, summary, runId, simulated } = outcome;
  const tag = simulated ? ' [SIMULATED]' : '';
  const p = result.progress;
  if (result.stopped) return reportStopped(io.out, result.stopped, p, tag, again);
  const finished = summary.complete + summary.incomplete;
  io.out.write(
    `finished${tag}: ${finished}/${summary.cases} trajectories · ${summary.successes} joint successes · ${summary.incomplete} protocol-incomplete · ${summary.rounds} rounds (frozen ones included)\n`,
  );
  reportIncomplete(io.out, summary.incomplete, again);
  const db = ['--store', shown];
  io.out.write(
    `next: ${commandLine(['audit', ...db, '--run', runId])} · ${commandLine(['analyze', ...db, runId])} · ${commandLine(['report', ...db, '-o', 'report.html'])}\n`,
  );
  return 0;
}

export function register(program: Command): void {
  const experiment = program
    .command('experiment')
    .summary('controlled experiments: state selection, history interventions, crossover, system identification, extended budget')
    .description(
      "The paper's controlled experiments (docs/experiments.md), each a resumable, auditable run in the store whose trajectories " +
        'continue frozen prefixes of stored ones: matched-state history interventions (§3.10), fixed-draft crossover (§3.12), ' +
        'system identification (§3.11) and extended budgets (§3.13). Repeating a command resumes it; a changed plan is refused.',
    );

  experiment
    .command('states')
    .description(
      'select the states an experiment starts from and write them as JSON Lines (their SHA-256 freezes the selection): ' +
        'recurrence events for history, budget-end failures for persist, first drafts for crossover',
    )
    .option('--store <location>', STORE_HELP)
    .requiredOption('--from-run <run>', 'the revision run (or import) to select from')
    .option('--for <design>', 'history | persist | crossover', 'history')
    .option('--select <rule>', 'history: first (each trajectory’s first recurrence event) | all', 'first')
    .option('--max-states <n>', 'sample n by stable hash, round-robin over strata (persist default 24)')
    .option('-o, --output <file>', 'write the states here (default: stdout)')
    .option('--json', 'print a JSON summary (count, SHA-256, file) instead of words')
    .action(async (flags: StatesFlags) => {
      const { selectExperimentStates } = await import('../../app/experiment.ts');
      const r = await selectExperimentStates({
        store: storeFlag(flags.store),
        fromRun: flags.fromRun,
        design: oneOf('--for', flags.for, ['history', 'persist', 'crossover'] as const, 'history'),
        select: oneOf('--select', flags.select, ['first', 'all'] as const, 'first'),
        maxStates: wholeNumber('--max-states', flags.maxStates, { min: 1 }),
        output: flags.output ?? null,
      });
      if (r.text !== null) io.out.write(r.text);
      const summary = {
        states: r.states.length,
        sha256: r.sha256,
        file: flags.output ?? null,
        from_run: flags.fromRun,
        simulated: r.simulated,
      };
      if (flags.json) (flags.output ? io.out : io.err).write(JSON.stringify(summary) + '\n');
      else
        (flags.output ? io.out : io.err).write(
          `${r.states.length} states from ${r.trajectories} trajectories of '${flags.fromRun}'${r.simulated ? ' [SIMULATED]' : ''}` +
            `${flags.output ? ` written to ${flags.output}` : ''} · SHA-256 ${r.sha256}\n`,
        );
    });

  common(
    experiment
      .command('history')
      .description(
        'matched-state history interventions (docs/protocol.md §3.10): each state continued under each arm on its own message list up to revision T',
      )
      .requiredOption('--from-run <run>', 'the revision run (or import) whose states are continued')
      .option(
        '--arms <list>',
        'full, reset, last:K, abstract (abstracted failure records), ban (failed drafts banned at decoding)',
        'full,reset,last:1,last:2',
      )
      .option('--states <file>', 'a frozen selection (from `revloop experiment states`) instead of selecting now')
      .option('--allow-subset', "accept a states file that is a subset of the run's selection (only those states are worked on)")
      .option('--select <rule>', 'without --states: first | all recurrence events per trajectory', 'first')
      .option('--max-states <n>', 'without --states: sample n states by stable hash')
      .option('--budget <T>', 'the absolute last revision', '8'),
  ).action(
    async (
      flags: CommonFlags & {
        fromRun: string;
        arms?: string;
        states?: string;
        allowSubset?: boolean;
        select?: string;
        maxStates?: string;
        budget?: string;
      },
    ) => {
      const { parseArms } = await import('../../studies/experiments/arms.ts');
      const { runHistoryExperiment } = await import('../../app/experiment.ts');
      const o = {
        ...commonOptions(flags),
        fromRun: flags.fromRun,
        arms: parseArms(flags.arms ?? 'full,reset,last:1,last:2'),
        states: flags.states,
        allowSubset: flags.allowSubset ?? false,
        select: oneOf('--select', flags.select, ['first', 'all'] as const, 'first'),
        maxStates: wholeNumber('--max-states', flags.maxStates, { min: 1 }),
        budget: budgetFlag(flags.budget, 8),
      };
      process.exitCode = await runWithProgress(o.store, (signal, hooks) => runHistoryExperiment({ ...o, signal }, hooks));
    },
  );

  common(
    experiment
      .command('crossover')
      .description(
        "fixed-draft crossover (docs/protocol.md §3.12): the planner run's frozen first drafts continued by another model; the diagonal cells are the planner runs",
      )
      .requiredOption('--planner-run <run>', 'the run whose first drafts are frozen')
      .option('--states <file>', 'a frozen selection of first drafts (`revloop experiment states --for crossover`)')
      .option('--allow-subset', "accept a states file that is a subset of the run's selection")
      .option('--budget <T>', 'the last revision', '8'),
  ).action(async (flags: CommonFlags & { plannerRun: string; states?: string; allowSubset?: boolean; budget?: string }) => {
    const { runCrossoverExperiment } = await import('../../app/experiment.ts');
    const o = {
      ...commonOptions(flags),
      plannerRun: flags.plannerRun,
      states: flags.states,
      allowSubset: flags.allowSubset ?? false,
      budget: budgetFlag(flags.budget, 8),
    };
    process.exitCode = await runWithProgress(o.store, (signal, hooks) => runCrossoverExperiment({ ...o, signal }, hooks));
  });

  common(
    experiment
      .command('sysid')
      .description(
        'system identification (docs/protocol.md §3.11): a fixed draft, its target shifted by each error, one greedy revision per state; ' +
          'the prediction spec is frozen when the discovery states finish',
      )
      .requiredOption('--cases <file>', 'exact-length cases with a fixed draft (the paper’s reference texts)')
      .option('--errors <list>', 'signed errors e (target = words(draft) − e)', '-50,-20,-10,-5,-2,-1,1,2,5,10,20,50')
      .option('--draft-field <name>', 'the row field holding the fixed draft', 'reference')
      .option('--split <which>', 'discovery | confirmation | both (disjoint by case)', 'both'),
  ).action(async (flags: CommonFlags & { cases: string; errors?: string; draftField?: string; split?: string }) => {
    const { runSysidExperiment } = await import('../../app/experiment.ts');
    const o = {
      ...commonOptions(flags),
      cases: flags.cases,
      errors: errorsFlag(flags.errors),
      draftField: flags.draftField ?? 'reference',
      split: oneOf('--split', flags.split, ['discovery', 'confirmation', 'both'] as const, 'both'),
    };
    process.exitCode = await runWithProgress(o.store, (signal, hooks) => runSysidExperiment({ ...o, signal }, hooks));
  });

  common(
    experiment
      .command('persist')
      .description(
        'extended budget (docs/protocol.md §3.13): budget-end failures continued on the full conversation to a larger budget; ' +
          '--context-window ends a trajectory whose next prompt would not fit (termination context_limit)',
      )
      .requiredOption('--from-run <run>', 'the revision run (or import) whose budget-end failures are continued')
      .option('--budget <T>', 'the new last revision', '32')
      .option('--max-states <n>', 'states chosen by stable hash, round-robin over source × terminal-error region', '24')
      .option('--context-window <tokens>', "the model's context window, counted with the backend's own tokenizer")
      .option('--states <file>', 'a frozen selection (`revloop experiment states --for persist`)')
      .option('--allow-subset', "accept a states file that is a subset of the run's selection"),
  ).action(
    async (
      flags: CommonFlags & {
        fromRun: string;
        budget?: string;
        maxStates?: string;
        contextWindow?: string;
        states?: string;
        allowSubset?: boolean;
      },
    ) => {
      const { runPersistExperiment } = await import('../../app/experiment.ts');
      const o = {
        ...commonOptions(flags),
        fromRun: flags.fromRun,
        budget: budgetFlag(flags.budget, 32),
        maxStates: wholeNumber('--max-states', flags.maxStates, { min: 1 }) ?? 24,
        contextWindow: wholeNumber('--context-window', flags.contextWindow, { min: 1 }) ?? null,
        states: flags.states,
        allowSubset: flags.allowSubset ?? false,
      };
      process.exitCode = await runWithProgress(o.store, (signal, hooks) => runPersistExperiment({ ...o, signal }, hooks));
    },
  );
}
