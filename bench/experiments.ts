// Experiment overhead per generated round against an instant simulated controller (SIMULATED):
// the main loop (executeRun) as the baseline, then each experiment design through the same engine
// and store, measured in the same process. Each pass is timed on its generated rounds only (frozen
// rounds are copied, not generated), and its simulator and verifier time is measured and taken out,
// so "overhead" is what the engine, the store and the experiment's message policy, bans and guard
// cost per round. Target: < 1 ms per round, like bench/engine.ts for the main loop.
//
//   npx tsx bench/experiments.ts [--cases N] [--repeat 3]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exactLengthDemoCases, structuredDemoCases } from '../src/app/demo/cases.ts';
import { getDefaultPunkt } from '../src/core/text/index.ts';
import { getFamily } from '../src/core/verify/index.ts';
import type { ConstraintCase } from '../src/core/verify/types.ts';
import type { GenerationGuard } from '../src/engine/loop.ts';
import { PAPER_PROTOCOL } from '../src/engine/protocol.ts';
import { executeRun } from '../src/engine/trajectory-run.ts';
import { canTokenize } from '../src/models/capabilities.ts';
import { createModel } from '../src/models/index.ts';
import { openStore } from '../src/store/store.ts';
import { parseArms } from '../src/studies/experiments/arms.ts';
import { buildCrossover, buildHistory, buildPersist, type ExperimentBuild } from '../src/studies/experiments/designs.ts';
import { contextWindowGuard, executeExperiment, loadSourceRun } from '../src/studies/experiments/experiment-run.ts';
import { selectStates, statesSha256 } from '../src/studies/experiments/states.ts';
import { timedFamilies, timedModel } from './timing.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const copies = arg('cases', 10);
const repeat = arg('repeat', 3);

let structured = true;
try {
  getDefaultPunkt();
} catch {
  structured = false;
}
const base = [...exactLengthDemoCases(), ...(structured ? structuredDemoCases() : [])];
// Copies of the demo cases under new ids, for enough rounds to time.
const cases: ConstraintCase[] = Array.from({ length: copies }, (_, k) =>
  base.map((c) => ({
    ...c,
    id: `${c.id}#${k}`,
    instruction: c.instruction && `${c.instruction} (${k})`,
    task: c.task && `${c.task}\n(${k})`,
  })),
).flat();

const timers = { inner: 0, guard: 0 };
const addInner = (ms: number) => (timers.inner += ms);
const resolveFamily = timedFamilies(addInner);

// A stubborn instant controller: recurrences to start from, failures to extend.
const source = await createModel('sim:instant?recur=0.5&gain=0.3&dead=3&fix=0.3');
const controller = timedModel(await createModel('sim:instant'), addInner);
const decoding = { temperature: 0, seed: null, extraBody: null };

interface Pass {
  label: string;
  ms: number;
  rounds: number;
  innerMs: number;
  /** Time in the context-window guard (the backend's token count of every request). */
  guardMs: number;
  /** Planning, seeding the frozen rounds and loading the trajectories, before the first generation. */
  setupMs: number;
}

/** Times one run; `started()` (the first progress report) marks the end of its setup. */
async function measure(label: string, work: (started: () => void) => Promise<number>): Promise<Pass> {
  timers.inner = timers.guard = 0;
  const t0 = performance.now();
  let setupMs = -1;
  const rounds = await work(() => {
    if (setupMs < 0) setupMs = performance.now() - t0;
  });
  return { label, ms: performance.now() - t0 - setupMs, rounds, innerMs: timers.inner, guardMs: timers.guard, setupMs };
}

function timedGuard(g: GenerationGuard): GenerationGuard {
  return {
    name: g.name,
    check: async (...a) => {
      const s = performance.now();
      try {
        return await g.check(...a);
      } finally {
        timers.guard += performance.now() - s;
      }
    },
  };
}

