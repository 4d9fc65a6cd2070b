// `revloop export`: a run in the paper's per-case schema (app/export.ts).
import type { Command } from 'commander';
import { oneRun, STORE_HELP, storeFlag } from '../flags.ts';
import { isStdout } from '../stdio.ts';

export function register(program: Command): void {
  program
    .command('export')
    .summary("write a run in the paper's per-case JSON Lines schema")
    .argument('[run]', 'run id (or use --run)')
    .option('--run <id>', 'run id')
    .option('--store <location>', STORE_HELP)
    .option('--format <name>', 'paper (docs/protocol.md, Python json.dumps bytes)', 'paper')
    .requiredOption('-o, --output <file>', "output file (written atomically; '-' = standard output)")
    .option('--partial', 'export the finished trajectories of an unfinished run')
    .option('--allow-unverified', 'export a run whose chain or tables disagree with its events (refused by default); says so on stderr')
    .action(
      async (
        runArg: string | undefined,
        opts: { run?: string; store?: string; format: string; output: string; partial?: boolean; allowUnverified?: boolean },
      ) => {
        const run = oneRun('export', runArg, opts.run, 'revloop export --store DB --run ID -o FILE');
        const { exportRun } = await import('../../app/export.ts');
        const toStdout = isStdout(opts.output);
        const r = await exportRun({
          store: storeFlag(opts.store),
          runId: run,
          format: opts.format as 'paper',
          output: toStdout ? null : opts.output,
          partial: opts.partial,
          allowUnverified: opts.allowUnverified,
        });
        // With -o - the rows are the only thing on stdout; notes go to stderr.
        const say = toStdout ? process.stderr : process.stdout;
        for (const w of r.warnings) process.stderr.write(`revloop: ${w}\n`);
        if (r.simulated) say.write(`note: run '${run}' is SIMULATED; its rows describe a simulated controller\n`);
        if (toStdout) process.stdout.write(r.text!);
        else say.write(`wrote ${r.rows} rows to ${opts.output}\n`);
        // The run's head, to keep: `audit --expect-head` holds a later log against it.
        if (r.head) {
          const { headLine } = await import('../heads.ts');
          say.write(`${headLine(storeFlag(opts.store), run, r.head)}\n`);
        }
      },
    );
}
