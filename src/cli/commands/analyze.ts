// `revloop analyze`: the paper's analyses over stored trajectories, as terminal tables or one strict
// JSON document. A thin shell over src/analysis; the store is opened read-only.
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';
import { intFlag, parsePanels, progressLine } from '../flags.ts';

interface AnalyzeFlags {
  store?: string;
  run?: string[];
  json?: boolean;
  budget?: string;
  bootstrap?: string;
  seed?: string;
  landmark?: string;
  panel?: string[];
  progress?: boolean;
}

export function register(program: Command): void {
  program
    .command('analyze')
    .description(
      'endpoint tables with bootstrap CIs, cumulative success, budget replay, failure taxonomy, hazards, McNemar/Holm and the rescue regression',
    )
    .argument('[runs...]', 'run ids to analyse (same as --run; default: every run in the store)')
    .option('--store <db>', 'the run store (SQLite file)')
    .option('--run <id...>', 'analyse only these runs (repeatable)')
    .option('--json', 'print one JSON document (schema revloop.analysis/1) instead of tables')
    .option('--budget <T>', "largest revision cap for curves and budget replay (default: the runs' budget)")
    .option('--bootstrap <B>', 'bootstrap resamples; 0 switches intervals off', '20000')
    .option('--seed <S>', 'bootstrap seed', '20260808')
    .option('--landmark <L>', 'landmark revision of the rescue regression', '4')
    .option('--panel <controller=panel...>', 'put a controller in a named panel (pairs, reversals and panel means are within panels)')
    .option('--no-progress', 'do not report bootstrap progress on stderr')
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
  if (!flags.store) throw new UserError('analyze: --store <db> is required (the SQLite run store written by `revloop run`)');
  const options = {
    budget: flags.budget === undefined ? undefined : intFlag('analyze', '--budget', flags.budget, 0),
    bootstrap: intFlag('analyze', '--bootstrap', flags.bootstrap ?? '20000', 0),
    seed: intFlag('analyze', '--seed', flags.seed ?? '20260808', 0),
    landmark: intFlag('analyze', '--landmark', flags.landmark ?? '4', 1),
    panels: parsePanels('analyze', flags.panel ?? []),
  };
  const requested = [...positional, ...(flags.run ?? [])];
  // Probe and agent runs (src/probe/study-sections.ts) live in the same store; split them off.
  const study = await import('../../studies/study-sections.ts');
  const parts = study.partitionRunIds(flags.store, requested);
  const runIds = requested.length ? parts.revision : [];
  const { openStore } = await import('../../store/store.ts');
  const store = openStore(flags.store, { readonly: true });
  let trajectories;
  let revisionRuns: number;
  try {
    revisionRuns = store.runIds().length;
    if (!requested.length) study.assertStoreHasRuns(flags.store, revisionRuns);
    trajectories = requested.length && !runIds.length ? [] : store.loadTrajectories(runIds.length ? [...new Set(runIds)] : undefined);
  } finally {
    store.close();
  }
  const { analyzeTrajectories } = await import('../../studies/revision/analysis/analyze.ts');
  const progress = flags.progress === false ? undefined : progressLine('bootstrap', 'resamples');
  const result = analyzeTrajectories(trajectories, { ...options, onProgress: progress?.update });
  progress?.done();
  const sections = study.loadStudySections(flags.store, { resamples: options.bootstrap, seed: options.seed, runIds: parts.study });
  const revisionShown = trajectories.length > 0 || !study.hasStudySections(sections);
  if (flags.json) {
    const { analysisJson } = await import('../../studies/revision/analysis/json.ts');
    process.stdout.write(analysisJson({ ...result, ...study.studySectionsJson(sections) }));
  } else {
    const { renderAnalysis } = await import('../../studies/revision/analysis/render.ts');
    process.stdout.write((revisionShown ? renderAnalysis(result) : '') + study.renderStudySections(sections));
  }
}
