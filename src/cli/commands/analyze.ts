// `revloop analyze`: the paper's analyses over stored trajectories, as terminal tables or one strict
// JSON document, for every study in the store. A thin shell over app/analyze.ts; read-only.
import type { Command } from 'commander';
import { parseAssignments, parsePanels, STORE_HELP, storeFlag, wholeNumber, MAX_BUDGET } from '../flags.ts';
import { lineProgress } from '../progress.ts';
import { outputWidth } from '../terminal.ts';

interface AnalyzeFlags {
  store?: string;
  run?: string[];
  json?: boolean;
  budget?: string;
  bootstrap?: string;
  seed?: string;
  landmark?: string;
  panel?: string[];
  modelFamily?: string[];
  progress?: boolean;
  wide?: boolean;
  allowUnverified?: boolean;
}

export function register(program: Command): void {
  program
    .command('analyze')
    .description(
      'endpoint tables with bootstrap CIs, cumulative success, budget replay, failure taxonomy, hazards and their association with success, McNemar/Holm, the rescue regression, the leave-one-family-out capture prediction and the all-domain landmark',
    )
    .argument('[runs...]', 'run ids to analyse (same as --run; default: every run in the store)')
    .option('--store <location>', STORE_HELP)
    .option('--run <id...>', 'analyse only these runs (repeatable)')
    .option('--json', 'print one JSON document (schema revloop.analysis/1) instead of tables')
    .option('--budget <T>', "largest revision cap for curves and budget replay (default: the runs' budget)")
    .option('--bootstrap <B>', 'bootstrap resamples; 0 switches intervals off', '20000')
    .option('--seed <S>', 'bootstrap seed', '20260808')
    .option('--landmark <L>', 'landmark revision of the rescue regression', '4')
    .option('--panel <controller=panel...>', 'put a controller in a named panel (pairs, reversals and panel means are within panels)')
    .option(
      '--model-family <controller=family...>',
      'model family of a controller for the leave-one-family-out prediction (default: Llama, Gemma, GLM, Mistral, Qwen, Granite or Falcon-H1 when the name says so, else the controller itself)',
    )
    .option('--no-progress', 'do not report bootstrap progress on stderr')
    .option('--wide', 'tables as wide as their contents (default: fitted to the terminal, cells wrapped)')
    .option(
      '--allow-unverified',
      'analyse runs whose chain or tables disagree with their events (refused by default); every output says so',
    )
    .addHelpText(
      'after',
      '\nRates are fractions in the JSON and percentages in the tables. Protocol-incomplete trajectories are\n' +
        'excluded from every n and listed separately. Simulated (sim:) controllers are marked SIMULATED.\n' +
        'See docs/analysis.md for every definition and the JSON schema.',
    )
    .action(async (runs: string[], flags: AnalyzeFlags) => {
      await analyzeAction(runs, flags);
    });
}

async function analyzeAction(positional: string[], flags: AnalyzeFlags): Promise<void> {
  const store = storeFlag(flags.store, 'analyze');
  const progress = flags.progress === false ? null : lineProgress(process.stderr, 'bootstrap', { unit: ' resamples/s' });
  const { analyzeStore, analysisDocument, analysisText } = await import('../../app/analyze.ts');
  const { unverifiedWarnings } = await import('../../app/verified.ts');
  let warnings: string[] = [];
  const results = await analyzeStore(store, {
    allowUnverified: flags.allowUnverified,
    onVerified: (v) => (warnings = unverifiedWarnings(v)),
    runIds: [...positional, ...(flags.run ?? [])],
    budget: wholeNumber('--budget', flags.budget, { min: 0, max: MAX_BUDGET }),
    bootstrap: wholeNumber('--bootstrap', flags.bootstrap ?? '20000', { min: 0 }),
    seed: wholeNumber('--seed', flags.seed ?? '20260808', { min: 0 }),
    landmark: wholeNumber('--landmark', flags.landmark ?? '4', { min: 1 }),
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
  process.stdout.write(
    flags.json
      ? analysisDocument(results, warnings)
      : (warnings.length ? warnings.join('\n') + '\n\n' : '') + analysisText(results, { width: outputWidth(flags.wide) }),
  );
}
