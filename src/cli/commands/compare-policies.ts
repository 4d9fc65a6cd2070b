// `revloop compare-policies`: the same cases under several revision policies (each one run), then
// success at equal budget with paired McNemar + Holm, generations, tokens, money and cycles.
import { Option, type Command } from 'commander';
import { addModelOptions, modelOptionsFromFlags, numberFlag, type ModelFlags } from '../flags.ts';
import {
  addOptionWithAliases,
  budgetOption,
  casesOption,
  concurrencyOption,
  jsonOption,
  limitOption,
  modelOption,
  storeOption,
} from '../options.ts';
import { RUN_DEFAULTS } from '../../app/defaults.ts';
import { jsonOutput } from '../json.ts';
import { trajectoryProgress } from '../progress.ts';
import { fitText, outputWidth } from '../terminal.ts';
import { interruptible } from '../signals.ts';
import { UsageError } from '../../core/errors.ts';

interface CompareFlags extends ModelFlags {
  cases?: string;
  model?: string;
  replay?: string;
  truncations?: string;
  policies: string;
  budget: number;
  store: string;
  limit?: number;
  inputFormat?: string;
  concurrency: number;
  priceIn?: string;
  priceOut?: string;
  runPrefix?: string;
  seeds?: string;
  json?: boolean;
  wide?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('compare-policies')
    .summary('run the same cases under several revision policies and compare them at equal budget')
    .description(
      'Runs each policy as its own revision run on the same cases and budget (resumable: repeat the command), then reports ' +
        'per policy: joint success at the budget, paired by case (by seed and case with --seeds) against the first policy: ' +
        'the difference with a 95% Newcombe interval, exact McNemar tests and Holm over the comparisons; generations, provider ' +
        'attempts, tokens and money (failed attempts included), and trajectories that hit a recurrence or a persistent cycle. ' +
        "Policies: verbatim-full (the paper's loop), abstract, drop, reset-on-recurrence, revloop-default, each optionally " +
        'with +ban=none|failed-drafts|complete-repeats. With --replay RUN, no model is called: policies that only stop earlier ' +
        "than the stored run's own (a smaller budget, on-cycle=stop, stop=recurrence) are evaluated on its recorded trajectories. " +
        'Simulated models (sim:) are marked SIMULATED. See docs/revise.md §5.',
    )
    .addOption(casesOption('case file (paper, COLLIE, IFEval or native JSON Lines); required unless --replay').makeOptionMandatory(false))
    .addOption(modelOption({ what: 'required unless --replay' }))
    .addOption(
      new Option(
        '--policies <list>',
        'comma-separated policy names, each optionally NAME+ban=KIND (none, failed-drafts, complete-repeats); the first is the reference',
      ).default(
        'verbatim-full,abstract,reset-on-recurrence,revloop-default',
        'verbatim-full, abstract, reset-on-recurrence, revloop-default',
      ),
    )
    .addOption(budgetOption(RUN_DEFAULTS.budget, 'the revision budget T: revisions after the first draft, the same for every policy'))
    .addOption(storeOption())
    .addOption(limitOption())
    .addOption(concurrencyOption(RUN_DEFAULTS.concurrency))
    .option('--price-in <usd>', 'US dollars per million prompt tokens (for the money column)')
    .option('--price-out <usd>', 'US dollars per million completion tokens')
    .option(
      '--seeds <list>',
      'replicates, e.g. 1-10 or 1,3,5: every policy runs once per seed (sim: as its seed= parameter, other models as the sampling seed, which needs --temperature above 0); pairs are (seed, case)',
    )
    .option(
      '--replay <run>',
      "evaluate truncations of a stored run's policy on its recorded trajectories (no model calls; e.g. an imported log)",
    )
    .option(
      '--truncations <list>',
      'with --replay: comma-separated budget=T, on-cycle=stop, stop=recurrence, or several joined with + (default: every smaller budget, on-cycle=stop and stop=recurrence)',
    )
    .addOption(jsonOption('print the comparison as JSON'));
  addOptionWithAliases(
    cmd,
    new Option('--run-prefix <prefix>', 'run ids are <prefix>__<policy>[__seed<N>] (default compare__<cases>__<model>)'),
    '--run-id-prefix',
  );
  addModelOptions(cmd).action(async (flags: CompareFlags) => {
    process.exitCode = flags.replay !== undefined ? await replayAction(cmd, flags) : await compareAction(flags);
  });
}

