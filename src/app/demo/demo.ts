// `demo`: the main job on embedded defaults. Writes the demo case set, runs a few simulated
// controllers over it through the real engine and store, and writes the report of those runs.
// The CLI prints the summary table (labelled SIMULATED) and the next commands.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCaseSet, writeCaseSet } from '../../core/cases/index.ts';
import { PAPER_PROTOCOL } from '../../engine/protocol.ts';
import { executeRun, type RunProgress } from '../../engine/trajectory-run.ts';
import { createModel } from '../../models/index.ts';
import { openStore } from '../../store/store.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import { getDefaultPunkt } from '../../core/text/index.ts';
import { UserError } from '../../core/errors.ts';
import { getFamily } from '../../core/verify/index.ts';
import { ANALYSIS_DEFAULTS } from '../../studies/revision/analysis/defaults.ts';
import { DEMO_DEFAULTS } from '../defaults.ts';
import { exactLengthDemoCases, structuredDemoCases } from './cases.ts';
import { experimentOf } from '../../studies/experiments/plan.ts';

export const DEMO_PROFILES = ['steady', 'overshoot', 'stubborn'];
const FAMILY_ORDER = ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12'];

export interface DemoOptions {
  store?: string;
  out?: string;
  concurrency?: number;
  profiles?: string[];
  signal?: AbortSignal;
}

/** The demo's matched-state history intervention (docs/protocol.md §3.10) on the stubborn controller's recurrences. */
export const DEMO_ARMS = 'full,reset,last:1,abstract';
export const DEMO_INTERVENTION_STATES = 12;

export interface DemoIntervention {
  runId: string;
  fromRun: string;
  states: number;
  /** Per arm: final joint successes of its trajectories. */
  arms: Array<{ arm: string; successes: number; trajectories: number }>;
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
  /** The demo's folder (case file, default store, report). */
  outDir: string;
  store: string;
  /** The self-contained HTML report of the demo runs. */
  report: string;
  runIds: string[];
  structured: boolean;
  runs: DemoRunResult[];
  /** The history intervention, when the stubborn controller ran and had recurrence events. */
  intervention: DemoIntervention | null;
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
  const storePath = o.store ?? join(out, 'demo.db');
  // A store named with --store is opened (a foreign or read-only one refused) before anything is
  // written; the default one is created in the demo's folder.
  if (o.store === undefined) mkdirSync(out, { recursive: true });
  const store = await openStore(storePath);
  const punkt = punktProblem();
  const casesFile = join(out, punkt ? 'demo-cases-exact.jsonl' : 'demo-cases.jsonl');
  const profiles = o.profiles ?? DEMO_PROFILES;
  const runIds: string[] = [];
  const results: DemoRunResult[] = [];
  try {
    mkdirSync(out, { recursive: true });
    await writeCaseSet(casesFile, [...exactLengthDemoCases(), ...(punkt ? [] : structuredDemoCases())]);
    const loaded = await loadCaseSet(casesFile, { format: 'native' });
    hooks.onCases?.({ casesFile, cases: loaded.cases.length, store: storePath, skippedStructured: punkt });
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
        concurrency: concurrencyOf(o),
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

  // A small matched-state history intervention on the stubborn controller's recurrence events.
  const intervention = await demoIntervention(storePath, runIds, concurrencyOf(o), o.signal, hooks);
  if (intervention) runIds.push(intervention.runId);

  // The report of the demo runs: the same renderer `revloop report` uses (tables, curves, drill-down).
  const reportPath = join(out, 'demo-report.html');
  const { buildStoreReport } = await import('../report.ts');
  const { writeReportFile } = await import('../../report/index.ts');
  const report = await buildStoreReport(storePath, {
    runIds,
    bootstrap: 2000,
    seed: ANALYSIS_DEFAULTS.seed,
    title: 'revloop demo (SIMULATED controllers)',
  });
  writeReportFile(reportPath, report.html);
  return { casesFile, outDir: out, store: storePath, report: reportPath, runIds, structured: !punkt, runs: results, intervention };
}

function concurrencyOf(o: DemoOptions): number {
  return o.concurrency ?? DEMO_DEFAULTS.concurrency;
}

async function demoIntervention(
  storePath: string,
  runIds: readonly string[],
  concurrency: number,
  signal: AbortSignal | undefined,
  hooks: DemoHooks,
): Promise<DemoIntervention | null> {
  const fromRun = runIds.find((id) => id.startsWith('demo-stubborn'));
  if (!fromRun) return null;
  const { runHistoryExperiment } = await import('../experiment.ts');
  const { parseArms } = await import('../../studies/experiments/arms.ts');
  const runId = `${fromRun}-history`;
  hooks.onRunStart?.(runId);
  let outcome;
  try {
    outcome = await runHistoryExperiment(
      {
        store: storePath,
        model: 'sim:stubborn',
        runId,
        fromRun,
        arms: parseArms(DEMO_ARMS),
        maxStates: DEMO_INTERVENTION_STATES,
        concurrency,
        signal,
      },
      { onProgress: (p) => hooks.onProgress?.(runId, p) },
    );
  } catch (e) {
    // No recurrence event to start from: the demo simply has no intervention.
    if (e instanceof UserError && /no recurrence events/.test(e.message)) return null;
    throw e;
  } finally {
    hooks.onRunEnd?.(runId);
  }
  if (outcome.result.stopped) throw new UserError(`demo stopped: ${outcome.result.stopped.message}; run it again to resume`);
  const store = await openStore(storePath, { readonly: true });
  try {
    const planned = await store.getPlanned(runId);
    const experiment = planned ? experimentOf(planned.plan) : null;
    const ts = await store.loadTrajectories([runId]);
    const arms = DEMO_ARMS.split(',').map((arm) => {
      const mine = ts.filter((t) => experiment?.trajectories[t.caseIndex].arm === arm);
      return { arm, successes: mine.filter((t) => t.rounds.at(-1)?.joint).length, trajectories: mine.length };
    });
    return { runId, fromRun, states: new Set(experiment?.trajectories.map((t) => t.state_id)).size, arms };
  } finally {
    await store.close();
  }
}
