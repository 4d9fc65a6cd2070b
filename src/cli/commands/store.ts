// `revloop store copy`: move runs between stores (SQLite ↔ PostgreSQL) with their chains verified
// (app/store-copy.ts, docs/store.md).
import type { Command } from 'commander';
import { redactLocation } from '../../store/store.ts';
import { collect } from '../flags.ts';
import { UsageError } from '../../core/errors.ts';
import { lineProgress } from '../progress.ts';

export function register(program: Command): void {
  const store = program.command('store').summary('manage run stores (copy runs between SQLite and PostgreSQL)');
  store
    .command('copy')
    .summary('copy runs from one store to another, chains verified (SQLite ↔ PostgreSQL)')
    .description(
      'Copies every run (or those named with --run) event by event, keeping times, sequence numbers and hashes, so the copy is the same ' +
        'evidence: `audit` and `export` give the same results on both sides. Each chain is verified before anything is written. ' +
        'A run that already exists at the destination must have the same plan and the same history so far (then only the missing events ' +
        'are appended); otherwise the copy is refused, naming the run, and nothing is written. See docs/store.md.',
    )
    .requiredOption(
      '--from <location>',
      'source store: a SQLite file or postgres://user@host:port/db[?schema=name&pool=N] (opened read-only)',
    )
    .requiredOption('--to <location>', 'destination store (created if new)')
    .option('--run <id>', 'copy only this run (repeatable)', collect, [])
    .option(
      '--expect-head <hash>',
      "a run's head printed earlier (by run, export, report, audit or a copy): the copy is refused, writing nothing, unless a copied run holds that event (a source log shortened since); repeatable",
      collect,
      [],
    )
    .action(async (opts: { from: string; to: string; run: string[]; expectHead: string[] }) => {
      for (const h of opts.expectHead)
        if (!/^\s*[0-9a-fA-F]{64}\s*$/.test(h))
          throw new UsageError(`--expect-head must be a 64-digit hex SHA-256 (a head printed by run, export or report), got '${h}'`, {
            option: '--expect-head',
          });
      const { copyStore } = await import('../../app/store-copy.ts');
      const err = process.stderr;
      const checking = lineProgress(err, 'store copy: chains verified', { unit: ' runs/s' });
      const progress = lineProgress(err, 'store copy: runs written', { unit: ' runs/s' });
      const copied = await copyStore(
        { from: opts.from, to: opts.to, runIds: opts.run.length ? opts.run : undefined, expectHeads: opts.expectHead },
        {
          onChecked: (_r, i, total) => checking.update(i + 1, total),
          onRun: (_r, i, total) => progress.update(i + 1, total),
        },
      ).finally(() => {
        checking.finish();
        progress.finish();
      });
      const out = process.stdout;
      for (const r of copied) {
        out.write(
          `${r.runId}: ${r.status} (${r.copied} of ${r.events} events written)${r.head ? `; log head seq ${r.head.seq} sha256 ${r.head.hash}` : ''}\n`,
        );
        if (r.ahead)
          process.stderr.write(
            `revloop: note: run '${r.runId}' has ${r.ahead} event${r.ahead === 1 ? '' : 's'} at ${redactLocation(opts.to)} beyond the source's last (seq ${r.events}): ` +
              "either it went on there after an earlier copy, or the source's log was shortened since\n",
          );
      }
      const written = copied.reduce((n, r) => n + r.copied, 0);
      out.write(
        `copied ${copied.length} run${copied.length === 1 ? '' : 's'} (${written} events) from ${redactLocation(opts.from)} to ${redactLocation(opts.to)}; chains verified\n`,
      );
    });
}
