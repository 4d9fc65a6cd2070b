// `revloop experiment states|history|crossover|sysid|persist`: the controlled experiments
// (docs/experiments.md). Flags are parsed here into app/experiment.ts's typed options; progress,
// Ctrl-C, the resume command and the next steps are the same as `revloop run`'s.
import { Option, type Command } from 'commander';
import { dataOnStdout } from '../output.ts';
import { UsageError } from '../../core/errors.ts';
import { markedName } from '../../core/simulated.ts';
import { redactLocation } from '../../store/store.ts';
import { addModelOptions, modelOptionsFromFlags, sessionOptionsFromFlags, type ModelFlags } from '../flags.ts';
import {
  addOptionWithAliases,
  budgetOption,
  casesOption,
  concurrencyOption,
  jsonOption,
  limitOption,
  maxConsecutiveFailuresOption,
  modelOption,
  outputOption,
  runOption,
  storeOption,
  wholeParser,
} from '../options.ts';
import { RUN_DEFAULTS } from '../../app/defaults.ts';
import { DEFAULT_ARMS, DEFAULT_ERRORS, DESIGN_DEFAULTS } from '../../studies/experiments/defaults.ts';
import { commandLine, nextCommands } from '../invocation.ts';
import { trajectoryProgress } from '../progress.ts';
import { fitted } from '../terminal.ts';
import { reportIncomplete, reportStopped } from '../run-outcome.ts';
import { interruptible } from '../signals.ts';

interface CommonFlags extends ModelFlags {
  store: string;
  model: string;
  run: string;
  concurrency: number;
  maxConsecutiveFailures: number;
}

interface StatesFlags {
  store: string;
  fromRun: string;
  for: 'history' | 'persist' | 'crossover';
  select: 'first' | 'all';
  maxStates?: number;
  output?: string;
  json?: boolean;
}

const io = { out: fitted(process.stdout), err: fitted(process.stderr) };

/** `--errors -50,-20,…`: nonzero whole numbers, each once. */
export function errorsFlag(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((s) => s.trim());
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[+-]?\d+$/.test(p) || Number(p) === 0)
      throw new UsageError(`--errors: '${p}' is not a nonzero whole number (e.g. --errors -10,-5,5,10)`, { option: '--errors' });
    const n = Number(p);
    if (out.includes(n)) throw new UsageError(`--errors: ${n} is listed twice`, { option: '--errors' });
    out.push(n);
  }
  return out;
}

/** Flags every experiment that runs a model shares. */
function common(cmd: Command): Command {
  cmd.addOption(modelOption({ required: true, what: 'the controller' })).addOption(storeOption());
  addOptionWithAliases(cmd, runOption('the experiment run (the same command resumes it)').makeOptionMandatory(), '--run-id');
  return addModelOptions(cmd.addOption(concurrencyOption(RUN_DEFAULTS.concurrency)).addOption(maxConsecutiveFailuresOption()));
}

function commonOptions(flags: CommonFlags) {
  return {
    store: flags.store,
    model: flags.model,
    modelOptions: modelOptionsFromFlags(flags),
    runId: flags.run,
    concurrency: flags.concurrency,
    maxConsecutiveFailures: flags.maxConsecutiveFailures,
    sessionOptions: sessionOptionsFromFlags(flags, flags.maxConsecutiveFailures),
  };
}

