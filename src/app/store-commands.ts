// The store's commands for people: the `runs` table of revision runs, `audit`, `export`, `import-trajectories`. The CLI
// modules only parse options and call these.
import { basename } from 'node:path';
import Table from 'cli-table3';
import { writeFileAtomic } from '../core/util/atomic-file.ts';
import { UserError } from '../core/errors.ts';
import { sha256File } from '../core/util/hash.ts';
import { readJsonlLines } from '../core/util/jsonl.ts';
import { sharedDataFile } from '../core/util/shared-data.ts';
import { getFamily } from '../core/verify/index.ts';
import { auditRun, formatDiscrepancy, type AuditReport } from '../engine/audit.ts';
import { convertCollieLog } from '../studies/revision/collie-log.ts';
import { paperJsonl } from '../studies/revision/export-paper.ts';
import { importTrajectories, parseImportLines, type ImportSummary } from '../studies/revision/import.ts';
import { openStore, type RunSummary } from '../store/store.ts';

export interface Out {
  write(s: string): unknown;
}

function requireRun(store: ReturnType<typeof openStore>, runId: string) {
  const run = store.getRun(runId);
  if (!run) {
    const known = store.runIds();
    throw new UserError(`no run '${runId}' in ${store.path}${known.length ? `; runs: ${known.join(', ')}` : ' (the store has no runs)'}`);
  }
  return run;
}

export function runsTable(runs: RunSummary[]): string {
  const table = new Table({
    head: ['run', 'status', 'controller', 'protocol', 'T', 'done', 'success', 'incompl.', 'pending', 'rounds', 'failed att.', 'updated'],
    style: { head: [], border: [] },
  });
  for (const r of runs) {
    const finished = r.complete + r.incomplete;
    table.push([
      r.runId,
      r.status,
      r.simulated && !/\[simulated\]/i.test(r.controller)
        ? `${r.controller} [SIMULATED]`
        : r.simulated
          ? r.controller.replace(/\[simulated\]/i, '[SIMULATED]')
          : r.controller,
      r.kind === 'import' ? 'imported' : r.protocol,
      String(r.budget),
      `${finished}/${r.cases}`,
      `${r.successes} (${r.cases ? ((100 * r.successes) / r.cases).toFixed(1) : '0.0'}%)`,
      String(r.incomplete),
      String(r.pending),
      String(r.rounds),
      String(r.failedAttempts),
      r.updatedAt.replace('T', ' ').slice(0, 19),
    ]);
  }
  return table.toString();
}

export function auditCommand(o: { store: string; run: string; json?: boolean }, out: Out): { code: number; report: AuditReport } {
  const store = openStore(o.store, { readonly: true });
  try {
    requireRun(store, o.run);
    const report = auditRun(store, o.run, getFamily);
    if (o.json)
      out.write(
        JSON.stringify({ ...report, discrepancies: report.discrepancies.map((d) => ({ ...d, message: formatDiscrepancy(d) })) }, null, 2) +
          '\n',
      );
    else {
      out.write(
        `audit of run '${o.run}' in ${o.store}: ${report.events} events, ${report.trajectories} trajectories, ${report.rounds} rounds replayed\n`,
      );
      for (const n of report.notes) out.write(`note: ${n}\n`);
      if (report.passed)
        out.write(
          'PASS: event chain intact; every verifier state, energy, joint flag and feedback replays; revisions contiguous; stop rule and final flags hold; tables equal a fresh reduction\n',
        );
      else {
        const shown = report.discrepancies.slice(0, 200);
        for (const d of shown) out.write(`${formatDiscrepancy(d)}\n`);
        if (report.discrepancies.length > shown.length) out.write(`… and ${report.discrepancies.length - shown.length} more\n`);
        out.write(`FAIL: ${report.discrepancies.length} discrepanc${report.discrepancies.length === 1 ? 'y' : 'ies'}\n`);
      }
    }
    return { code: report.passed ? 0 : 1, report };
  } finally {
    store.close();
  }
}

