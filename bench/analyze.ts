// Benchmark: the full analysis of a store holding 27,360 SIMULATED trajectories — 19 sim
// controllers × the paper's 1,440 cases (480 exact-length + 960 lexical/compositional), the size of
// the paper's main panel — with 20,000-resample paired bootstraps for every cell. The store is built
// by real `sim:` runs through the engine (timed separately, cached under bench/.out/), then the
// timed part reads every trajectory back from the store and analyses it.
//
//   npx tsx bench/analyze.ts [--bootstrap B] [--json out.json] [--rebuild] [--synthetic]
//
// --synthetic skips the store and uses the seeded synthetic generator (src/analysis/synthetic.ts);
// it is also the fallback when ../shared/data is absent. Every trajectory is simulated; nothing
// printed here describes a model.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeTrajectories } from '../src/studies/revision/analysis/analyze.ts';
import { analysisJson } from '../src/studies/revision/analysis/json.ts';
import { renderAnalysis } from '../src/studies/revision/analysis/render.ts';
import { paperShapedControllers, syntheticTrajectories } from '../src/studies/revision/synthetic.ts';
import { loadCaseSet } from '../src/core/cases/index.ts';
import { PAPER_PROTOCOL } from '../src/engine/protocol.ts';
import { executeRun } from '../src/engine/run.ts';
import { createModel } from '../src/models/index.ts';
import { openStore } from '../src/store/store.ts';
import type { TrajectoryRecord } from '../src/store/types.ts';
import { PROJECT_ROOT, sharedDataFile } from '../src/core/util/shared-data.ts';
import { getFamily } from '../src/core/verify/index.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const bootstrap = Number(arg('--bootstrap') ?? 20000);
const CASE_FILES = ['generation_combined480.jsonl', 'lexical_constraints_combined480.jsonl', 'compositional_constraints_combined480.jsonl'];

/** 19 distinct simulated controllers: five profiles with different seeds and response curves. */
const SIM_SPECS = [
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

async function buildStore(path: string): Promise<number> {
  const cases = [];
  for (const f of CASE_FILES) cases.push(...(await loadCaseSet(sharedDataFile('paper-cases', f)!, { skipWitnessChecks: true })).cases);
  const tmp = `${path}.building`;
  rmSync(tmp, { force: true });
  const store = openStore(tmp);
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
    store.close();
  }
  for (const ext of ['-wal', '-shm']) rmSync(`${tmp}${ext}`, { force: true });
  renameSync(tmp, path);
  return performance.now() - t;
}

const useStore = !process.argv.includes('--synthetic') && CASE_FILES.every((f) => sharedDataFile('paper-cases', f));
if (!useStore && !process.argv.includes('--synthetic'))
  console.log('bench/analyze: ../shared/data/paper-cases not found; using the synthetic generator instead');

const t0 = performance.now();
let trajectories: TrajectoryRecord[];
let panels: Record<string, string>;
let source: string;
let buildMs = 0;
if (useStore) {
  const dir = join(PROJECT_ROOT, 'bench', '.out');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'analyze-panel.db');
  if (process.argv.includes('--rebuild')) rmSync(path, { force: true });
  if (!existsSync(path)) buildMs = await buildStore(path);
  const tLoad = performance.now();
  const store = openStore(path, { readonly: true });
  trajectories = store.loadTrajectories();
  store.close();
  const labels = [...new Set(trajectories.map((t) => t.controller))];
  panels = Object.fromEntries(labels.map((c) => [c, SIM_SPECS.findIndex((s) => c.startsWith(s + ' ')) < 12 ? 'sim-local' : 'sim-api']));
  source = `store ${path} (${buildMs ? `built in ${(buildMs / 1000).toFixed(1)} s by ${SIM_SPECS.length} sim runs` : 'cached; --rebuild to rebuild'}); read back in ${((performance.now() - tLoad) / 1000).toFixed(2)} s`;
} else {
  const controllers = paperShapedControllers();
  trajectories = syntheticTrajectories({ controllers, seed: 1, incompleteRate: 0.0005 });
  panels = Object.fromEntries(controllers.map((c, i) => [c.name, i < 12 ? 'sim-local' : 'sim-api']));
  source = 'synthetic generator';
}
const t1 = performance.now();
let lastStage = '';
const result = analyzeTrajectories(trajectories, {
  bootstrap,
  panels,
  onProgress: ({ done, total }) => {
    const stage = `${Math.floor((10 * done) / total)}`;
    if (stage !== lastStage) {
      lastStage = stage;
      process.stderr.write(`  bootstrap ${done}/${total} (${((performance.now() - t1) / 1000).toFixed(1)} s)\n`);
    }
  },
});
const t2 = performance.now();
const json = analysisJson(result);
const text = renderAnalysis(result);
const t3 = performance.now();
const out = arg('--json');
if (out) writeFileSync(out, json);

const groups = new Set(result.cells.map((c) => `${c.panel}/${c.family}`)).size;
console.log('SIMULATED trajectories: timings of the analysis only, no model numbers.');
console.log(`source: ${source}`);
console.log(
  `trajectories: ${trajectories.length} (${result.trajectories.complete} complete, ${result.trajectories.incomplete} incomplete)`,
);
console.log(
  `cells: ${result.cells.length} (controller × family incl. aggregates); bootstrap groups (panel × family): ${groups}; B = ${bootstrap}`,
);
console.log(`pairwise comparisons: ${result.pairwise.length}; rescue fits: ${result.rescue.fits.length}`);
console.log(`load: ${((t1 - t0 - buildMs) / 1000).toFixed(2)} s`);
console.log(`analyze (incl. ${groups} × ${bootstrap} paired resamples): ${((t2 - t1) / 1000).toFixed(2)} s`);
console.log(
  `JSON + tables: ${((t3 - t2) / 1000).toFixed(2)} s (${(json.length / 1e6).toFixed(1)} MB JSON, ${text.split('\n').length} table lines)`,
);
console.log(`total (load + analyze + render; target < 60 s): ${((t3 - t0 - buildMs) / 1000).toFixed(2)} s`);
