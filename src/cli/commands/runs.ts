// `revloop runs`: every run in a store with status and counts, one table per study (each study
// describes its own runs; app/runs.ts). Simulated runs are marked SIMULATED.
import type { Command } from 'commander';
import { markedName } from '../../core/simulated.ts';
import { printable } from '../../core/util/printable.ts';
import { outputWidth, wrapText } from '../terminal.ts';
import type { WorkerInfo } from '../../store/store.ts';
import { redactLocation } from '../../store/store.ts';
import { jsonOutput } from '../json.ts';
import { jsonOption, storeOption, wideOption } from '../options.ts';
import { UsageError } from '../../core/errors.ts';

export function register(program: Command): void {
  program
    .command('runs')
    .summary('list the runs in a store (revision, probe, agent, …) with status and counts')
    .description(
      'Lists every run in a store, one table per study (revision runs and imports, probe runs, agent rollout runs, …), with status and counts. ' +
        'Runs of simulated controllers are marked SIMULATED. On a PostgreSQL store it also lists the workers ' +
        '(alive, stopped, or gone without stopping) and the trajectories they hold under lease. ' +
        'The store is opened read-only, so it is safe while a run writes. ' +
        'Tables fit the terminal (cells wrapped, the least important columns left out and named); --wide shows every column at full width.',
    )
    .addOption(storeOption({ readOnly: true }))
    .addOption(jsonOption('print one JSON array of run summaries; `kind` tells the runs apart (run, import, probe, agent, …)'))
    .option('--workers', 'list only the workers and their leases (PostgreSQL; with --json, one JSON array of workers)')
    .addOption(wideOption())
    .option(
      '--release-lock <run>',
      "clear the run's lock when its holder is gone (a killed process on another host, a reused PID): shows holder, host and age and asks first",
    )
    .option('--yes', 'with --release-lock: do not ask (for scripts; check the holder first)')
    .action(async (opts: { store: string; json?: boolean; workers?: boolean; wide?: boolean; releaseLock?: string; yes?: boolean }) => {
      if (opts.releaseLock !== undefined) return releaseLockAction(opts.store, opts.releaseLock, !!opts.yes);
      await runsAction({ store: opts.store, json: opts.json, workers: opts.workers, width: outputWidth(opts.wide) }, process.stdout);
    });
}

