// Benchmark: the full analysis of a store holding 27,360 SIMULATED trajectories — 19 sim
// controllers × the paper's 1,440 cases (480 exact-length + 960 lexical/compositional), the size of
// the paper's main panel — with 20,000-resample paired bootstraps for every cell. The store is built
// by real `sim:` runs through the engine (timed separately, cached under bench/.out/), then the
// timed part reads every trajectory back from the store and analyses it.
//
//   npx tsx bench/analyze.ts [--bootstrap B] [--json out.json] [--rebuild] [--synthetic]
//
// --synthetic skips the store and uses the seeded synthetic generator (src/studies/revision/synthetic.ts);
// it is also the fallback when ../shared/data is absent. Every trajectory is simulated; nothing
// printed here describes a model.
import { writeFileSync } from 'node:fs';
import { analyzeTrajectories } from '../src/studies/revision/analysis/analyze-trajectories.ts';
import { hazardAssociation } from '../src/studies/revision/analysis/association.ts';
import { modelFamily, predictCapture } from '../src/studies/revision/analysis/capture-prediction.ts';
import { landmarkRow, type RescueRow } from '../src/studies/revision/analysis/rescue.ts';
import { fitThreeDomain, threeDomainRow, type ThreeDomainRow } from '../src/studies/revision/analysis/three-domain.ts';
import { analysisJson } from '../src/studies/revision/analysis/json.ts';
import { renderAnalysis } from '../src/studies/revision/analysis/analysis-tables.ts';
import { paperShapedControllers, syntheticTrajectories } from '../src/studies/revision/synthetic.ts';
import { openStore } from '../src/store/store.ts';
import type { TrajectoryRecord } from '../src/store/types.ts';
import { panelCasesAvailable, panelStore, SIM_SPECS } from './panel-store.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const bootstrap = Number(arg('--bootstrap') ?? 20000);

const useStore = !process.argv.includes('--synthetic') && panelCasesAvailable();
if (!useStore && !process.argv.includes('--synthetic'))
  console.log('bench/analyze: ../shared/data/paper-cases not found; using the synthetic generator instead');

const t0 = performance.now();
let trajectories: TrajectoryRecord[];
let panels: Record<string, string>;
let source: string;
let buildMs = 0;
if (useStore) {
  const built = await panelStore(process.argv.includes('--rebuild'));
  const path = built.path;
  buildMs = built.buildMs;
  const tLoad = performance.now();
  const store = await openStore(path, { readonly: true });
  trajectories = await store.loadTrajectories();
  await store.close();
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
const cpu1 = process.cpuUsage();
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
const cpuAnalyze = process.cpuUsage(cpu1);
const cpuSeconds = (c: NodeJS.CpuUsage) => ((c.user + c.system) / 1e6).toFixed(2);
const diff = (b: NodeJS.CpuUsage, a: NodeJS.CpuUsage): NodeJS.CpuUsage => ({ user: b.user - a.user, system: b.system - a.system });
// The §3.8 / §3.9 sections again on their own (the same calls analyzeTrajectories makes), to show their share.
const complete = trajectories.filter((t) => t.status === 'complete' && t.rounds.length > 0);
const panelOf = (c: string) => panels[c] ?? 'all';
const tA = performance.now();
const cpuA = process.cpuUsage();
hazardAssociation(result.cells, [...new Set(result.cells.map((c) => c.family))], {
  permutations: result.options.permutations,
  seed: result.options.seed,
});
const tB = performance.now();
const cpuB = process.cpuUsage();
const exactRows = complete
  .filter((t) => t.family === 'exact-length')
  .map((t) => landmarkRow(t, result.options.landmark))
  .filter((r): r is RescueRow => r !== null);
for (const panel of new Set(Object.values(panels))) {
  const rows = exactRows.filter((r) => panelOf(r.controller) === panel);
  predictCapture(rows, {
    panel,
    landmark: result.options.landmark,
    simulated: true,
    familyOf: (c) => modelFamily(c),
    bootstrap,
    seed: result.options.seed,
  });
}
const tC = performance.now();
const cpuC = process.cpuUsage();
const domainRows = complete.map((t) => threeDomainRow(t, result.options.landmark)).filter((r): r is ThreeDomainRow => r !== null);
for (const panel of new Set(Object.values(panels)))
  fitThreeDomain(
    panel,
    result.options.landmark,
    domainRows.filter((r) => panelOf(r.controller) === panel),
    true,
  );
fitThreeDomain('combined', result.options.landmark, domainRows, true);
const tD = performance.now();
const cpuD = process.cpuUsage();
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
console.log(
  `analyze (incl. ${groups} × ${bootstrap} paired resamples): ${((t2 - t1) / 1000).toFixed(2)} s (CPU ${cpuSeconds(cpuAnalyze)} s)`,
);
console.log(
  `  of which (timed again alone, wall / CPU): §3.8 hazard association ${((tB - tA) / 1000).toFixed(2)} / ${cpuSeconds(diff(cpuB, cpuA))} s (${result.hazard_association.rows.length} tests, B = ${result.options.permutations}); ` +
    `§3.9 capture prediction ${((tC - tB) / 1000).toFixed(2)} / ${cpuSeconds(diff(cpuC, cpuB))} s (${result.capture_prediction.panels.length} panels, B = ${bootstrap}); ` +
    `all-domain landmark ${((tD - tC) / 1000).toFixed(2)} / ${cpuSeconds(diff(cpuD, cpuC))} s (${result.three_domain_landmark.fits.length} fits)`,
);
console.log(
  `JSON + tables: ${((t3 - tD) / 1000).toFixed(2)} s (${(json.length / 1e6).toFixed(1)} MB JSON, ${text.split('\n').length} table lines)`,
);
console.log(
  `total (load + analyze + render, the sections' second timing left out; target < 60 s): ${((t3 - t0 - buildMs - (tD - tA)) / 1000).toFixed(2)} s`,
);
