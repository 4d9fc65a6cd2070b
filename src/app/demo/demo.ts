// `demo`: the main job on embedded defaults. Writes the demo case set, runs a few simulated
// controllers over it through the real engine and store, and writes the report of those runs.
// The CLI prints the summary table (labelled SIMULATED) and the next commands.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCaseSet, writeCaseSet } from '../../core/cases/index.ts';
import { PAPER_PROTOCOL } from '../../engine/protocol.ts';
import { executeRun, type RunProgress } from '../../engine/run.ts';
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
  signal?: AbortSignal;
}

export interface DemoHooks {
  /** The case set is written and the store chosen. */
  onCases?(s: { casesFile: string; cases: number; store: string; skippedStructured: string | null }): void;
  onRunStart?(runId: string): void;
  onProgress?(runId: string, p: RunProgress): void;
  onRunEnd?(runId: string): void;
}

/** One simulated controller's results: joint successes per family within the budget. */
export interface DemoRunResult {
  runId: string;
  profile: string;
  trajectories: TrajectoryRecord[];
}

export interface DemoResult {
  casesFile: string;
  store: string;
  /** The self-contained HTML report of the demo runs. */
  report: string;
  runIds: string[];
  structured: boolean;
  runs: DemoRunResult[];
}

/** The demo's summary: per controller, joint successes per family ("k/n"), overall, and mean rounds. */
export function demoSummary(byRun: readonly DemoRunResult[]): {
  families: string[];
  rows: Array<{ profile: string; cells: string[]; all: string; meanRounds: string }>;
} {
  const families = FAMILY_ORDER.filter((f) => byRun.some((r) => r.trajectories.some((t) => t.family === f)));
  const cell = (ts: TrajectoryRecord[]) => `${ts.filter((t) => t.status === 'complete' && t.rounds.at(-1)?.joint).length}/${ts.length}`;
  return {
    families,
    rows: byRun.map(({ profile, trajectories }) => ({
      profile,
      cells: families.map((f) => cell(trajectories.filter((t) => t.family === f))),
      all: cell(trajectories),
      meanRounds: (trajectories.reduce((n, t) => n + t.rounds.length, 0) / Math.max(trajectories.length, 1)).toFixed(2),
    })),
  };
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

export async function runDemo(o: DemoOptions = {}, hooks: DemoHooks = {}): Promise<DemoResult> {
  const out = o.out ?? mkdtempSync(join(tmpdir(), 'revloop-demo-'));
  mkdirSync(out, { recursive: true });
  const punkt = punktProblem();
  const cases = [...exactLengthDemoCases(), ...(punkt ? [] : structuredDemoCases())];
  const casesFile = join(out, punkt ? 'demo-cases-exact.jsonl' : 'demo-cases.jsonl');
  await writeCaseSet(casesFile, cases);
  const loaded = await loadCaseSet(casesFile, { format: 'native' });
  const storePath = o.store ?? join(out, 'demo.db');
  const profiles = o.profiles ?? DEMO_PROFILES;

  hooks.onCases?.({ casesFile, cases: loaded.cases.length, store: storePath, skippedStructured: punkt });

  const store = await openStore(storePath);
  const runIds: string[] = [];
  const results: DemoRunResult[] = [];
  try {
    for (const profile of profiles) {
      const model = await createModel(`sim:${profile}`);
      const runId = `demo-${profile}${punkt ? '-exact' : ''}`;
      hooks.onRunStart?.(runId);
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
        signal: o.signal,
        onProgress: (p) => hooks.onProgress?.(runId, p),
      });
      hooks.onRunEnd?.(runId);
      if (result.stopped) throw new UserError(`demo stopped: ${result.stopped.message}; run it again to resume`);
      runIds.push(runId);
      results.push({ runId, profile, trajectories: await store.loadTrajectories([runId]) });
    }
  } finally {
    await store.close();
  }

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
  return { casesFile, store: storePath, report: reportPath, runIds, structured: !punkt, runs: results };
}
