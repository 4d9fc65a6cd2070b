// A worker without --run moves through a sweep run by run (docs/workers.md "A sweep of models"): it
// keeps a run's model only while that run's trajectories are in flight here and another run's are
// not, so a sweep of in-process (GGUF) models holds one or two of them, never every model it met;
// with untilDone (--until-done) it returns once no planned run has a pending trajectory; with
// oneRunAtATime (--one-run-at-a-time) it holds one model at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCases } from '../../src/app/run.ts';
import { workCommand } from '../../src/app/worker.ts';
import { openStore } from '../../src/store/store.ts';
import { PG_SKIP } from '../store/backends.ts';
import { withDemoCases } from './fixtures.ts';

test(
  'a worker on every run closes the model of a run it has moved on from, and only then; with untilDone it returns once the sweep is done',
  { skip: PG_SKIP, timeout: 60_000 },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      const runs = ['r1', 'r2', 'r3'];
      for (const [i, runId] of runs.entries())
        await runCases({ cases, model: `sim:steady?latency_ms=${2 + i}`, store: pg.location, runId, limit: 3, workers: 0 });
      const opened: string[] = [];
      const closed: string[] = [];
      let open = 0;
      let most = 0;
      // untilDone: the worker returns by itself once no planned run has a pending trajectory.
      const outcome = await workCommand(
        { store: pg.location, concurrency: 1, untilDone: true, pollMs: 50 },
        {
          onRun: (r) => {
            opened.push(r.runId);
            most = Math.max(most, ++open);
          },
          onNote: (t) => {
            const m = /^run '(r\d)': none of its trajectories is in flight here; its model \(.+\) is closed$/.exec(t);
            if (m) {
              closed.push(m[1]);
              open--;
            }
          },
        },
      );
      assert.equal(outcome.stopped, null);
      assert.equal(outcome.progress.done, 9);
      assert.deepEqual(opened, runs, 'each model built once, run after run');
      assert.deepEqual(closed, ['r1', 'r2'], "each closed once the worker moved on; the last one's at exit");
      assert.ok(most <= 2, `at most two models at once (${most})`);
      const store = await openStore(pg.location, { readonly: true });
      try {
        for (const runId of runs) assert.equal((await store.getRun(runId))?.summary.complete, 3, runId);
      } finally {
        await store.close();
      }
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
      const runs = ['r1', 'r2', 'r3'];
      for (const [i, runId] of runs.entries())
        await runCases({ cases, model: `sim:steady?latency_ms=${5 + i}`, store: pg.location, runId, limit: 3, workers: 0 });
      const events: string[] = [];
      let open = 0;
      let most = 0;
      // Concurrency 4 against runs of 3: a worker claiming freely would start r2 while r1's trajectories run.
      const outcome = await workCommand(
        { store: pg.location, concurrency: 4, untilDone: true, oneRunAtATime: true, pollMs: 20 },
        {
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
        },
      );
      assert.equal(outcome.stopped, null);
      assert.equal(outcome.progress.done, 9);
      assert.deepEqual(events, ['open r1', 'close r1', 'open r2', 'close r2', 'open r3'], 'each model closed before the next is built');
      assert.equal(most, 1, 'one model at a time');
      const store = await openStore(pg.location, { readonly: true });
      try {
        for (const runId of runs) assert.equal((await store.getRun(runId))?.summary.complete, 3, runId);
      } finally {
        await store.close();
      }
    }),
);
