// `revloop compare-policies`: the same cases under several revision policies (each one run), then
// success at equal budget with paired McNemar + Holm, generations, tokens, money and cycles.
import type { Command } from 'commander';
import {
  addModelOptions,
  budgetFlag,
  modelOptionsFromFlags,
  numberFlag,
  STORE_HELP,
  storeFlag,
  wholeNumber,
  type ModelFlags,
} from '../flags.ts';
import { trajectoryProgress } from '../progress.ts';
import { interruptible } from '../signals.ts';
import { UsageError } from '../../core/errors.ts';

interface CompareFlags extends ModelFlags {
  cases?: string;
  model?: string;
  replay?: string;
  truncations?: string;
  policies: string;
  budget?: string;
  store?: string;
  limit?: string;
  concurrency?: string;
  priceIn?: string;
  priceOut?: string;
  runIdPrefix?: string;
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
    .option('--cases <file>', 'case file (paper, COLLIE, IFEval or native JSON Lines); required unless --replay')
    .option(
      '--model <spec>',
      'openai:<model>, openai-compatible:<url>#<model>, vllm:<url>#<model>, gguf:<path>, sim:<profile>; required unless --replay',
    )
    .option(
      '--policies <list>',
      'comma-separated policy names, each optionally NAME+ban=KIND (none, failed-drafts, complete-repeats); the first is the reference',
      'verbatim-full,abstract,reset-on-recurrence,revloop-default',
    )
    .option('--budget <T>', 'revisions after the first draft, the same for every policy', '8')
    .option('--store <location>', STORE_HELP)
    .option('--limit <n>', 'only the first n cases')
    .option('--concurrency <n>', 'trajectories in flight at once', '4')
    .option('--price-in <usd>', 'US dollars per million prompt tokens (for the money column)')
    .option('--price-out <usd>', 'US dollars per million completion tokens')
    .option(
      '--seeds <list>',
      'replicates, e.g. 1-10 or 1,3,5: every policy runs once per seed (sim: as its seed= parameter, other models as the sampling seed, which needs --temperature above 0); pairs are (seed, case)',
    )
    .option('--run-id-prefix <prefix>', 'run ids are <prefix>__<policy>[__seed<N>] (default compare__<cases>__<model>)')
    .option(
      '--replay <run>',
      "evaluate truncations of a stored run's policy on its recorded trajectories (no model calls; e.g. an imported log)",
    )
    .option(
      '--truncations <list>',
      'with --replay: comma-separated budget=T, on-cycle=stop, stop=recurrence, or several joined with + (default: every smaller budget, on-cycle=stop and stop=recurrence)',
    )
    .option('--wide', 'one table with every column (wider than 80 columns)')
    .option('--json', 'print the comparison as JSON (snake_case keys)');
  addModelOptions(cmd).action(async (flags: CompareFlags) => {
    process.exitCode = flags.replay !== undefined ? await replayAction(cmd, flags) : await compareAction(flags);
  });
}

/** `--replay RUN`: truncations of a stored run, no model; the options that choose what to run are refused. */
async function replayAction(cmd: Command, flags: CompareFlags, io = { out: process.stdout }): Promise<number> {
  for (const name of ['cases', 'model', 'seeds', 'limit', 'policies', 'budget', 'runIdPrefix'])
    if (cmd.getOptionValueSource(name) === 'cli') {
      const flag = '--' + name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
      throw new UsageError(flag, `${flag} chooses what to run; --replay runs nothing (use --truncations to name the policies to evaluate)`);
    }
  const priceIn = numberFlag('--price-in', flags.priceIn, { min: 0 });
  const priceOut = numberFlag('--price-out', flags.priceOut, { min: 0 });
  if ((priceIn === undefined) !== (priceOut === undefined)) throw new UsageError('--price-in', '--price-in and --price-out go together');
  const { replayPolicies } = await import('../../app/compare-policies.ts');
  const { renderComparison } = await import('../../revise/compare.ts');
  const result = await replayPolicies({
    store: storeFlag(flags.store),
    runId: flags.replay!,
    truncations: flags.truncations
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    pricing: priceIn !== undefined && priceOut !== undefined ? { inputPerMTok: priceIn, outputPerMTok: priceOut } : undefined,
  });
  io.out.write(flags.json ? JSON.stringify(result, null, 2) + '\n' : renderComparison(result, { wide: flags.wide }));
  return 0;
}

async function compareAction(flags: CompareFlags, io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const priceIn = numberFlag('--price-in', flags.priceIn, { min: 0 });
  const priceOut = numberFlag('--price-out', flags.priceOut, { min: 0 });
  if ((priceIn === undefined) !== (priceOut === undefined)) throw new UsageError('--price-in', '--price-in and --price-out go together');
  if (flags.truncations !== undefined) throw new UsageError('--truncations', '--truncations goes with --replay RUN');
  const { cases, model } = flags;
  if (cases === undefined) throw new UsageError('--cases', '--cases <file> is required (or --replay RUN to evaluate a stored run)');
  if (model === undefined) throw new UsageError('--model', '--model <spec> is required (or --replay RUN to evaluate a stored run)');
  const policies = flags.policies
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const { comparePolicies, parseSeeds } = await import('../../app/compare-policies.ts');
  const { renderComparison } = await import('../../revise/compare.ts');
  let progress: ReturnType<typeof trajectoryProgress> | null = null;
  const result = await interruptible(io.err, 'in-flight calls are abandoned; repeat the command to resume', (signal) =>
    comparePolicies(
      {
        cases,
        model,
        modelOptions: modelOptionsFromFlags(flags),
        policies,
        budget: budgetFlag(flags.budget, 8),
        store: storeFlag(flags.store),
        limit: wholeNumber('--limit', flags.limit, { min: 1 }),
        concurrency: wholeNumber('--concurrency', flags.concurrency, { min: 1 }) ?? 4,
        pricing: priceIn !== undefined && priceOut !== undefined ? { inputPerMTok: priceIn, outputPerMTok: priceOut } : undefined,
        runIdPrefix: flags.runIdPrefix,
        seeds: flags.seeds === undefined ? undefined : parseSeeds(flags.seeds),
        signal,
      },
      {
        onPolicy: (policy, i, total, runId) => {
          progress?.finish();
          io.err.write(`${policy}: run ${i + 1} of ${total} (${runId})\n`);
          progress = null;
        },
        run: {
          onStart: (s) => (progress = trajectoryProgress(io.err, { simulated: s.simulated })),
          onProgress: (p) => progress?.update(p),
        },
      },
    ),
  ).finally(() => progress?.finish());
  io.out.write(flags.json ? JSON.stringify(result, null, 2) + '\n' : renderComparison(result, { wide: flags.wide }));
  if (result.stopped) {
    io.err.write('stopped before every policy ran; repeat the same command to resume\n');
    return 3;
  }
  return 0;
}
