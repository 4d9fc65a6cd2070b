// `revloop report`: one self-contained HTML file (no network) with the endpoint tables, curves,
// failure composition, budget replay, every other study's sections and a per-trajectory browser.
// A thin shell over app/report.ts; the store is opened read-only.
import type { Command } from 'commander';
import { dataOnStdout } from '../output.ts';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from '../../core/errors.ts';
import { baseLabel } from '../../core/simulated.ts';
import { parsePanels } from '../flags.ts';
import { addHelpAfter } from '../help.ts';
import {
  addOptionWithAliases,
  bootstrapOption,
  bootstrapSeedOption,
  maxCapOption,
  noProgressOption,
  outputOption,
  requireStore,
  runOption,
  storeOption,
} from '../options.ts';
import { ANALYSIS_DEFAULTS } from '../../studies/revision/analysis/defaults.ts';
import { DEFAULT_REPORT_TITLE } from '../../studies/kit/report-model.ts';
import { lineProgress } from '../progress.ts';
import { isStdout } from '../stdio.ts';
import { formatCount } from '../../core/util/count.ts';

interface ReportFlags {
  store?: string;
  run?: string[];
  output: string;
  title: string;
  maxCap?: number;
  bootstrap: number;
  seed: number;
  panel?: string[];
  timestamp?: boolean;
  progress?: boolean;
  allowUnverified?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('report')
    .summary('write one self-contained HTML report of the runs in a store')
    .description(
      'One self-contained HTML file (no network): tables, curves, failure bars, budget replay, every study’s sections and a trajectory drill-down. ' +
        'The store is opened read-only; the store and the output are checked before any work.',
    )
    .argument('[runs...]', 'run ids to include (same as --run; default: every run in the store)')
    .addOption(storeOption({ required: true, readOnly: true }))
    .addOption(runOption('include only these runs (repeatable)', { many: true }));
  addOptionWithAliases(cmd, outputOption("the HTML file to write ('-' = standard output)", { required: true }), '--out');
  cmd.option('--title <text>', 'report title', DEFAULT_REPORT_TITLE);
  addOptionWithAliases(cmd, maxCapOption(), '--budget');
  cmd
    .addOption(bootstrapOption(ANALYSIS_DEFAULTS.bootstrap))
    .addOption(bootstrapSeedOption())
    .option('--panel <controller=panel...>', 'put a controller in a named panel (reversals and panel means are within panels)')
    .option('--no-timestamp', 'leave the generation time out (byte-reproducible output)')
    .addOption(noProgressOption())
    .option('--allow-unverified', 'report runs whose chain or tables disagree with their events (refused by default); the report says so');
  addHelpAfter(
    cmd,
    '\nThe file needs no network: open it directly in a browser. Simulated (sim:) controllers are marked SIMULATED wherever their numbers appear. See docs/report.md.',
  ).action(async (runs: string[], flags: ReportFlags) => {
    await reportAction(runs, flags);
  });
}

/** The output file is checked before any work: its folder exists and may be written, and it is no folder itself. */
function checkOutput(given: string): void {
  const out = resolve(given);
  const folder = dirname(out);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new UserError(`report: cannot write ${given}: folder ${folder} does not exist`);
  if (existsSync(out) && statSync(out).isDirectory())
    throw new UserError(`report: ${given} is a folder; give a file name such as ${given.replace(/\/+$/, '')}/report.html`);
  try {
    accessSync(existsSync(out) ? out : folder, constants.W_OK);
  } catch {
    throw new UserError(`report: cannot write ${given}: ${existsSync(out) ? 'the file' : `the folder ${folder}`} is read-only for you`);
  }
}

async function reportAction(positional: string[], flags: ReportFlags): Promise<void> {
  const store = requireStore(flags.store, 'report');
  const toStdout = isStdout(flags.output);
  if (!toStdout) checkOutput(flags.output);
  const out = resolve(flags.output);
  const quiet = flags.progress === false;
  const stderr = process.stderr;
  const lines: { bootstrap?: ReturnType<typeof lineProgress>; rendering?: ReturnType<typeof lineProgress> } = {};
  const { buildStoreReport } = await import('../../app/report.ts');
  const { writeReportFile } = await import('../../report/index.ts');
  const report = await buildStoreReport(store, {
    runIds: [...positional, ...(flags.run ?? [])],
    budget: flags.maxCap,
    bootstrap: flags.bootstrap,
    seed: flags.seed,
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
  if (toStdout) {
    dataOnStdout();
    process.stdout.write(report.html);
  } else writeReportFile(out, report.html);
  const simulated = report.simulatedControllers.length
    ? ` — includes SIMULATED controllers: ${report.simulatedControllers.map(baseLabel).join(', ')}`
    : '';
  // With -o - the HTML is the only thing on standard output.
  const say = toStdout ? process.stderr : process.stdout;
  for (const w of report.warnings) process.stderr.write(`revloop: ${w}\n`);
  say.write(
    `wrote ${toStdout ? 'standard output' : flags.output} (${(Buffer.byteLength(report.html) / 1e6).toFixed(1)} MB, ${formatCount(report.trajectories)} trajectories)${simulated}\n`,
  );
  // Each run's head, to keep: `audit --expect-head` holds a later log against it.
  const { headLine } = await import('../heads.ts');
  for (const [runId, head] of report.heads) say.write(`${headLine(store, runId, head)}\n`);
}
