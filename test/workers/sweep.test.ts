// A worker without --run moves through a sweep run by run (docs/workers.md "A sweep of models"): it
// keeps a run's model only while that run's trajectories are in flight here and another run's are
// not, so a sweep of in-process (GGUF) models holds one or two of them, never every model it met;
// with untilDone (--until-done) it returns once no planned run has a pending trajectory; with
// oneRunAtATime (--one-run-at-a-time) it holds one model at a time; a run it cannot run is skipped
// and left to workers that can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCases } from '../../src/app/run.ts';
import { unattendedRuns, workCommand, type WorkerHooks } from '../../src/app/worker.ts';
import { registerFamily, unregisterFamily } from '../../src/core/verify/registry.ts';
import { openStore } from '../../src/store/store.ts';
import { PG_SKIP } from '../store/backends.ts';
import { TOY_FAMILY, toyLengthFamily, withDemoCases, writeToyLengthCases } from './fixtures.ts';

const RUNS = ['r1', 'r2', 'r3'];

/** Plans three runs of 3 cases, each with its own model (latencies differ, so the specs do). */
async function planSweep(store: string, cases: string, latencyMs: number): Promise<void> {
  for (const [i, runId] of RUNS.entries())
    await runCases({ cases, model: `sim:steady?latency_ms=${latencyMs + i}`, store, runId, limit: 3, workers: 0 });
}

/** Watches a worker's models: 'open rN' once built, 'close rN' once closed, and the most open at once. */
function watchModels(): { events: string[]; most: () => number; hooks: WorkerHooks } {
  const events: string[] = [];
  let open = 0;
  let most = 0;
  const hooks: WorkerHooks = {
    onRun: (r) => {
      events.push(`open ${r.runId}`);
      most = Math.max(most, ++open);
    },
    onNote: (t) => {
      const m = /^run '(r\d)': none of its trajectories is in flight here; its model \(.+\) is closed$/.exec(t);
      if (m) {
        events.push(`close ${m[1]}`);
        open--;
      }
    },
  };
  return { events, most: () => most, hooks };
}

async function assertSweepComplete(store: string): Promise<void> {
  const st = await openStore(store, { readonly: true });
  try {
    for (const runId of RUNS) assert.equal((await st.getRun(runId))?.summary.complete, 3, runId);
  } finally {
    await st.close();
  }
}

test(
  'a worker on every run closes the model of a run it has moved on from, and only then; with untilDone it returns once the sweep is done',
  { skip: PG_SKIP, timeout: 60_000 },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      await planSweep(pg.location, cases, 2);
      const watch = watchModels();
      // untilDone: the worker returns by itself once no planned run has a pending trajectory.
      const outcome = await workCommand({ store: pg.location, concurrency: 1, untilDone: true, pollMs: 50 }, watch.hooks);
      assert.equal(outcome.stopped, null);
      assert.equal(outcome.progress.done, 9);
      const opened = watch.events.filter((e) => e.startsWith('open ')).map((e) => e.slice(5));
      const closed = watch.events.filter((e) => e.startsWith('close ')).map((e) => e.slice(6));
      assert.deepEqual(opened, RUNS, 'each model built once, run after run');
      assert.deepEqual(closed, ['r1', 'r2'], "each closed once the worker moved on; the last one's at exit");
      assert.ok(watch.most() <= 2, `at most two models at once (${watch.most()})`);
      await assertSweepComplete(pg.location);
      // A worker started on a finished sweep returns at once, having claimed nothing.
      const late = await workCommand({ store: pg.location, untilDone: true, pollMs: 50 });
      assert.deepEqual([late.stopped, late.progress.claimed], [null, 0]);
    }),
);

test(
  'one run at a time: a worker on every run claims the next run only once the last one is over here, and closes its model before building the next',
  { skip: PG_SKIP, timeout: 60_000 },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      await planSweep(pg.location, cases, 5);
      const watch = watchModels();
      // Concurrency 4 against runs of 3: a worker claiming freely would start r2 while r1's trajectories run.
      const outcome = await workCommand(
        { store: pg.location, concurrency: 4, untilDone: true, oneRunAtATime: true, pollMs: 20 },
        watch.hooks,
      );
      assert.equal(outcome.stopped, null);
      assert.equal(outcome.progress.done, 9);
      assert.deepEqual(
        watch.events,
        ['open r1', 'close r1', 'open r2', 'close r2', 'open r3'],
        'each model closed before the next is built',
      );
      assert.equal(watch.most(), 1, 'one model at a time');
      await assertSweepComplete(pg.location);
    }),
);

