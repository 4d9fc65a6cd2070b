// `revloop audit`: replay a run from its events and report every discrepancy (app/audit.ts).
import type { Command } from 'commander';
import { oneRun } from '../flags.ts';
import { jsonOutput } from '../json.ts';
import { jsonOption, pluginOption, runOption, storeOption } from '../options.ts';
import { redactLocation } from '../../store/store.ts';
import { fitted } from '../terminal.ts';
import { UsageError } from '../../core/errors.ts';

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
    .addOption(runOption('run id'))
    .addOption(storeOption({ readOnly: true }))
    .addOption(jsonOption('print the report as JSON'))
    .option(
      '--expect-head <sha256>',
      'the log must hold this event hash (a head printed earlier by run, export or report): finds a log shortened or rewritten since',
    )
    .addOption(pluginOption())
    .action(
      async (runArg: string | undefined, opts: { run?: string; store: string; json?: boolean; plugin?: string[]; expectHead?: string }) => {
        const run = oneRun('audit', runArg, opts.run, 'revloop audit --store DB --run ID; `revloop runs --store DB` lists them');
        if (opts.expectHead !== undefined && !/^\s*[0-9a-fA-F]{64}\s*$/.test(opts.expectHead))
          throw new UsageError(
            `--expect-head must be a 64-digit hex SHA-256 (a head printed by run, export or report), got '${opts.expectHead}'`,
            { option: '--expect-head' },
          );
        const { loadFamilyPlugins } = await import('../../core/verify/plugins.ts');
        await loadFamilyPlugins(opts.plugin);
        const { auditStoredRun } = await import('../../app/audit.ts');
        const { formatDiscrepancy } = await import('../../engine/audit.ts');
        const store = opts.store;
        const report = await auditStoredRun(store, run, { expectHead: opts.expectHead });
        const out = fitted(process.stdout);
        if (opts.json) {
          const discrepancies = report.discrepancies.map((d) => ({ ...d, message: formatDiscrepancy(d) }));
          process.stdout.write(jsonOutput({ ...report, discrepancies }));
        } else {
          out.write(
            `audit of run '${run}' in ${redactLocation(store)}: ${report.events} events, ${report.trajectories} trajectories, ${report.rounds} rounds replayed\n`,
          );
          for (const n of report.notes) out.write(`note: ${n}\n`);
          if (report.passed) {
            out.write(
              report.trajectories || !report.notes.length
                ? 'PASS: event chain intact; every verifier state, energy, joint flag and feedback replays; revisions contiguous; stop rule and final flags hold; tables equal a fresh reduction\n'
                : 'PASS: event chain intact; plan hash recomputes\n',
            );
            if (report.head) {
              const { headLine } = await import('../heads.ts');
              process.stdout.write(`${headLine(store, run, report.head)}\n`);
            }
          } else {
            const shown = report.discrepancies.slice(0, 200);
            for (const d of shown) out.write(`${formatDiscrepancy(d)}\n`);
            if (report.discrepancies.length > shown.length) out.write(`… and ${report.discrepancies.length - shown.length} more\n`);
            out.write(`FAIL: ${report.discrepancies.length} discrepanc${report.discrepancies.length === 1 ? 'y' : 'ies'}\n`);
          }
        }
        if (!report.passed) process.exitCode = 1;
      },
    );
}
