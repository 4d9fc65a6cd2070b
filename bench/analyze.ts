// Benchmark: the full analysis over 27,360 SIMULATED trajectories (19 controllers × 3 assays × 480
// cases, the size of the paper's main panel) with 20,000-resample paired bootstraps for every cell.
//   npx tsx bench/analyze.ts [--bootstrap B] [--json out.json]
// Trajectories come from the seeded synthetic generator (src/analysis/synthetic.ts); every one is
// marked simulated, and nothing printed here describes a model.
import { writeFileSync } from 'node:fs';
import { analyzeTrajectories } from '../src/analysis/analyze.ts';
import { analysisJson } from '../src/analysis/json.ts';
import { renderAnalysis } from '../src/analysis/render.ts';
import { paperShapedControllers, syntheticTrajectories } from '../src/analysis/synthetic.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const bootstrap = Number(arg('--bootstrap') ?? 20000);

const t0 = performance.now();
const controllers = paperShapedControllers();
const trajectories = syntheticTrajectories({ controllers, seed: 1, incompleteRate: 0.0005 });
// Two panels like the paper's: 12 "local" and 7 "api" controllers (66 and 21 pairs).
const panels = Object.fromEntries(controllers.map((c, i) => [c.name, i < 12 ? 'sim-local' : 'sim-api']));
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

const cells = result.cells.length;
const groups = new Set(result.cells.map((c) => `${c.panel}/${c.family}`)).size;
console.log('SIMULATED trajectories (synthetic generator): timings of the analysis only, no model numbers.');
console.log(`trajectories: ${trajectories.length} (${result.trajectories.complete} complete, ${result.trajectories.incomplete} incomplete)`);
console.log(`cells: ${cells} (controller × family incl. aggregates); bootstrap groups (panel × family): ${groups}; B = ${bootstrap}`);
console.log(`pairwise comparisons: ${result.pairwise.length}; rescue fits: ${result.rescue.fits.length}`);
console.log(`generate: ${((t1 - t0) / 1000).toFixed(2)} s`);
console.log(`analyze (incl. ${groups} × ${bootstrap} paired resamples): ${((t2 - t1) / 1000).toFixed(2)} s`);
console.log(`JSON + tables: ${((t3 - t2) / 1000).toFixed(2)} s (${(json.length / 1e6).toFixed(1)} MB JSON, ${text.split('\n').length} table lines)`);
console.log(`total: ${((t3 - t0) / 1000).toFixed(2)} s`);
