// `revloop runs`: every run in a store with status and counts, one table per study (each study
// describes its own runs; app/runs.ts). Simulated runs are marked SIMULATED.
import type { Command } from 'commander';
import { markedName } from '../../core/simulated.ts';
import { outputWidth } from '../terminal.ts';

export function register(program: Command): void {
  program
    .command('runs')
    .summary('list the runs in a store (revision, probe, agent, …) with status and counts')
    .description(
      'Lists every run in a store, one table per study (revision runs and imports, probe runs, agent rollout runs, …), with status and counts. ' +
        'Runs of simulated controllers are marked SIMULATED. The store is opened read-only, so it is safe while a run writes. ' +
        'Tables fit the terminal (cells wrapped, the least important columns left out and named); --wide shows every column at full width.',
    )
    .option('--store <db>', 'SQLite store file', 'runs.db')
    .option('--json', 'print one JSON array of run summaries; `kind` tells the runs apart (run, import, probe, agent, …)')
    .option('--wide', 'every column at full width (default: fitted to the terminal)')
    .action(async (opts: { store: string; json?: boolean; wide?: boolean }) => {
      await runsAction({ ...opts, width: outputWidth(opts.wide) }, process.stdout);
    });
}

export async function runsAction(o: { store: string; json?: boolean; width?: number }, out: { write(s: string): unknown }): Promise<void> {
  const { listRuns } = await import('../../app/runs.ts');
  const listing = await listRuns(o.store);
  const all = [...listing.groups.flatMap((g) => g.runs), ...listing.unknown];
  if (o.json) {
    out.write(
      JSON.stringify(
        all.map((r) => r.json),
        null,
        2,
      ) + '\n',
    );
    return;
  }
  if (!all.length) {
    out.write(`no runs in ${o.store}\n`);
    return;
  }
  const { TextTable } = await import('../../studies/kit/text-table.ts');
  const left = new Set<string>();
  const blocks = listing.groups.map((g) => {
    const table = new TextTable(['run', 'status', 'model', ...g.columns], { width: o.width, optional: g.optional });
    for (const r of g.runs) table.push([r.runId, r.status, markedName(r.controller, r.simulated), ...r.cells]);
    const text = table.toString();
    for (const d of table.dropped) left.add(d);
    return `${g.study} runs (${g.runs.length}):\n${text}`;
  });
  if (listing.unknown.length)
    blocks.push(
      `runs of kinds this revloop does not know (${listing.unknown.length}): ${listing.unknown.map((r) => `${r.runId} (${r.kind})`).join(', ')}`,
    );
  out.write(blocks.join('\n\n') + '\n');
  if (left.size) out.write(`(left out to fit ${o.width} columns: ${[...left].join(', ')}; --wide shows them)\n`);
  if (all.some((r) => r.simulated))
    out.write('SIMULATED rows come from simulated controllers: they describe simulations, not language models.\n');
}