export async function exportCommand(
  o: { store: string; run: string; format: string; output: string; partial?: boolean },
  out: Out,
): Promise<number> {
  if (o.format !== 'paper') throw new UserError(`--format: unknown export format '${o.format}'; use paper`);
  const store = openStore(o.store, { readonly: true });
  let text: string;
  let rows: number;
  try {
    const run = requireRun(store, o.run);
    let trajectories = store.loadTrajectories([o.run]);
    const pending = trajectories.filter((t) => t.status === 'pending').length;
    if (pending && !o.partial) {
      throw new UserError(
        `run '${o.run}' has ${pending} unfinished trajectories; resume it first, or pass --partial to export only the finished ones`,
      );
    }
    if (o.partial) trajectories = trajectories.filter((t) => t.status !== 'pending');
    text = paperJsonl(trajectories);
    rows = trajectories.length;
    if (run.summary.simulated) out.write(`note: run '${o.run}' is SIMULATED; its rows describe a simulated controller\n`);
  } finally {
    store.close();
  }
  await writeFileAtomic(o.output, text);
  out.write(`wrote ${rows} rows to ${o.output}\n`);
  return 0;
}

export interface ImportCommandOptions {
  store: string;
  runId?: string;
  budget?: string;
  from?: string;
  collie?: string;
  controller?: string;
}

export async function importCommand(file: string, o: ImportCommandOptions, out: Out): Promise<ImportSummary> {
  const from = o.from ?? 'jsonl';
  let budget: number | undefined;
  if (o.budget !== undefined) {
    budget = Number(o.budget);
    if (!Number.isInteger(budget) || budget < 0) throw new UserError(`--budget: expected a whole number ≥ 0, got '${o.budget}'`);
  }
  const runId =
    o.runId ??
    basename(file)
      .replace(/\.jsonl?$/i, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-');
  let parsed;
  let format: string;
  if (from === 'jsonl') {
    const items = [];
    try {
      for await (const item of readJsonlLines(file)) items.push(item);
    } catch (e) {
      throw new UserError(`${file}: cannot read (${(e as Error).message})`);
    }
    parsed = parseImportLines(items, file, getFamily);
    format = 'import-jsonl';
  } else if (from === 'collie-log') {
    const collie = o.collie ?? sharedDataFile('collie', 'collie_all.jsonl');
    if (!collie)
      throw new UserError(
        '--from collie-log needs --collie <collie_all.jsonl> to map prompts to COLLIE instances (not found in ../shared/data/collie either)',
      );
    const conv = await convertCollieLog(file, collie, o.controller);
    const skipped = Object.entries(conv.unsupported)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    out.write(
      `${file}: ${conv.prompts} prompts, rounds ${conv.roundKeys.join(', ')}; ${conv.lines.length} mapped to runnable COLLIE cases` +
        `${skipped ? `; skipped (structure without a family): ${skipped}` : ''}${conv.ambiguous ? `; ${conv.ambiguous} ambiguous` : ''}${conv.unmatched ? `; ${conv.unmatched} not in ${collie}` : ''}\n`,
    );
    parsed = parseImportLines(
      conv.lines.map((value, i) => ({ line: i + 1, value })),
      `${file} (converted)`,
      getFamily,
    );
    format = 'collie-log';
  } else throw new UserError(`--from: unknown input '${from}'; use jsonl or collie-log`);

  const store = openStore(o.store);
  try {
    const summary = importTrajectories(store, parsed, {
      runId,
      file,
      fileSha256: await sha256File(file),
      format,
      budget,
      resolveFamily: getFamily,
    });
    out.write(
      `imported run '${runId}' into ${o.store}: ${summary.trajectories} trajectories (${summary.controllers.join(', ')}), ${summary.draftsSupplied} drafts supplied, ${summary.roundsStored} rounds stored\n` +
        `  stop rule: ${summary.droppedAfterSuccess} drafts after a first success dropped (in ${summary.truncatedTrajectories} trajectories)` +
        `${budget !== undefined ? `; ${summary.droppedBeyondBudget} beyond budget ${budget} dropped` : ''}\n` +
        `  ${summary.successes} joint successes, ${summary.incomplete} protocol-incomplete\n` +
        `next: revloop audit --store ${o.store} --run ${runId} · revloop analyze --store ${o.store} ${runId}\n`,
    );
    return summary;
  } finally {
    store.close();
  }
}