/** `runs --release-lock RUN`: names the holder, asks (or takes --yes), then clears a stale lock. */
async function releaseLockAction(store: string, runId: string, yes: boolean): Promise<void> {
  const { releaseRunLock } = await import('../../app/runs.ts');
  const r = await releaseRunLock(store, runId, async (_holder, described) => {
    const warning = `${described}.\nRelease it only if that process is gone: two processes writing one run would be refused later, but one would lose its work.`;
    if (yes) {
      process.stderr.write(`${warning}\n--yes given: releasing.\n`);
      return true;
    }
    if (!process.stdin.isTTY)
      throw new UsageError(`${warning}\nNo terminal to ask: run again with --yes once you are sure the holder is gone.`, {
        option: '--yes',
      });
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(`${warning}\nRelease it? [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  });
  process.stdout.write(`${r.message}\n`);
}

export async function runsAction(
  o: { store: string; json?: boolean; workers?: boolean; width?: number },
  out: { write(s: string): unknown },
): Promise<void> {
  const { listRuns } = await import('../../app/runs.ts');
  const listing = await listRuns(o.store);
  const shown = redactLocation(o.store);
  const { TextTable } = await import('../../studies/kit/text-table.ts');
  if (o.workers) {
    if (o.json) out.write(jsonOutput(listing.workers ?? []));
    else if (!listing.workers) out.write(`${shown} is a SQLite store: no workers (one writing process per run)\n`);
    else out.write(listing.workers.length ? workersTable(listing.workers, TextTable, o.width) + '\n' : `no workers in ${shown}\n`);
    return;
  }
  const all = [...listing.groups.flatMap((g) => g.runs), ...listing.unknown];
  // A run whose row disagrees with its plan event is listed as the table says, marked, and named
  // on stderr with exit 1: what the row shows (a model, SIMULATED or not) cannot be trusted.
  const disagree = listing.disagree ?? new Map<string, string[]>();
  if (disagree.size) {
    process.exitCode = 1;
    for (const [runId, problems] of disagree)
      process.stderr.write(
        `revloop: run '${printable(runId)}': its runs row disagrees with its own events (${problems.join('; ')}); \`revloop audit --run ${printable(runId)}\` lists every discrepancy\n`,
      );
  }
  if (o.json) {
    out.write(jsonOutput(all.map((r) => (disagree.has(r.runId) ? { ...r.json, unverified: disagree.get(r.runId) } : r.json))));
    return;
  }
  if (!all.length) {
    out.write(`no runs in ${shown}\n`);
    return;
  }
  const left = new Set<string>();
  const blocks = listing.groups.map((g) => {
    const table = new TextTable(['run', 'status', 'model', ...g.columns], { width: o.width, optional: g.optional });
    for (const r of g.runs)
      table.push([
        printable(r.runId),
        disagree.has(r.runId) ? `${r.status} DISAGREES` : r.status,
        markedName(r.controller, r.simulated),
        ...r.cells,
      ]);
    const text = table.toString();
    for (const d of table.dropped) left.add(d);
    return `${g.study} runs (${g.runs.length}):\n${text}`;
  });
  if (listing.unknown.length)
    blocks.push(
      wrapText(
        `runs of kinds this revloop does not know (${listing.unknown.length}): ${listing.unknown.map((r) => `${r.runId} (${r.kind})`).join(', ')}`,
        o.width,
      ),
    );
  const workers = (listing.workers ?? []).filter((w) => w.alive || w.leases.length || w.released.length);
  if (workers.length) blocks.push(workersTable(workers, TextTable, o.width));
  out.write(blocks.join('\n\n') + '\n');
  if (left.size) out.write(wrapText(`(left out to fit ${o.width} columns: ${[...left].join(', ')}; --wide shows them)`, o.width) + '\n');
  if (disagree.size)
    out.write(wrapText("DISAGREES: the row differs from the run's own events (see the lines on stderr); do not trust it.", o.width) + '\n');
  if (all.some((r) => r.simulated))
    out.write(wrapText('SIMULATED rows come from simulated controllers: they describe simulations, not language models.', o.width) + '\n');
}

/**
 * The trajectories a worker holds, grouped by run: `run #case #case … (+N)`, at most 8 cases shown
 * per run (a worker of concurrency 32 would otherwise fill a screen with its run id repeated).
 */
export function leasesCell(
  leases: ReadonlyArray<Pick<WorkerInfo['leases'][number], 'runId' | 'caseIndex' | 'expired'>>,
  shownPerRun = 8,
): string {
  const byRun = new Map<string, string[]>();
  for (const l of leases) {
    const cases = byRun.get(l.runId) ?? [];
    cases.push(`#${l.caseIndex + 1}${l.expired ? ' (expired)' : ''}`);
    byRun.set(l.runId, cases);
  }
  const runs = [...byRun].map(([runId, cases]) => {
    const more = cases.length - shownPerRun;
    return `${runId} ${cases.slice(0, shownPerRun).join(' ')}${more > 0 ? ` (+${more})` : ''}`;
  });
  return runs.join('; ') || '—';
}

/** Workers with their state, heartbeat and the trajectories they hold. */
function workersTable(
  workers: readonly WorkerInfo[],
  Table: typeof import('../../studies/kit/text-table.ts').TextTable,
  width: number | undefined,
): string {
  const table = new Table(['worker', 'state', 'heartbeat', 'concurrency', 'lease s', 'rejected writes', 'leases held'], { width });
  for (const w of workers) {
    // A worker gone without stopping (killed, crashed, cut off) holds nothing: its claims ended
    // with its database session, and what it was running is free to claim at once.
    const state = w.stoppedAt ? 'stopped' : w.alive ? 'alive' : 'gone (killed or disconnected)';
    const held = w.released.length
      ? `none (freed: ${leasesCell(w.released.map((l) => ({ ...l, expired: false })))})`
      : leasesCell(w.leases);
    table.push([
      w.name,
      state,
      w.heartbeatAt.replace('T', ' ').slice(0, 19),
      String(w.concurrency),
      String(w.leaseSeconds),
      String(w.rejectedWrites),
      held,
    ]);
  }
  return `workers (${workers.length}):\n${table.toString()}`;
}
