// `revloop report`: one self-contained HTML file (no network) with the endpoint tables, curves,
// failure composition, budget replay, every other study's sections and a per-trajectory browser.
// A thin shell over app/report.ts; the store is opened read-only.
import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError, UserError } from '../../core/errors.ts';
import { baseLabel } from '../../core/simulated.ts';
import { parsePanels, STORE_HELP, storeFlag, wholeNumber, MAX_BUDGET } from '../flags.ts';
import { lineProgress } from '../progress.ts';
import { isStdout } from '../stdio.ts';
import { formatCount } from '../../core/util/count.ts';

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
  allowUnverified?: boolean;
}

export function register(program: Command): void {
  program
    .command('report')
    .description('write one self-contained HTML report (tables, curves, failure bars, budget replay, trajectory drill-down)')
    .argument('[runs...]', 'run ids to include (same as --run; default: every run in the store)')
    .option('--store <location>', STORE_HELP)
    .option('--run <id...>', 'include only these runs (repeatable)')
    .option('-o, --out <file>', "the HTML file to write ('-' = standard output)")
    .option('--title <text>', 'report title', 'revloop report')
    .option('--budget <T>', "largest revision cap for curves and budget replay (default: the runs' budget)")
    .option('--bootstrap <B>', 'bootstrap resamples for the 95% intervals; 0 switches them off', '20000')
    .option('--seed <S>', 'bootstrap seed', '20260808')
    .option('--panel <controller=panel...>', 'put a controller in a named panel (reversals and panel means are within panels)')
    .option('--no-timestamp', 'leave the generation time out (byte-reproducible output)')
    .option('--no-progress', 'do not report progress on stderr')
    .option('--allow-unverified', 'report runs whose chain or tables disagree with their events (refused by default); the report says so')
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
  const store = storeFlag(flags.store, 'report');
  if (!flags.out) throw new UsageError('--out', 'report: -o/--out <file> is required (where to write the HTML report)');
  const toStdout = isStdout(flags.out);
  const out = resolve(flags.out);
  if (!toStdout && (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory()))
    throw new UserError(`report: cannot write ${flags.out}: folder ${dirname(out)} does not exist`);
  if (!toStdout && existsSync(out) && statSync(out).isDirectory())
    throw new UserError(`report: ${flags.out} is a folder; give a file name such as ${flags.out}/report.html`);
  const quiet = flags.progress === false;
  const stderr = process.stderr;
  const lines: { bootstrap?: ReturnType<typeof lineProgress>; rendering?: ReturnType<typeof lineProgress> } = {};
  const { buildStoreReport } = await import('../../app/report.ts');
  const { writeReportFile } = await import('../../report/index.ts');
  const report = await buildStoreReport(store, {
    runIds: [...positional, ...(flags.run ?? [])],
    budget: wholeNumber('--budget', flags.budget, { min: 0, max: MAX_BUDGET }),
    bootstrap: wholeNumber('--bootstrap', flags.bootstrap ?? '20000', { min: 0 }),
    seed: wholeNumber('--seed', flags.seed ?? '20260808', { min: 0 }),
    panels: parsePanels('report', flags.panel ?? []),
    title: flags.title,
    allowUnverified: flags.allowUnverified,
    generatedAt: flags.timestamp === false ? undefined : new Date().toISOString(),
    say: (line) => {
      if (quiet) return;
      lines.bootstrap?.finish(); // end a pending progress line before a status line
      stderr.write(`${line}\n`);
    },
    onProgress: quiet
      ? undefined
      : (p) => (lines.bootstrap ??= lineProgress(stderr, 'report', { unit: ' resamples/s' })).update(p.done, p.total),
    onRenderProgress: quiet
      ? undefined
      : (done, total) => (lines.rendering ??= lineProgress(stderr, 'report', { unit: ' trajectories/s' })).update(done, total),
  });
  lines.bootstrap?.finish();
  lines.rendering?.finish();
  if (toStdout) process.stdout.write(report.html);
  else writeReportFile(out, report.html);
  const simulated = report.simulatedControllers.length
    ? ` — includes SIMULATED controllers: ${report.simulatedControllers.map(baseLabel).join(', ')}`
    : '';
  // With -o - the HTML is the only thing on standard output.
  const say = toStdout ? process.stderr : process.stdout;
  for (const w of report.warnings) process.stderr.write(`revloop: ${w}\n`);
  say.write(
    `wrote ${toStdout ? 'standard output' : flags.out} (${(Buffer.byteLength(report.html) / 1e6).toFixed(1)} MB, ${formatCount(report.trajectories)} trajectories)${simulated}\n`,
  );
  // Each run's head, to keep: `audit --expect-head` holds a later log against it.
  const { headLine } = await import('../heads.ts');
  for (const [runId, head] of report.heads) say.write(`${headLine(store, runId, head)}\n`);
}
