// `revloop demo`: the main job on embedded defaults. Writes the demo case set, runs a few simulated
// controllers over it through the real engine and store, prints a summary table (labelled
// SIMULATED), and points at the next commands.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Table from 'cli-table3';
import { loadCaseSet, writeCaseSet } from '../../core/cases/index.ts';
import { PAPER_PROTOCOL } from '../../engine/protocol.ts';
import { createProgressReporter } from '../../cli/progress/run-progress.ts';
import type { CommandIO } from '../run.ts';
import { executeRun } from '../../engine/run.ts';
import { createModel } from '../../models/index.ts';
import { openStore } from '../../store/store.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import { getDefaultPunkt } from '../../core/text/index.ts';
import { UserError } from '../../core/errors.ts';
import { getFamily } from '../../core/verify/index.ts';
import { exactLengthDemoCases, structuredDemoCases } from './cases.ts';

export const DEMO_PROFILES = ['steady', 'overshoot', 'stubborn'];
const FAMILY_ORDER = ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12'];

export interface DemoOptions {
  store?: string;
  out?: string;
  concurrency?: number;
  profiles?: string[];
}

export interface DemoResult {
  casesFile: string;
  store: string;
  /** The self-contained HTML report of the demo runs. */
  report: string;
  runIds: string[];
  structured: boolean;
}

/** Whether the Punkt parameters the structured families need can be found; the reason if not. */
function punktProblem(): string | null {
  try {
    getDefaultPunkt();
    return null;
  } catch (e) {
    if (e instanceof UserError) return e.message;
    throw e;
  }
}

export function demoTable(byRun: Array<{ profile: string; trajectories: TrajectoryRecord[] }>): string {
  const families = FAMILY_ORDER.filter((f) => byRun.some((r) => r.trajectories.some((t) => t.family === f)));
  const table = new Table({ head: ['controller (SIMULATED)', ...families, 'all', 'mean rounds'], style: { head: [], border: [] } });
  for (const { profile, trajectories } of byRun) {
    const cell = (ts: TrajectoryRecord[]) => {
      const ok = ts.filter((t) => t.status === 'complete' && t.rounds.at(-1)?.joint).length;
      return `${ok}/${ts.length}`;
    };
    const rounds = trajectories.reduce((n, t) => n + t.rounds.length, 0) / Math.max(trajectories.length, 1);
    table.push([
      `sim:${profile} [SIMULATED]`,
      ...families.map((f) => cell(trajectories.filter((t) => t.family === f))),
      cell(trajectories),
      rounds.toFixed(2),
    ]);
  }
  return table.toString();
}

export async function runDemo(o: DemoOptions, io: CommandIO): Promise<DemoResult> {
  const out = o.out ?? mkdtempSync(join(tmpdir(), 'revloop-demo-'));
  mkdirSync(out, { recursive: true });
  const punkt = punktProblem();
  const cases = [...exactLengthDemoCases(), ...(punkt ? [] : structuredDemoCases())];
  const casesFile = join(out, punkt ? 'demo-cases-exact.jsonl' : 'demo-cases.jsonl');
  await writeCaseSet(casesFile, cases);
  const loaded = await loadCaseSet(casesFile, { format: 'native' });
  const storePath = o.store ?? join(out, 'demo.db');
  const profiles = o.profiles ?? DEMO_PROFILES;

  io.out.write(
    `revloop demo: ${loaded.cases.length} cases of revloop's own texts (${punkt ? 'exact-length only' : 'all six families'}) in ${casesFile}\n` +
      `store: ${storePath}\n` +
      'SIMULATED: the controllers below are simulations (sim: profiles), not language models; no number here describes a model.\n',
  );
  if (punkt) {
    io.out.write(
      `note: the structured families (c05, c07, c09, c10, c12) were skipped: ${punkt}\n  then run \`revloop demo\` again for all six families.\n`,
    );
  }

  const store = openStore(storePath);
  const runIds: string[] = [];
  const results: Array<{ profile: string; trajectories: TrajectoryRecord[] }> = [];
  try {
    for (const profile of profiles) {
      const model = await createModel(`sim:${profile}`);
      const runId = `demo-${profile}${punkt ? '-exact' : ''}`;
      const reporter = createProgressReporter(io.err, { tty: io.err.isTTY === true, simulated: true });
      io.err.write(`${runId}:\n`);
      const result = await executeRun({
        store,
        runId,
        cases: loaded.cases,
        caseSet: {
          format: loaded.format,
          total: loaded.cases.length,
          limit: null,
          fileSha256: loaded.manifest.file_sha256,
          manifest: loaded.manifest,
          path: casesFile,
        },
        model,
        protocol: PAPER_PROTOCOL,
        resolveFamily: getFamily,
        concurrency: o.concurrency ?? 8,
        signal: io.signal,
        onProgress: (p) => reporter.update(p),
      });
      reporter.finish();
      if (result.stopped) throw new UserError(`demo stopped: ${result.stopped.message}; run it again to resume`);
      runIds.push(runId);
      results.push({ profile, trajectories: store.loadTrajectories([runId]) });
    }
  } finally {
    store.close();
  }

  io.out.write(`\njoint successes within the budget of 8 revisions (SIMULATED controllers):\n${demoTable(results)}\n`);

  // The report of the demo runs: the same renderer `revloop report` uses (tables, curves, drill-down).
  const reportPath = join(out, 'demo-report.html');
  const { buildStoreReport } = await import('../report.ts');
  const { writeReportFile } = await import('../../report/index.ts');
  const report = await buildStoreReport(storePath, {
    runIds,
    bootstrap: 2000,
    seed: 20260808,
    title: 'revloop demo (SIMULATED controllers)',
  });
  writeReportFile(reportPath, report.html);
  io.out.write(`\nreport: ${reportPath} (open it in a browser; it needs no network)\n`);
  io.out.write(
    '\nnext:\n' +
      `  revloop runs --store ${storePath}\n` +
      `  revloop audit --store ${storePath} --run ${runIds[0]}\n` +
      `  revloop analyze --store ${storePath}\n` +
      `  revloop report --store ${storePath} -o my-report.html\n` +
      `  revloop export --store ${storePath} --run ${runIds[0]} --format paper -o ${runIds[0]}.jsonl\n` +
      `  revloop run --cases ${casesFile} --model <your model spec> --store ${storePath}   (a real model: see docs/running.md)\n`,
  );
  return { casesFile, store: storePath, report: reportPath, runIds, structured: !punkt };
}