const selectOption = (help: string) => new Option('--select <rule>', help).choices(['first', 'all']).default(DESIGN_DEFAULTS.select);
const maxStatesOption = (help: string, fallback?: number) => {
  const o = new Option('--max-states <n>', help).argParser(wholeParser('--max-states', { min: 1 }));
  return fallback === undefined ? o : o.default(fallback);
};
const statesOption = (help: string) => new Option('--states <file>', help);
const allowSubsetOption = (help = "accept a states file that is a subset of the run's selection (only those states are worked on)") =>
  new Option('--allow-subset', help);

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
        progress = trajectoryProgress(process.stderr, { simulated: s.simulated });
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
    nextCommands([
      ['audit', ...db, '--run', runId],
      ['analyze', ...db, runId],
      ['report', ...db, '-o', 'report.html'],
    ]),
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

  const states = experiment
    .command('states')
    .description(
      'select the states an experiment starts from and write them as JSON Lines (their SHA-256 freezes the selection): ' +
        'recurrence events for history, budget-end failures for persist, first drafts for crossover',
    )
    .addOption(storeOption({ readOnly: true }))
    .requiredOption('--from-run <run>', 'the revision run (or import) to select from')
    .addOption(
      new Option('--for <design>', 'the experiment the states are for')
        .choices(['history', 'persist', 'crossover'])
        .default(DESIGN_DEFAULTS.design),
    )
    .addOption(selectOption('history: first (each trajectory’s first recurrence event) | all'))
    .addOption(maxStatesOption(`sample n by stable hash, round-robin over strata (persist default ${DESIGN_DEFAULTS.persistMaxStates})`))
    .addOption(outputOption("write the states here ('-' or none: standard output)"))
    .addOption(jsonOption('print a JSON summary (states, sha256, file) instead of words'));
  states.action(async (flags: StatesFlags) => {
    const { selectExperimentStates } = await import('../../app/experiment.ts');
    const toFile = flags.output !== undefined && flags.output !== '-';
    const r = await selectExperimentStates({
      store: flags.store,
      fromRun: flags.fromRun,
      design: flags.for,
      select: flags.select,
      maxStates: flags.maxStates,
      output: toFile ? flags.output! : null,
    });
    if (r.text !== null) {
      dataOnStdout();
      process.stdout.write(r.text);
    }
    const summary = {
      states: r.states.length,
      sha256: r.sha256,
      file: toFile ? flags.output : null,
      from_run: flags.fromRun,
      simulated: r.simulated,
    };
    const say = toFile ? io.out : io.err;
    // One JSON line, never wrapped (the fitted streams are for words).
    if (flags.json) (toFile ? process.stdout : process.stderr).write(JSON.stringify(summary) + '\n');
    else
      say.write(
        `${r.states.length} states from ${r.trajectories} trajectories of '${flags.fromRun}'${r.simulated ? ' [SIMULATED]' : ''}` +
          `${toFile ? ` written to ${flags.output}` : ''} · SHA-256 ${r.sha256}\n`,
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
        DEFAULT_ARMS,
      )
      .addOption(statesOption('a frozen selection (from `revloop experiment states`) instead of selecting now'))
      .addOption(allowSubsetOption())
      .addOption(selectOption('without --states: first | all recurrence events per trajectory'))
      .addOption(maxStatesOption('without --states: sample n states by stable hash'))
      .addOption(budgetOption(RUN_DEFAULTS.budget, 'the revision budget T: each continuation ends at revision T at the latest')),
  ).action(
    async (
      flags: CommonFlags & {
        fromRun: string;
        arms: string;
        states?: string;
        allowSubset?: boolean;
        select: 'first' | 'all';
        maxStates?: number;
        budget: number;
      },
    ) => {
      const { parseArms } = await import('../../studies/experiments/arms.ts');
      const { runHistoryExperiment } = await import('../../app/experiment.ts');
      const o = {
        ...commonOptions(flags),
        fromRun: flags.fromRun,
        arms: parseArms(flags.arms),
        states: flags.states,
        allowSubset: flags.allowSubset ?? false,
        select: flags.select,
        maxStates: flags.maxStates,
        budget: flags.budget,
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
      .addOption(statesOption('a frozen selection of first drafts (`revloop experiment states --for crossover`)'))
      .addOption(allowSubsetOption("accept a states file that is a subset of the run's selection"))
      .addOption(budgetOption(RUN_DEFAULTS.budget, 'the revision budget T: each continuation ends at revision T at the latest')),
  ).action(async (flags: CommonFlags & { plannerRun: string; states?: string; allowSubset?: boolean; budget: number }) => {
    const { runCrossoverExperiment } = await import('../../app/experiment.ts');
    const o = {
      ...commonOptions(flags),
      plannerRun: flags.plannerRun,
      states: flags.states,
      allowSubset: flags.allowSubset ?? false,
      budget: flags.budget,
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
      .addOption(casesOption('exact-length cases with a fixed draft (the paper’s reference texts)'))
      .addOption(limitOption())
      .option('--errors <list>', 'signed errors e (target = words(draft) − e)', DEFAULT_ERRORS.join(','))
      .option('--draft-field <name>', 'the row field holding the fixed draft', DESIGN_DEFAULTS.draftField)
      .addOption(
        new Option('--split <which>', 'which states: discovery | confirmation | both (disjoint by case)')
          .choices(['discovery', 'confirmation', 'both'])
          .default(DESIGN_DEFAULTS.split),
      ),
  ).action(
    async (
      flags: CommonFlags & {
        cases: string;
        limit?: number;
        errors: string;
        draftField: string;
        split: 'discovery' | 'confirmation' | 'both';
      },
    ) => {
      const { runSysidExperiment } = await import('../../app/experiment.ts');
      const o = {
        ...commonOptions(flags),
        cases: flags.cases,
        limit: flags.limit,
        errors: errorsFlag(flags.errors),
        draftField: flags.draftField,
        split: flags.split,
      };
      process.exitCode = await runWithProgress(o.store, (signal, hooks) => runSysidExperiment({ ...o, signal }, hooks));
    },
  );

  common(
    experiment
      .command('persist')
      .description(
        'extended budget (docs/protocol.md §3.13): budget-end failures continued on the full conversation to a larger budget; ' +
          '--context-window ends a trajectory whose next prompt would not fit (termination context_limit)',
      )
      .requiredOption('--from-run <run>', 'the revision run (or import) whose budget-end failures are continued')
      .addOption(
        budgetOption(DESIGN_DEFAULTS.persistBudget, 'the new revision budget T: each continuation ends at revision T at the latest'),
      )
      .addOption(
        maxStatesOption('states chosen by stable hash, round-robin over source × terminal-error region', DESIGN_DEFAULTS.persistMaxStates),
      )
      .addOption(
        new Option('--context-window <tokens>', "the model's context window, counted with the backend's own tokenizer").argParser(
          wholeParser('--context-window', { min: 1 }),
        ),
      )
      .addOption(statesOption('a frozen selection (`revloop experiment states --for persist`)'))
      .addOption(allowSubsetOption("accept a states file that is a subset of the run's selection")),
  ).action(
    async (
      flags: CommonFlags & {
        fromRun: string;
        budget: number;
        maxStates: number;
        contextWindow?: number;
        states?: string;
        allowSubset?: boolean;
      },
    ) => {
      const { runPersistExperiment } = await import('../../app/experiment.ts');
      const o = {
        ...commonOptions(flags),
        fromRun: flags.fromRun,
        budget: flags.budget,
        maxStates: flags.maxStates,
        contextWindow: flags.contextWindow ?? null,
        states: flags.states,
        allowSubset: flags.allowSubset ?? false,
      };
      process.exitCode = await runWithProgress(o.store, (signal, hooks) => runPersistExperiment({ ...o, signal }, hooks));
    },
  );
}