/** Prices given together or not at all. */
function pricing(flags: CompareFlags) {
  const priceIn = numberFlag('--price-in', flags.priceIn, { min: 0 });
  const priceOut = numberFlag('--price-out', flags.priceOut, { min: 0 });
  if ((priceIn === undefined) !== (priceOut === undefined))
    throw new UsageError('--price-in and --price-out go together', { option: '--price-in' });
  return priceIn !== undefined && priceOut !== undefined ? { inputPerMTok: priceIn, outputPerMTok: priceOut } : undefined;
}

/** The comparison as text fitted to the terminal (two tables within its width; every column in one with --wide), or JSON. */
async function printComparison(out: NodeJS.WritableStream & { columns?: number; isTTY?: boolean }, flags: CompareFlags, result: object) {
  const { renderComparison } = await import('../../revise/compare.ts');
  if (flags.json) return void out.write(jsonOutput(result));
  const width = outputWidth(flags.wide, out);
  out.write(renderComparison(result as Parameters<typeof renderComparison>[0], width === undefined ? { wide: true } : { width }));
}

/** `--replay RUN`: truncations of a stored run, no model; the options that choose what to run are refused. */
async function replayAction(cmd: Command, flags: CompareFlags, io = { out: process.stdout }): Promise<number> {
  for (const name of ['cases', 'model', 'seeds', 'limit', 'policies', 'budget', 'runPrefix', 'runIdPrefix'])
    if (cmd.getOptionValueSource(name) === 'cli') {
      const flag = '--' + name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
      throw new UsageError(`${flag} chooses what to run; --replay runs nothing (use --truncations to name the policies to evaluate)`, {
        option: flag,
      });
    }
  const prices = pricing(flags);
  const { replayPolicies } = await import('../../app/compare-policies.ts');
  const result = await replayPolicies({
    store: flags.store,
    runId: flags.replay!,
    truncations: flags.truncations
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    pricing: prices,
  });
  await printComparison(io.out, flags, result);
  return 0;
}

async function compareAction(flags: CompareFlags, io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const prices = pricing(flags);
  if (flags.truncations !== undefined) throw new UsageError('--truncations goes with --replay RUN', { option: '--truncations' });
  const { cases, model } = flags;
  if (cases === undefined)
    throw new UsageError('--cases <file> is required (or --replay RUN to evaluate a stored run)', { option: '--cases' });
  if (model === undefined)
    throw new UsageError('--model <spec> is required (or --replay RUN to evaluate a stored run)', { option: '--model' });
  const policies = flags.policies
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const { comparePolicies, parseSeeds } = await import('../../app/compare-policies.ts');
  let progress: ReturnType<typeof trajectoryProgress> | null = null;
  const result = await interruptible(io.err, 'in-flight calls are abandoned; repeat the command to resume', (signal) =>
    comparePolicies(
      {
        cases,
        model,
        modelOptions: modelOptionsFromFlags(flags),
        policies,
        budget: flags.budget,
        store: flags.store,
        limit: flags.limit,
        concurrency: flags.concurrency,
        pricing: prices,
        runIdPrefix: flags.runPrefix,
        seeds: flags.seeds === undefined ? undefined : parseSeeds(flags.seeds),
        signal,
      },
      {
        onPolicy: (policy, i, total, runId) => {
          progress?.finish();
          io.err.write(fitText(`${policy}: run ${i + 1} of ${total} (${runId})`, outputWidth(false, io.err)) + '\n');
          progress = null;
        },
        run: {
          onNote: (text) => io.err.write(fitText(`note: ${text}`, outputWidth(false, io.err)) + '\n'),
          onStart: (s) => (progress = trajectoryProgress(io.err, { simulated: s.simulated })),
          onProgress: (p) => progress?.update(p),
        },
      },
    ),
  ).finally(() => progress?.finish());
  await printComparison(io.out, flags, result);
  if (result.stopped) {
    io.err.write('stopped before every policy ran; repeat the same command to resume\n');
    return 3;
  }
  return 0;
}
