// The benchmark store of the paper's panel size: 27,360 SIMULATED trajectories — 19 sim
// controllers × the paper's 1,440 cases (480 exact-length + 960 lexical/compositional) — built by
// real `sim:` runs through the engine and cached under bench/.out/. Shared by bench/analyze.ts and
// bench/viewer.ts. Every trajectory is simulated; nothing built here describes a model.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCaseSet } from '../src/core/cases/index.ts';
import { PAPER_PROTOCOL } from '../src/engine/protocol.ts';
import { executeRun } from '../src/engine/trajectory-run.ts';
import { createModel } from '../src/models/index.ts';
import { openStore } from '../src/store/store.ts';
import { PROJECT_ROOT, sharedDataFile } from '../src/core/util/shared-data.ts';
import { getFamily } from '../src/core/verify/index.ts';

export const CASE_FILES = [
  'generation_combined480.jsonl',
  'lexical_constraints_combined480.jsonl',
  'compositional_constraints_combined480.jsonl',
];

/** 19 distinct simulated controllers: five profiles with different seeds and response curves. */
export const SIM_SPECS = [
  'sim:ideal',
  'sim:steady',
  'sim:steady?seed=2',
  'sim:steady?gain=0.7',
  'sim:steady?recur=0.3',
  'sim:sluggish',
  'sim:sluggish?seed=2',
  'sim:sluggish?gain=0.4',
  'sim:overshoot',
  'sim:overshoot?seed=2',
  'sim:overshoot?gain=1.8',
  'sim:stubborn', // 12 in the "local" panel
  'sim:stubborn?seed=2',
  'sim:stubborn?recur=0.8',
  'sim:steady?seed=3',
  'sim:sluggish?seed=3',
  'sim:overshoot?seed=3',
  'sim:steady?noise=0.3',
  'sim:ideal?seed=2', // 7 in the "api" panel
];

/** The paper's case files are present (../shared/data), so the panel store can be built. */
export function panelCasesAvailable(): boolean {
  return CASE_FILES.every((f) => sharedDataFile('paper-cases', f));
}

/** The cached panel store's path. */
export function panelStorePath(): string {
  return join(PROJECT_ROOT, 'bench', '.out', 'analyze-panel.db');
}

/** Builds the panel store at `path` (through a temporary file, renamed when complete); returns ms. */
export async function buildPanelStore(path: string): Promise<number> {
  const cases = [];
  for (const f of CASE_FILES) cases.push(...(await loadCaseSet(sharedDataFile('paper-cases', f)!, { skipWitnessChecks: true })).cases);
  const tmp = `${path}.building`;
  rmSync(tmp, { force: true });
  const store = await openStore(tmp);
  const t = performance.now();
  try {
    for (const [i, spec] of SIM_SPECS.entries()) {
      const model = await createModel(spec);
      await executeRun({
        store,
        runId: `panel-${String(i).padStart(2, '0')}`,
        cases,
        caseSet: {
          format: 'paper',
          total: cases.length,
          limit: null,
          fileSha256: 'bench',
          manifest: { bench: true } as never,
          path: 'paper-cases',
        },
        model,
        protocol: PAPER_PROTOCOL,
        resolveFamily: getFamily,
        concurrency: 16,
      });
      process.stderr.write(`  store: ${i + 1}/${SIM_SPECS.length} controllers (${((performance.now() - t) / 1000).toFixed(1)} s)\n`);
    }
  } finally {
    await store.close();
  }
  for (const ext of ['-wal', '-shm']) rmSync(`${tmp}${ext}`, { force: true });
  renameSync(tmp, path);
  return performance.now() - t;
}

/** The cached panel store (built first when missing or when `rebuild`); returns its path and build time (0 when cached). */
export async function panelStore(rebuild = false): Promise<{ path: string; buildMs: number }> {
  const path = panelStorePath();
  mkdirSync(join(PROJECT_ROOT, 'bench', '.out'), { recursive: true });
  if (rebuild) rmSync(path, { force: true });
  const buildMs = existsSync(path) ? 0 : await buildPanelStore(path);
  return { path, buildMs };
}

/**
 * The same 27,360 trajectories as ONE imported run with 19 controllers (what `revloop
 * import-trajectories` makes of a paper-size log), cached as bench/.out/panel-import.db: the
 * viewer's worst case for a single run's table, filters and index.
 */
export async function importedPanelStore(rebuild = false): Promise<{ path: string; buildMs: number }> {
  const path = join(PROJECT_ROOT, 'bench', '.out', 'panel-import.db');
  if (rebuild) rmSync(path, { force: true });
  if (existsSync(path)) return { path, buildMs: 0 };
  const t = performance.now();
  const source = await panelStore(false);
  const store = await openStore(source.path, { readonly: true });
  const file = join(PROJECT_ROOT, 'bench', '.out', 'panel-import.jsonl');
  const fields = ['targets', 'target', 'anchors', 'task', 'instruction', 'witness'] as const;
  try {
    const lines: string[] = [];
    for (const t of await store.loadTrajectories()) {
      const line: Record<string, unknown> = {
        id: `${t.runId}:${t.caseIndex}`,
        controller: t.controller,
        family: t.family,
        case_id: t.caseId,
        source: t.source,
        drafts: t.rounds.map((r) => r.text),
        simulated: t.simulated,
      };
      for (const k of fields) if (t.case[k] !== undefined) line[k] = t.case[k];
      if (t.rounds.length) lines.push(JSON.stringify(line));
    }
    writeFileSync(file, lines.join('\n') + '\n');
  } finally {
    await store.close();
  }
  const tmp = `${path}.building`;
  rmSync(tmp, { force: true });
  const { importRun } = await import('../src/app/import.ts');
  await importRun({ file, store: tmp, runId: 'panel-import', budget: 8 });
  for (const ext of ['-wal', '-shm']) rmSync(`${tmp}${ext}`, { force: true });
  renameSync(tmp, path);
  rmSync(file, { force: true });
  return { path, buildMs: performance.now() - t };
}
