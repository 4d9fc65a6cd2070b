// The experiments study's analysis of its runs: each design's own analysis, in run order.
import { PRNG_NAME } from '../../../core/stats/prng.ts';
import type { RunStore } from '../../../store/store.ts';
import { loadExperimentRuns, type ExperimentRunData } from './common.ts';
import { analyzeCrossover } from './crossover.ts';
import { analyzeHistory } from './history.ts';
import { analyzePersist } from './persist.ts';
import { analyzeSysid } from './sysid.ts';
import type { ExperimentRunInfo, ExperimentsAnalysis } from './experiment-analysis-types.ts';

export interface ExperimentsOptions {
  bootstrap: number;
  seed: number;
}

function runInfo(r: ExperimentRunData): ExperimentRunInfo {
  return {
    run_id: r.runId,
    design: r.experiment.design,
    controller: r.planned.plan.controller.label,
    simulated: r.planned.plan.controller.simulated,
    sources: r.experiment.sources.map((s) => s.run_id),
    states_sha256: r.experiment.states_sha256,
    trajectories: r.trajectories.length,
    complete: r.summary.complete,
    incomplete: r.summary.incomplete,
    pending: r.summary.pending,
    budget: r.planned.plan.protocol.budget,
  };
}

/** Analyses the experiment runs of a store (history, crossover, sysid, persist). */
export async function analyzeExperimentRuns(
  store: RunStore,
  runIds: readonly string[],
  o: ExperimentsOptions,
): Promise<{ result: ExperimentsAnalysis; runs: ExperimentRunData[] }> {
  const runs = await loadExperimentRuns(store, runIds);
  const result: ExperimentsAnalysis = {
    schema: 'revloop.experiments/1',
    options: { bootstrap: o.bootstrap, seed: o.seed, prng: PRNG_NAME, ci_level: 0.95 },
    runs: runs.map(runInfo),
    history: [],
    crossover: { pairs: [], notes: [] },
    sysid: [],
    persist: [],
    simulated_controllers: [],
    notes: [],
  };
  runs.forEach((r) => {
    if (r.experiment.design === 'history') result.history.push(analyzeHistory(r, o));
    if (r.experiment.design === 'persist') result.persist.push(analyzePersist(r));
  });
  for (const r of runs) if (r.experiment.design === 'sysid') result.sysid.push(await analyzeSysid(store, r, o));
  if (runs.some((r) => r.experiment.design === 'crossover')) result.crossover = await analyzeCrossover(store, runs);
  const sim = new Set<string>();
  for (const r of runs) {
    if (r.planned.plan.controller.simulated) sim.add(r.planned.plan.controller.label);
    for (const s of r.experiment.sources) if (s.simulated) sim.add(s.controller);
  }
  result.simulated_controllers = [...sim];
  return { result, runs };
}
