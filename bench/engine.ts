// Engine and store overhead: the closed loop over the paper's 960 structured cases (and, with
// --all, the 480 exact-length ones) against the instant in-process simulator (sim:instant, SIMULATED),
// once without a store and once recording everything in a SQLite store (the full run path: plan,
// events, derived tables, group commits), both with the same concurrency. Prints trajectories/s,
// rounds/s, ms per round and the store's overhead per round; at concurrency 1 also the
// split into the verifier, the simulator and the rest (engine and, in the second pass, store). With
// more than one trajectory in flight the calls overlap and that split is not shown.
// Target: engine + store < 1 ms per round.
//
//   npx tsx bench/engine.ts [--all] [--limit N] [--concurrency 1]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCaseSet } from '../src/core/cases/index.ts';
import { runTrajectory, type TrajectorySink } from '../src/engine/loop.ts';
import { PAPER_PROTOCOL } from '../src/engine/protocol.ts';
import { executeRun } from '../src/engine/trajectory-run.ts';
import { createModel } from '../src/models/index.ts';
import { openStore } from '../src/store/store.ts';
import { sharedDataFile } from '../src/core/util/shared-data.ts';
import type { ConstraintCase } from '../src/core/verify/types.ts';
import { timedFamilies, timedModel } from './timing.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const files = [
  'lexical_constraints_combined480.jsonl',
  'compositional_constraints_combined480.jsonl',
  ...(process.argv.includes('--all') ? ['generation_combined480.jsonl'] : []),
];
const cases: ConstraintCase[] = [];
for (const f of files) {
  const path = sharedDataFile('paper-cases', f);
  if (!path) {
    console.log(`bench/engine: ../shared/data/paper-cases/${f} not found (set REVLOOP_SHARED); nothing measured`);
    process.exit(0);
  }
  cases.push(...(await loadCaseSet(path, { skipWitnessChecks: true })).cases);
}
const limit = arg('limit') ? Number(arg('limit')) : cases.length;
const selected = cases.slice(0, limit);
const concurrency = Number(arg('concurrency') ?? '1');

/** Time spent inside the verifier (verify, energy, feedback, prompts) and the model. */
const timers = { verifier: 0, model: 0 };
const resolveFamily = timedFamilies((ms) => (timers.verifier += ms));

const model = timedModel(await createModel('sim:instant'), (ms) => (timers.model += ms));
const nullSink: TrajectorySink = { attemptStarted() {}, attemptFinished() {}, draftAccepted() {}, incomplete() {} };

// Warm-up (JIT, Punkt parameters, regexes) on a few cases, not measured.
for (const c of selected.slice(0, 20))
  await runTrajectory({ caseIndex: 0, case: c, family: resolveFamily(c.family), prior: [] }, model, nullSink, { protocol: PAPER_PROTOCOL });

interface Pass {
  label: string;
  wallMs: number;
  rounds: number;
  verifierMs: number;
  modelMs: number;
}

const split = concurrency === 1;
function report(p: Pass, base?: Pass): void {
  const perRound = (ms: number) => (ms / p.rounds).toFixed(3);
  const rest = p.wallMs - p.verifierMs - p.modelMs;
  console.log(
    `${p.label.padEnd(22)} ${selected.length} trajectories, ${p.rounds} rounds in ${(p.wallMs / 1000).toFixed(2)} s: ` +
      `${((selected.length / p.wallMs) * 1000).toFixed(1)} traj/s, ${((p.rounds / p.wallMs) * 1000).toFixed(0)} rounds/s, ${perRound(p.wallMs)} ms/round` +
      (split
        ? ` (verifier ${perRound(p.verifierMs)}, simulator ${perRound(p.modelMs)}, engine${base ? ' + store' : ''} ${perRound(rest)})`
        : ''),
  );
  if (base) {
    console.log(
      `${''.padEnd(22)} store overhead ${perRound(p.wallMs - base.wallMs)} ms/round` +
        (split ? `; engine + store ${perRound(rest)} ms/round (target < 1 ms)` : ' (target: engine + store < 1 ms/round)'),
    );
  }
}

/** Every selected case through runTrajectory with `concurrency` in flight, in case order. */
async function runAll(sink: TrajectorySink): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < selected.length) {
        const i = next++;
        const c = selected[i];
        await runTrajectory({ caseIndex: i, case: c, family: resolveFamily(c.family), prior: [] }, model, sink, {
          protocol: PAPER_PROTOCOL,
        });
      }
    }),
  );
}

// Pass 1: the engine alone.
timers.verifier = timers.model = 0;
let rounds = 0;
const counting: TrajectorySink = { ...nullSink, draftAccepted: () => void rounds++ };
let t0 = performance.now();
await runAll(counting);
const noStore: Pass = {
  label: 'engine, no store',
  wallMs: performance.now() - t0,
  rounds,
  verifierMs: timers.verifier,
  modelMs: timers.model,
};

// Pass 2: the full run path (plan, events, derived tables) into a fresh SQLite store.
const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-'));
const store = await openStore(join(dir, 'bench.db'));
const planStart = performance.now();
timers.verifier = timers.model = 0;
let planMs = 0;
t0 = performance.now();
const result = await executeRun({
  store,
  runId: 'bench',
  cases: selected,
  caseSet: { format: 'paper-structured', total: selected.length, limit: null, fileSha256: null, manifest: null, path: null },
  model,
  protocol: PAPER_PROTOCOL,
  resolveFamily,
  concurrency,
  onProgress: (p) => {
    if (p.done === 0 && planMs === 0) planMs = performance.now() - planStart;
  },
});
const wallStore = performance.now() - t0;
const events = { n: (await store.readEvents('bench')).length };
const withStore: Pass = {
  label: 'engine + SQLite store',
  wallMs: wallStore,
  rounds: result.progress.rounds,
  verifierMs: timers.verifier,
  modelMs: timers.model,
};
await store.close();
rmSync(dir, { recursive: true, force: true });

console.log(`bench/engine — SIMULATED controller sim:instant (no latency), ${files.join(' + ')}, budget 8, concurrency ${concurrency}`);
report(noStore);
report(withStore, noStore);
console.log(
  `${''.padEnd(22)} ${events.n} events written; planning (fingerprints, plan hash, plan event) ${planMs.toFixed(0)} ms of the run`,
);
if (withStore.rounds !== noStore.rounds)
  console.log(`note: the two passes produced different round counts (${noStore.rounds} vs ${withStore.rounds})`);
