// `revloop export`: a run in the paper's per-case schema. Logic: src/store/export-paper.ts.
import type { Command } from 'commander';
import { oneRun } from '../flags.ts';

export function register(program: Command): void {
  program
    .command('export')
    .summary("write a run in the paper's per-case JSON Lines schema")
    .argument('[run]', 'run id (or use --run)')
    .option('--run <id>', 'run id')
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--format <name>', 'paper (PROTOCOL §1.6, Python json.dumps bytes)', 'paper')
    .requiredOption('-o, --output <file>', 'output file (written atomically)')
    .option('--partial', 'export the finished trajectories of an unfinished run')
    .action(
      async (runArg: string | undefined, opts: { run?: string; store: string; format: string; output: string; partial?: boolean }) => {
        const run = oneRun('export', runArg, opts.run, 'revloop export --store DB --run ID -o FILE');
        const { exportCommand } = await import('../../app/store-commands.ts');
        await exportCommand({ ...opts, run }, process.stdout);
      },
    );
}
