// `revloop report`: one self-contained HTML file (no network) with the endpoint tables, curves,
// failure composition, budget replay and a per-trajectory drill-down. A thin shell over
// src/report and src/analysis; the store is opened read-only.
import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from '../../core/errors.ts';
import { intFlag, parsePanels, progressLine } from '../flags.ts';

interface ReportFlags {
  store?: string;
  run?: string[];
  out?: string;
  title?: string;
  budget?: string;
  bootstrap?: string;
  seed?: string;
  panel?: string[];
  timestamp?: boolean;
  progress?: boolean;
}

export function register(program: Command): void {
  program
    .command('report')
    .description('write one self-contained HTML report (tables, curves, failure bars, budget replay, trajectory drill-down)')
    .argument('[runs...]', 'run ids to include (same as --run; default: every run in the store)')
    .option('--store <db>', 'the run store (SQLite file)')
    .option('--run <id...>', 'include only these runs (repeatable)')
    .option('-o, --out <file>', 'the HTML file to write')
    .option('--title <text>', 'report title', 'revloop report')
    .option('--budget <T>', "largest revision cap for curves and budget replay (default: the runs' budget)")
    .option('--bootstrap <B>', 'bootstrap resamples for the 95% intervals; 0 switches them off', '20000')
    .option('--seed <S>', 'bootstrap seed', '20260808')
    .option('--panel <controller=panel...>', 'put a controller in a named panel (reversals and panel means are within panels)')
    .option('--no-timestamp', 'leave the generation time out (byte-reproducible output)')
    .option('--no-progress', 'do not report progress on stderr')
    .addHelpText(
      'after',
      '\nThe file needs no network: open it directly in a browser. Simulated (sim:) controllers are marked\n' +
        'SIMULATED wherever their numbers appear. See docs/report.md.',
    )
    .action(async (runs: string[], flags: ReportFlags) => {
      await reportAction(runs, flags);
    });
}

async function reportAction(positional: string[], flags: ReportFlags): Promise<void> {
  if (!flags.store) throw new UserError('report: --store <db> is required (the SQLite run store written by `revloop run`)');
  if (!flags.out) throw new UserError('report: -o/--out <file> is required (where to write the HTML report)');
  const out = resolve(flags.out);
  if (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory())
    throw new UserError(`report: cannot write ${flags.out}: folder ${dirname(out)} does not exist`);
  if (existsSync(out) && statSync(out).isDirectory())
    throw new UserError(`report: ${flags.out} is a folder; give a file name such as ${flags.out}/report.html`);
  const analysisOptions = {
    budget: flags.budget === undefined ? undefined : intFlag('report', '--budget', flags.budget, 0),
    bootstrap: intFlag('report', '--bootstrap', flags.bootstrap ?? '20000', 0),
    seed: intFlag('report', '--seed', flags.seed ?? '20260808', 0),
    panels: parsePanels('report', flags.panel ?? []),
  };
  const { buildStoreReport } = await import('../../app/report.ts');
  const { writeReportFile } = await import('../../report/index.ts');
  const progress = flags.progress === false ? undefined : progressLine('report', 'bootstrap resamples');
  const say = (line: string) => {
    if (flags.progress === false) return;
    progress?.done(); // end a pending progress line before a status line
    process.stderr.write(`${line}\n`);
  };
  let rendering: ReturnType<typeof progressLine> | undefined;
  const { html, trajectories, analysis } = await buildStoreReport(flags.store, {
    ...analysisOptions,
    runIds: [...positional, ...(flags.run ?? [])],
    title: flags.title,
    generatedAt: flags.timestamp === false ? undefined : new Date().toISOString(),
    say,
    onAnalysisProgress: progress?.update,
    onRenderProgress: (done, total) => {
      if (flags.progress === false) return;
      rendering ??= progressLine('report', 'trajectories');
      rendering.update({ done, total });
    },
  });
  progress?.done();
  rendering?.done();
  writeReportFile(out, html);
  const simulated = analysis.simulated_controllers.length
    ? ` — includes SIMULATED controllers: ${analysis.simulated_controllers.join(', ')}`
    : '';
  process.stdout.write(
    `wrote ${flags.out} (${(Buffer.byteLength(html) / 1e6).toFixed(1)} MB, ${trajectories.toLocaleString('en')} trajectories)${simulated}\n`,
  );
}
