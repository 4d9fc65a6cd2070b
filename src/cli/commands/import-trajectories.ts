// `revloop import-trajectories`: store trajectories produced elsewhere as a run (app/import.ts).
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { collect, STORE_HELP, storeFlag, wholeNumber, MAX_BUDGET } from '../flags.ts';
import { redactLocation } from '../../store/store.ts';
import { commandLine } from '../invocation.ts';
import { inputPath } from '../stdio.ts';

interface ImportFlags {
  store?: string;
  runId?: string;
  budget?: string;
  from: string;
  collie?: string;
  controller?: string;
  plugin: string[];
}

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
    .argument('<file>', "import file ('-' = standard input)")
    .option('--store <location>', STORE_HELP)
    .option('--run-id <id>', 'run id (default: the file name)')
    .option('--budget <T>', 'common budget: drafts beyond T+1 dropped; shorter unresolved trajectories are protocol-incomplete')
    .option('--from <kind>', 'jsonl | collie-log', 'jsonl')
    .option(
      '--collie <file>',
      "collie_all.jsonl (for --from collie-log; default: ../shared/data/collie/collie_all.jsonl when present; '-' = standard input)",
    )
    .option('--controller <name>', 'controller name for --from collie-log (default: from the log file name)')
    .option('--plugin <module>', 'load a module that registers more families (repeatable)', collect, [])
    .action(async (file: string, opts: ImportFlags) => {
      if (opts.from !== 'jsonl' && opts.from !== 'collie-log')
        throw new UsageError('--from', `--from: unknown input '${opts.from}'; use jsonl or collie-log`);
      const { loadFamilyPlugins } = await import('../../core/verify/plugins.ts');
      await loadFamilyPlugins(opts.plugin);
      const { importRun } = await import('../../app/import.ts');
      const out = process.stdout;
      const budget = wholeNumber('--budget', opts.budget, { min: 0, max: MAX_BUDGET });
      const store = storeFlag(opts.store);
      const shown = redactLocation(store);
      const s = await importRun({
        file: await inputPath(file, 'import-trajectories', 'stdin.jsonl'),
        store,
        runId: opts.runId ?? (file === '-' ? 'stdin' : undefined),
        budget,
        from: opts.from,
        collie: opts.collie === undefined ? undefined : await inputPath(opts.collie, '--collie', 'collie_all.jsonl'),
        controller: opts.controller,
        onConverted: (conv, collie) => {
          const skipped = Object.entries(conv.unsupported)
            .map(([st, n]) => `${st} ${n}`)
            .join(', ');
          out.write(
            `${file}: ${conv.prompts} prompts, rounds ${conv.roundKeys.join(', ')}; ${conv.lines.length} mapped to runnable COLLIE cases` +
              `${skipped ? `; skipped (structure without a family): ${skipped}` : ''}${conv.ambiguous ? `; ${conv.ambiguous} ambiguous` : ''}${conv.unmatched ? `; ${conv.unmatched} not in ${collie}` : ''}\n`,
          );
        },
      });
      out.write(
        `imported run '${s.runId}' into ${shown}: ${s.trajectories} trajectories (${s.controllers.join(', ')}), ${s.draftsSupplied} drafts supplied, ${s.roundsStored} rounds stored\n` +
          `  stop rule: ${s.droppedAfterSuccess} drafts after a first success dropped (in ${s.truncatedTrajectories} trajectories)` +
          `${budget !== undefined ? `; ${s.droppedBeyondBudget} beyond budget ${budget} dropped` : ''}\n` +
          `  ${s.successes} joint successes, ${s.incomplete} protocol-incomplete\n` +
          `next: ${commandLine(['audit', '--store', shown, '--run', s.runId])} · ${commandLine(['analyze', '--store', shown, s.runId])}\n`,
      );
    });
}
