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
  PAPER_BUDGET,
} from '../options.ts';
import { jsonOutput } from '../json.ts';
import { trajectoryProgress } from '../progress.ts';
import { fitText, outputWidth } from '../terminal.ts';
import { interruptible } from '../signals.ts';
import { UsageError } from '../../core/errors.ts';

interface CompareFlags extends ModelFlags {
  cases: string;
  model: string;
  policies: string;
  budget: number;
  store: string;
  limit?: number;
  inputFormat?: string;
  concurrency: number;
  priceIn?: string;
  priceOut?: string;
  runPrefix?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('compare-policies')
    .summary('run the same cases under several revision policies and compare them at equal budget')
    .description(
      'Runs each policy as its own revision run on the same cases and budget (resumable: repeat the command), then reports ' +
        'per policy: joint success at the budget with exact paired McNemar tests against the first policy and Holm over the ' +
        'comparisons, generations, provider attempts, tokens and money (failed attempts included), and trajectories that hit ' +
        "a recurrence or a persistent cycle. Policies: verbatim-full (the paper's loop), abstract, drop, reset-on-recurrence, " +
        'revloop-default. Simulated models (sim:) are marked SIMULATED. See docs/revise.md.',
    )
    .addOption(casesOption('case file (paper, COLLIE, IFEval or native JSON Lines)'))
    .addOption(modelOption({ required: true }))
    .addOption(
      new Option('--policies <list>', 'comma-separated policy names; the first is the reference').default(
        'verbatim-full,abstract,reset-on-recurrence,revloop-default',
        'verbatim-full, abstract, reset-on-recurrence, revloop-default',
      ),
    )
    .addOption(budgetOption(PAPER_BUDGET, 'the revision budget T: revisions after the first draft, the same for every policy'))
    .addOption(storeOption())
    .addOption(limitOption())
    .addOption(concurrencyOption(4))
    .option('--price-in <usd>', 'US dollars per million prompt tokens (for the money column)')
    .option('--price-out <usd>', 'US dollars per million completion tokens')
    .addOption(jsonOption('print the comparison as JSON'));
  addOptionWithAliases(
    cmd,
    new Option('--run-prefix <prefix>', 'run ids are <prefix>__<policy> (default compare__<cases>__<model>)'),
    '--run-id-prefix',
  );
  addModelOptions(cmd).action(async (flags: CompareFlags) => {
    process.exitCode = await compareAction(flags);
  });
}

async function compareAction(flags: CompareFlags, io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const priceIn = numberFlag('--price-in', flags.priceIn, { min: 0 });
  const priceOut = numberFlag('--price-out', flags.priceOut, { min: 0 });
  if ((priceIn === undefined) !== (priceOut === undefined)) throw new UsageError('--price-in', '--price-in and --price-out go together');
  const policies = flags.policies
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const { comparePolicies } = await import('../../app/compare-policies.ts');
  const { comparisonText } = await import('../../revise/compare.ts');
  let progress: ReturnType<typeof trajectoryProgress> | null = null;
  const result = await interruptible(io.err, 'in-flight calls are abandoned; repeat the command to resume', (signal) =>
    comparePolicies(
      {
        cases: flags.cases,
        model: flags.model,
        modelOptions: modelOptionsFromFlags(flags),
        policies,
        budget: flags.budget,
        store: flags.store,
        limit: flags.limit,
        concurrency: flags.concurrency,
        pricing: priceIn !== undefined && priceOut !== undefined ? { inputPerMTok: priceIn, outputPerMTok: priceOut } : undefined,
        runIdPrefix: flags.runPrefix,
        signal,
      },
      {
        onPolicy: (policy, i, total, runId) => {
          progress?.finish();
          io.err.write(fitText(`policy ${i + 1}/${total}: ${policy} (run ${runId})`, outputWidth(false, io.err)) + '\n');
          progress = null;
        },
        run: {
          onStart: (s) => (progress = trajectoryProgress(io.err, { simulated: s.simulated })),
          onProgress: (p) => progress?.update(p),
        },
      },
    ),
  ).finally(() => progress?.finish());
  if (flags.json) io.out.write(jsonOutput(result));
  else {
    const { TextTable } = await import('../../studies/kit/text-table.ts');
    const width = outputWidth(false, io.out);
    const text = comparisonText(result);
    // The cost columns go first when the terminal is narrow (said below the table; --wide keeps them).
    const table = new TextTable(text.head, {
      width,
      optional: ['cycle stops', 'USD', 'tokens in/out', 'attempts (failed)', 'McNemar p', 'generations'],
    });
    table.push(...text.rows);
    const lines = [...text.title, table.toString()];
    if (table.dropped.length) lines.push(`(left out to fit ${width} columns: ${table.dropped.join(', ')}; --wide shows them)`);
    if (text.note) lines.push(text.note);
    io.out.write(fitText(lines.join('\n'), width) + '\n');
  }
  if (result.stopped) {
    io.err.write('stopped before every policy ran; repeat the same command to resume\n');
    return 3;
  }
  return 0;
}
