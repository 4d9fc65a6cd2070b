// `revloop import-trajectories`: store trajectories produced elsewhere as a run (app/import.ts).
import { Option, type Command } from 'commander';
import { addOptionWithAliases, budgetOption, pluginOption, runOption, storeOption } from '../options.ts';
import { printable } from '../../core/util/printable.ts';
import { redactLocation } from '../../store/store.ts';
import { nextCommands } from '../invocation.ts';
import { inputPath } from '../stdio.ts';
import { fitted } from '../terminal.ts';

interface ImportFlags {
  store: string;
  run?: string;
  budget?: number;
  inputFormat: 'jsonl' | 'collie-log';
  collie?: string;
  controller?: string;
  plugin?: string[];
}

export function register(program: Command): void {
  const cmd = program
    .command('import-trajectories')
    .summary('verify and store trajectories produced elsewhere (JSON Lines or a COLLIE log) as a run')
    .description(
      'Each JSON line: {"id", "controller", "family", "case_id", "source", "targets" | "target"+"anchors", "drafts": [text, …]}. ' +
        'Every draft is stripped and verified; the stop rule drops drafts after the first success (counted). ' +
        'With --input-format collie-log, FILE is a COLLIE multi-round generation log and --collie maps its prompts ' +
        'to COLLIE instances (collie_all.jsonl). See docs/running.md.',
    )
    .argument('<file>', "import file ('-' = standard input)")
    .addOption(storeOption());
  addOptionWithAliases(cmd, runOption('run id (default: the file name)'), '--run-id');
  // The same budget T as `revloop run --budget`: what a run with that budget would have generated is kept.
  cmd.addOption(
    budgetOption(
      undefined,
      'the revision budget T of the import: drafts beyond T+1 are dropped; an unresolved trajectory with fewer is protocol-incomplete (default: none)',
    ),
  );
  addOptionWithAliases(
    cmd,
    new Option('--input-format <kind>', 'jsonl (the schema above) | collie-log (a COLLIE multi-round generation log)')
      .choices(['jsonl', 'collie-log'])
      .default('jsonl'),
    '--from',
  );
  cmd
    .option(
      '--collie <file>',
      "collie_all.jsonl (for --input-format collie-log; default: ../shared/data/collie/collie_all.jsonl when present; '-' = standard input)",
    )
    .option('--controller <name>', 'controller name for --input-format collie-log (default: from the log file name)')
    .addOption(pluginOption())
    .action(async (file: string, opts: ImportFlags) => {
      const { loadFamilyPlugins } = await import('../../core/verify/plugins.ts');
      await loadFamilyPlugins(opts.plugin);
      const { importRun } = await import('../../app/import.ts');
      const out = fitted(process.stdout);
      const budget = opts.budget;
      const store = opts.store;
      const shown = redactLocation(store);
      const s = await importRun({
        file: await inputPath(file, 'import-trajectories', 'stdin.jsonl'),
        store,
        runId: opts.run ?? (file === '-' ? 'stdin' : undefined),
        budget,
        from: opts.inputFormat,
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
        `imported run '${printable(s.runId)}' into ${shown}: ${s.trajectories} trajectories (${s.controllers.map(printable).join(', ')}), ${s.draftsSupplied} drafts supplied, ${s.roundsStored} rounds stored\n` +
          `  stop rule: ${s.droppedAfterSuccess} drafts after a first success dropped (in ${s.truncatedTrajectories} trajectories)` +
          `${budget !== undefined ? `; ${s.droppedBeyondBudget} beyond budget ${budget} dropped` : ''}\n` +
          `  ${s.successes} joint successes, ${s.incomplete} protocol-incomplete\n` +
          nextCommands([
            ['audit', '--store', shown, '--run', s.runId],
            ['analyze', '--store', shown, s.runId],
          ]),
      );
    });
}
