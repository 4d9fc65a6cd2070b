// `revloop import-trajectories`: store trajectories produced elsewhere as a run. Logic: src/store/import.ts.
import type { Command } from 'commander';
import { collect } from '../flags.ts';

export function register(program: Command): void {
  program
    .command('import-trajectories')
    .summary('verify and store trajectories produced elsewhere (JSON Lines or a COLLIE log) as a run')
    .description(
      'Each JSON line: {"id", "controller", "family", "case_id", "source", "targets" | "target"+"anchors", "drafts": [text, …]}. ' +
        'Every draft is stripped and verified; the stop rule drops drafts after the first success (counted). ' +
        'With --from collie-log, FILE is a COLLIE multi-round generation log and --collie maps its prompts ' +
        'to COLLIE instances (collie_all.jsonl). See docs/running.md.',
    )
    .argument('<file>', 'import file')
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--run-id <id>', 'run id (default: the file name)')
    .option('--budget <T>', 'common budget: drafts beyond T+1 dropped; shorter unresolved trajectories are protocol-incomplete')
    .option('--from <kind>', 'jsonl | collie-log', 'jsonl')
    .option('--collie <file>', 'collie_all.jsonl (for --from collie-log; default: ../shared/data/collie/collie_all.jsonl when present)')
    .option('--controller <name>', 'controller name for --from collie-log (default: from the log file name)')
    .option('--plugin <module>', 'load a module that registers more families (repeatable)', collect, [])
    .action(async (file: string, opts: Record<string, string> & { plugin: string[] }) => {
      const { loadFamilyPlugins } = await import('../../core/verify/index.ts');
      await loadFamilyPlugins(opts.plugin);
      const { importCommand } = await import('../../app/store-commands.ts');
      await importCommand(file, opts as never, process.stdout);
    });
}
