// `revloop runs`: the runs in a store with status and counts. Logic: src/store/commands.ts.
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('runs')
    .summary('list the runs in a store with status and counts')
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--json', 'print the summaries as JSON')
    .action(async (opts: { store: string; json?: boolean }) => {
      const { runsCommand } = await import('../../store/commands.ts');
      process.exitCode = runsCommand(opts, process.stdout) || undefined;
    });
}
