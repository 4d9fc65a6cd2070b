// `revloop demo`: the main job on embedded defaults (bundled cases, simulated controllers, a store,
// a summary table). Logic: src/demo/demo.ts.
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('demo')
    .summary('run the main job on bundled cases with simulated controllers (start here)')
    .description(
      "Writes revloop's own demo case set (30 cases across the six families), runs three simulated " +
        'controllers (sim:steady, sim:overshoot, sim:stubborn) through the real engine and store, prints a ' +
        'summary table labelled SIMULATED, and shows the next commands (runs, audit, analyze, report, export).',
    )
    .option('--store <path>', 'store file (default: <out>/demo.db)')
    .option('--out <dir>', 'folder for the case file and store (default: a new temporary folder)')
    .option('--concurrency <n>', 'trajectories in flight at once', '8')
    .action(async (opts: { store?: string; out?: string; concurrency: string }) => {
      const { intOption } = await import('../../app/run.ts');
      const { runDemo } = await import('../../app/demo/demo.ts');
      await runDemo(
        { store: opts.store, out: opts.out, concurrency: intOption('concurrency', opts.concurrency, 1, 8) },
        { out: process.stdout, err: process.stderr },
      );
    });
}