async function pass(k: number): Promise<Pass[]> {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-exp-'));
  const store = await openStore(join(dir, 'bench.db'));
  try {
    await executeRun({
      store,
      runId: 'src',
      cases,
      caseSet: { format: 'bench', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
      model: source,
      protocol: PAPER_PROTOCOL,
      resolveFamily: getFamily,
      concurrency: 1,
    });
    const src = await loadSourceRun(store, 'src');
    const baseline = await measure('main loop (executeRun)', async (started) => {
      const r = await executeRun({
        onProgress: started,
        store,
        runId: `base${k}`,
        cases,
        caseSet: { format: 'bench', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
        model: controller,
        protocol: PAPER_PROTOCOL,
        resolveFamily,
        concurrency: 1,
      });
      return r.progress.rounds;
    });
    const run = async (label: string, runId: string, build: ExperimentBuild, guard?: Parameters<typeof executeExperiment>[0]['guard']) =>
      measure(label, async (started) => {
        const r = await executeExperiment({
          store,
          runId,
          build,
          model: controller,
          decoding,
          resolveFamily,
          guard,
          concurrency: 1,
          onProgress: started,
        });
        return r.progress.rounds;
      });
    const states = (design: 'history' | 'crossover' | 'persist') => {
      const s = selectStates(src.planned, 'src', src.trajectories, { design, select: 'all', maxStates: 100_000 });
      return { states: s, sha256: statesSha256(s), path: null };
    };
    const history = await run(
      'history, 5 arms',
      'h',
      buildHistory(src, states('history'), { arms: parseArms('full,reset,last:1,abstract,ban'), budget: 8, resolveFamily: getFamily }),
    );
    const crossover = await run(
      'crossover',
      'x',
      buildCrossover(src, states('crossover'), { controller: controller.label, budget: 8, resolveFamily: getFamily }),
    );
    if (!canTokenize(controller)) throw new Error('sim tokenizes');
    const persist = await run(
      'persist to 32, window',
      'p',
      buildPersist(src, states('persist'), { budget: 32, contextWindow: 1_000_000, resolveFamily: getFamily }),
      timedGuard(contextWindowGuard((await createModel('sim:instant')) as Parameters<typeof contextWindowGuard>[0], 1_000_000)),
    );
    return [baseline, history, crossover, persist];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `bench/experiments — SIMULATED controllers (sim:instant, no latency); ${cases.length} cases (${structured ? 'all six families' : 'exact length only: no Punkt'}); concurrency 1; load ${loadavg()[0].toFixed(2)}`,
);
const all: Pass[][] = [];
for (let k = 0; k < repeat; k++) all.push(await pass(k));
const labels = all[0].map((p) => p.label);
const ms = (p: Pass) => p.ms / Math.max(p.rounds, 1);
const over = (p: Pass) => (p.ms - p.innerMs - p.guardMs) / Math.max(p.rounds, 1);
const guard = (p: Pass) => p.guardMs / Math.max(p.rounds, 1);
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const baseOver = median(all.map((r) => over(r[0])));
for (const [i, label] of labels.entries()) {
  const runs = all.map((r) => r[i]);
  console.log(
    `${label.padEnd(24)} ${runs[0].rounds} generated rounds: ${median(runs.map(ms)).toFixed(3)} ms/round in all, ` +
      `overhead (engine + store + policy) ${median(runs.map(over)).toFixed(3)} ms/round` +
      (i ? ` (${(median(runs.map(over)) / baseOver).toFixed(2)}× the main loop's)` : '') +
      (runs[0].guardMs ? `; token counting for the context window ${median(runs.map(guard)).toFixed(3)} ms/round` : '') +
      `; setup (plan, frozen rounds) ${median(runs.map((p) => p.setupMs)).toFixed(0)} ms once — median of ${repeat}; target < 1 ms`,
  );
}
console.log(`load after: ${loadavg()[0].toFixed(2)}`);