test(
  'a worker on every run skips a run whose plan it cannot reproduce, finishes the others and says which it skipped; a worker that can run it does',
  { skip: PG_SKIP, timeout: 60_000 },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      // A plugin family, planned at version 1; the first worker has version 2 (another plugin release).
      registerFamily(toyLengthFamily('1'));
      try {
        const toyCases = await writeToyLengthCases(cases);
        await runCases({ cases, model: 'sim:steady?latency_ms=2', store: pg.location, runId: 'r1', limit: 3, workers: 0 });
        await runCases({ cases: toyCases, model: 'sim:steady?latency_ms=3', store: pg.location, runId: 'r2', limit: 3, workers: 0 });
        await runCases({ cases, model: 'sim:steady?latency_ms=4', store: pg.location, runId: 'r3', limit: 3, workers: 0 });
        registerFamily(toyLengthFamily('2'), { replace: true });
        // Another worker (one with the right version, say) holds two of r2's trajectories meanwhile.
        const other = await openStore(pg.location);
        const otherWorker = await other.leases!.register({ concurrency: 2, leaseSeconds: 600 });
        assert.equal((await other.leases!.claim(otherWorker, { runId: 'r2', limit: 2, leaseSeconds: 600 })).length, 2);
        const skips: Array<{ runId: string; reason: string }> = [];
        // Concurrency 2: r2's free trajectory may be claimed along with one of r1's or r3's; refused, the run is skipped once.
        const outcome = await workCommand(
          { store: pg.location, concurrency: 2, untilDone: true, pollMs: 20 },
          { onSkip: (s) => skips.push(s) },
        );
        assert.equal(outcome.stopped, null);
        assert.deepEqual(
          skips.map((s) => s.runId),
          ['r2'],
        );
        assert.match(skips[0].reason, /this worker cannot run 'r2': the plan it rebuilds differs from the stored one/);
        assert.match(skips[0].reason, /toy-length/);
        assert.deepEqual(outcome.skipped, [{ runId: 'r2', reason: skips[0].reason, pending: 3, leased: 2 }]);
        assert.deepEqual(
          [outcome.progress.claimed, outcome.progress.done],
          [6, 6],
          "r1 and r3 finished; r2's refused claims are not counted",
        );
        const st = await openStore(pg.location, { readonly: true });
        try {
          for (const runId of ['r1', 'r3']) assert.equal((await st.getRun(runId))?.summary.complete, 3, runId);
          const r2 = await st.getRun('r2');
          assert.deepEqual([r2?.summary.pending, r2?.summary.complete], [3, 0], 'r2 untouched');
        } finally {
          await st.close();
        }
        // A worker with the planning version runs it: the skipped trajectory's lease was given back,
        // and the other worker's once it stops.
        await other.leases!.unregister(otherWorker);
        await other.close();
        registerFamily(toyLengthFamily('1'), { replace: true });
        const second = await workCommand({ store: pg.location, concurrency: 2, untilDone: true, pollMs: 20 });
        assert.deepEqual([second.stopped, second.progress.done, second.skipped], [null, 3, []]);
        await assertSweepComplete(pg.location);
      } finally {
        unregisterFamily(TOY_FAMILY);
      }
    }),
);

test('a skipped run makes the exit code 2 only while some of its pending trajectories are held by no live worker', () => {
  const skipped = (pending: number | null, leased: number | null) => [{ runId: 'b', reason: 'unknown family', pending, leased }];
  assert.deepEqual(unattendedRuns(skipped(3, 0)), ['b'], 'nobody runs it');
  assert.deepEqual(unattendedRuns(skipped(3, 2)), ['b'], 'one trajectory nobody runs');
  assert.deepEqual(unattendedRuns(skipped(3, 3)), [], 'other workers run all of it');
  assert.deepEqual(unattendedRuns(skipped(0, 0)), [], 'other workers finished it');
  assert.deepEqual(unattendedRuns(skipped(null, null)), ['b'], 'unknown: the store could not be read');
});
