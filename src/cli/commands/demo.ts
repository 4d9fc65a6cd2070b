// `revloop demo`: the main job on embedded defaults (bundled cases, simulated controllers, a store,
// a summary table, a report). Logic: app/demo/demo.ts.
import type { Command } from 'commander';
import { join } from 'node:path';
import { redactLocation } from '../../store/store.ts';
import { addOptionWithAliases, concurrencyOption, outDirOption } from '../options.ts';
import { DEMO_DEFAULTS } from '../../app/defaults.ts';
import { PAPER_PROTOCOL } from '../../engine/protocol.ts';
import { commandLine, layOutCommand, nextCommands } from '../invocation.ts';
import { trajectoryProgress } from '../progress.ts';
import { interruptible } from '../signals.ts';
import { fitted, outputWidth } from '../terminal.ts';

export function register(program: Command): void {
  const cmd = program
    .command('demo')
    .summary('run the main job on bundled cases with simulated controllers (start here)')
    .description(
      "Writes revloop's own demo case set (30 cases across the six families), runs three simulated " +
        'controllers (sim:steady, sim:overshoot, sim:stubborn) through the real engine and store, prints a ' +
        "summary table labelled SIMULATED, runs a small matched-state history intervention on the stubborn controller's " +
        'recurrence events (docs/experiments.md), writes the report, and shows the next commands (runs, audit, analyze, report, export).',
    )
    .option(
      '--store <location>',
      'the store: a SQLite file or postgres://user@host:port/db[?schema=name&pool=N] (default: <out-dir>/demo.db; not $REVLOOP_STORE, so the demo never writes into a store you use)',
    );
  addOptionWithAliases(cmd, outDirOption('folder for the case file, the store and the report (default: a new temporary folder)'), '--out');
  const concurrency = concurrencyOption(DEMO_DEFAULTS.concurrency);
  cmd.addOption(concurrency).action(async (opts: { store?: string; outDir?: string; concurrency: number }) => {
    const { runDemo, demoSummary } = await import('../../app/demo/demo.ts');
    const out = fitted(process.stdout);
    const err = process.stderr;
    let progress: ReturnType<typeof trajectoryProgress> | undefined;
    const r = await interruptible(err, 'the store is consistent', (signal) =>
      runDemo(
        { store: opts.store, out: opts.outDir, concurrency: opts.concurrency, signal },
        {
          onCases: (c) => {
            out.write(
              `revloop demo: ${c.cases} cases of revloop's own texts (${c.skippedStructured ? 'exact-length only' : 'all six families'}) in ${c.casesFile}\n` +
                `store: ${redactLocation(c.store)}\n` +
                'SIMULATED: the controllers below are simulations (sim: profiles), not language models; no number here describes a model.\n',
            );
            if (c.skippedStructured)
              out.write(
                `note: the structured families (c05, c07, c09, c10, c12) were skipped: ${c.skippedStructured}\n` +
                  `  then run this again for all six families:\n${layOutCommand(commandLine(['demo']), 4)}\n`,
              );
          },
          onRunStart: (runId) => {
            err.write(`${runId}:\n`);
            progress = trajectoryProgress(err, { simulated: true, label: runId });
          },
          onProgress: (_runId, p) => progress?.update(p),
          onRunEnd: () => progress?.finish(),
        },
      ),
    );
    const { TextTable } = await import('../../studies/kit/text-table.ts');
    const width = outputWidth();
    const summary = demoSummary(r.runs);
    const table = new TextTable(['controller (SIMULATED)', ...summary.families, 'all', 'mean rounds'], { width, compact: true });
    for (const row of summary.rows) table.push([`sim:${row.profile} [SIMULATED]`, ...row.cells, row.all, row.meanRounds]);
    out.write(`\njoint successes within the budget of ${PAPER_PROTOCOL.budget} revisions (SIMULATED controllers):\n${table.toString()}\n`);
    if (r.intervention) {
      const iv = r.intervention;
      const arms = new TextTable(['arm (SIMULATED)', 'final successes'], { width, compact: true });
      for (const a of iv.arms) arms.push([a.arm, `${a.successes}/${a.trajectories}`]);
      out.write(
        `\nhistory intervention '${iv.runId}': ${iv.states} recurrence states of ${iv.fromRun}, each continued under every arm (docs/experiments.md):\n${arms.toString()}\n`,
      );
    }
    out.write(`\nreport: ${r.report} (open it in a browser; it needs no network)\n\n`);
    const db = ['--store', redactLocation(r.store)];
    const steady = r.runIds[0];
    out.write(
      nextCommands([
        ['runs', ...db],
        ['audit', ...db, '--run', steady],
        ['analyze', ...db],
        ['report', ...db, '-o', join(r.outDir, 'my-report.html')],
        ['export', ...db, '--run', steady, '-o', join(r.outDir, `${steady}.jsonl`)],
        'with a real model (docs/running.md):',
        ['run', '--cases', r.casesFile, '--model', '<your model spec>', ...db],
        ...(r.intervention
          ? [
              'a history intervention of your own (docs/experiments.md):',
              ['experiment', 'history', ...db, '--from-run', r.intervention.fromRun, '--model', '<your model spec>', '--run', 'my-history'],
            ]
          : []),
      ]),
    );
  });
}
