// `revloop demo`: the main job on embedded defaults (bundled cases, simulated controllers, a store,
// a summary table, a report). Logic: app/demo/demo.ts.
import type { Command } from 'commander';
import { redactLocation } from '../../store/store.ts';
import { wholeNumber } from '../flags.ts';
import { commandLine } from '../invocation.ts';
import { trajectoryProgress } from '../progress.ts';
import { interruptible } from '../signals.ts';

export function register(program: Command): void {
  program
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
      'the store: a SQLite file or postgres://user@host:port/db[?schema=name&pool=N] (default: <out>/demo.db; not $REVLOOP_STORE, so the demo never writes into a store you use)',
    )
    .option('--out <dir>', 'folder for the case file and store (default: a new temporary folder)')
    .option('--concurrency <n>', 'trajectories in flight at once', '8')
    .action(async (opts: { store?: string; out?: string; concurrency: string }) => {
      const { runDemo, demoSummary } = await import('../../app/demo/demo.ts');
      const out = process.stdout;
      const err = process.stderr;
      let progress: ReturnType<typeof trajectoryProgress> | undefined;
      const r = await interruptible(err, 'the store is consistent', (signal) =>
        runDemo(
          { store: opts.store, out: opts.out, concurrency: wholeNumber('--concurrency', opts.concurrency, { min: 1 }), signal },
          {
            onCases: (c) => {
              out.write(
                `revloop demo: ${c.cases} cases of revloop's own texts (${c.skippedStructured ? 'exact-length only' : 'all six families'}) in ${c.casesFile}\n` +
                  `store: ${redactLocation(c.store)}\n` +
                  'SIMULATED: the controllers below are simulations (sim: profiles), not language models; no number here describes a model.\n',
              );
              if (c.skippedStructured)
                out.write(
                  `note: the structured families (c05, c07, c09, c10, c12) were skipped: ${c.skippedStructured}\n  then run \`${commandLine(['demo'])}\` again for all six families.\n`,
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
      const { default: Table } = await import('cli-table3');
      const summary = demoSummary(r.runs);
      const table = new Table({
        head: ['controller (SIMULATED)', ...summary.families, 'all', 'mean rounds'],
        style: { head: [], border: [] },
      });
      for (const row of summary.rows) table.push([`sim:${row.profile} [SIMULATED]`, ...row.cells, row.all, row.meanRounds]);
      out.write(`\njoint successes within the budget of 8 revisions (SIMULATED controllers):\n${table.toString()}\n`);
      if (r.intervention) {
        const iv = r.intervention;
        const arms = new Table({ head: ['arm (SIMULATED)', 'final successes'], style: { head: [], border: [] } });
        for (const a of iv.arms) arms.push([a.arm, `${a.successes}/${a.trajectories}`]);
        out.write(
          `\nhistory intervention '${iv.runId}': ${iv.states} recurrence states of ${iv.fromRun}, each continued under every arm (docs/experiments.md):\n${arms.toString()}\n`,
        );
      }
      out.write(`\nreport: ${r.report} (open it in a browser; it needs no network)\n`);
      const db = ['--store', redactLocation(r.store)];
      out.write(
        '\nnext:\n' +
          `  ${commandLine(['runs', ...db])}\n` +
          `  ${commandLine(['audit', ...db, '--run', r.runIds[0]])}\n` +
          `  ${commandLine(['analyze', ...db])}\n` +
          `  ${commandLine(['report', ...db, '-o', 'my-report.html'])}\n` +
          `  ${commandLine(['export', ...db, '--run', r.runIds[0], '--format', 'paper', '-o', `${r.runIds[0]}.jsonl`])}\n` +
          `  ${commandLine(['run', '--cases', r.casesFile, '--model', '<your model spec>', ...db])}   (a real model: see docs/running.md)\n` +
          (r.intervention
            ? `  ${commandLine(['experiment', 'history', ...db, '--from-run', r.intervention.fromRun, '--model', '<your model spec>', '--run-id', 'my-history'])}   (docs/experiments.md)\n`
            : ''),
      );
    });
}
