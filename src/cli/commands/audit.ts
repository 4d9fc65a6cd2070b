// `revloop audit`: replay a run from its events and report every discrepancy. Logic: src/store/audit.ts.
import type { Command } from 'commander';
import { collect, oneRun } from '../flags.ts';

export function register(program: Command): void {
  program
    .command('audit')
    .summary('replay a run from its stored texts and check chain, states, stop rule and flags')
    .description(
      'Re-hashes the event chain, replays every verifier state from the stored text, checks revision ' +
        'continuity, the stop rule (no continuation after success; the full budget when unresolved), final ' +
        'flags, that accepted drafts came from successful attempts, that the messages sent were the ' +
        "protocol's, and that the derived tables equal a fresh reduction. Exit 1 naming case, revision and field.",
    )
    .argument('[run]', 'run id (or use --run)')
    .option('--run <id>', 'run id')
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--json', 'print the report as JSON')
    .option('--plugin <module>', 'load a module that registers more families (repeatable)', collect, [])
    .action(async (runArg: string | undefined, opts: { run?: string; store: string; json?: boolean; plugin: string[] }) => {
      const run = oneRun('audit', runArg, opts.run, 'revloop audit --store DB --run ID; `revloop runs --store DB` lists them');
      const { loadFamilyPlugins } = await import('../../core/verify/index.ts');
      await loadFamilyPlugins(opts.plugin);
      const { auditCommand } = await import('../../app/store-commands.ts');
      const { code } = auditCommand({ ...opts, run }, process.stdout);
      if (code) process.exitCode = code;
    });
}
