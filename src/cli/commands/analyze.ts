// `revloop analyze`: the paper's analyses over stored trajectories, as terminal tables or one strict
// JSON document, for every study in the store. A thin shell over app/analyze.ts; read-only.
import { Option, type Command } from 'commander';
import { parseAssignments, parsePanels } from '../flags.ts';
import { addHelpAfter } from '../help.ts';
import {
  addOptionWithAliases,
  bootstrapOption,
  bootstrapSeedOption,
  jsonOption,
  maxCapOption,
  noProgressOption,
  requireStore,
  runOption,
  storeOption,
  wholeParser,
  wideOption,
} from '../options.ts';
import { ANALYSIS_DEFAULTS } from '../../studies/revision/analysis/defaults.ts';
import { lineProgress } from '../progress.ts';
import { fitText, outputWidth } from '../terminal.ts';

interface AnalyzeFlags {
  store?: string;
  run?: string[];
  json?: boolean;
  maxCap?: number;
  bootstrap: number;
  seed: number;
  landmark: number;
  panel?: string[];
  modelFamily?: string[];
  progress?: boolean;
  wide?: boolean;
  allowUnverified?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('analyze')
    .summary('the paper’s analyses of the runs in a store, as tables or one JSON document')
    .description(
      'Endpoint tables with bootstrap CIs, cumulative success, budget replay, failure taxonomy, hazards and their association with success, ' +
        'McNemar/Holm, the rescue regression, the leave-one-family-out capture prediction and the all-domain landmark; ' +
        "and every other study's tables (probes, agent rollouts, experiments). The store is opened read-only.",
    )
    .argument('[runs...]', 'run ids to analyse (same as --run; default: every run in the store)')
    .addOption(storeOption({ required: true, readOnly: true }))
    .addOption(runOption('analyse only these runs (repeatable)', { many: true }))
    .addOption(jsonOption('print one JSON document (schema revloop.analysis/1) instead of tables'));
  addOptionWithAliases(cmd, maxCapOption(), '--budget');
  cmd
    .addOption(bootstrapOption(ANALYSIS_DEFAULTS.bootstrap))
    .addOption(bootstrapSeedOption())
    .addOption(
      new Option('--landmark <L>', 'landmark revision of the rescue regression')
        .argParser(wholeParser('--landmark', { min: 1 }))
        .default(ANALYSIS_DEFAULTS.landmark),
    )
    .option('--panel <controller=panel...>', 'put a controller in a named panel (pairs, reversals and panel means are within panels)')
    .option(
      '--model-family <controller=family...>',
      'model family of a controller for the leave-one-family-out prediction (default: Llama, Gemma, GLM, Mistral, Qwen, Granite or Falcon-H1 when the name says so, else the controller itself)',
    )
    .addOption(noProgressOption())
    .addOption(wideOption())
    .option(
      '--allow-unverified',
      'analyse runs whose chain or tables disagree with their events (refused by default); every output says so',
    );
  addHelpAfter(
    cmd,
    '\nRates are fractions in the JSON and percentages in the tables. Protocol-incomplete trajectories are excluded from every n ' +
      'and listed separately. Simulated (sim:) controllers are marked SIMULATED. See docs/analysis.md for every definition and the JSON schema.',
  ).action(async (runs: string[], flags: AnalyzeFlags) => {
    await analyzeAction(runs, flags);
  });
}

async function analyzeAction(positional: string[], flags: AnalyzeFlags): Promise<void> {
  const store = requireStore(flags.store, 'analyze');
  const progress = flags.progress === false ? null : lineProgress(process.stderr, 'bootstrap', { unit: ' resamples/s' });
  const { analyzeStore, analysisDocument, analysisText } = await import('../../app/analyze.ts');
  const { unverifiedWarnings } = await import('../../app/verified.ts');
  let warnings: string[] = [];
  const results = await analyzeStore(store, {
    allowUnverified: flags.allowUnverified,
    onVerified: (v) => (warnings = unverifiedWarnings(v)),
    runIds: [...positional, ...(flags.run ?? [])],
    budget: flags.maxCap,
    bootstrap: flags.bootstrap,
    seed: flags.seed,
    landmark: flags.landmark,
    panels: parsePanels('analyze', flags.panel ?? []),
    modelFamilies: parseAssignments(
      'analyze',
      '--model-family',
      'controller=family',
      flags.modelFamily ?? [],
      '--model-family "llama-3.1-8b=Llama"',
    ),
    onProgress: progress ? (p) => progress.update(p.done, p.total) : undefined,
  });
  progress?.finish();
  for (const w of warnings) process.stderr.write(`revloop: ${w}\n`);
  const width = outputWidth(flags.wide);
  process.stdout.write(
    flags.json
      ? analysisDocument(results, warnings)
      : (warnings.length ? warnings.join('\n') + '\n\n' : '') + fitText(analysisText(results, { width }), width),
  );
}
