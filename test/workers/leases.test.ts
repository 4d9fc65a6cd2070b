// Leases and workers on PostgreSQL (docs/workers.md): claims, expiry and takeover, a stale writer
// refused and counted, a dead session's trajectories claimable at once, several workers sharing a
// run ending where a single SQLite process ends, and one plan per run however many planners.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareRun, type RunRequest } from '../../src/engine/trajectory-run.ts';
import { runWorker } from '../../src/engine/worker.ts';
import { PAPER_PROTOCOL } from '../../src/engine/protocol.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { LeaseLostError, openStore, type Lease, type LeaseSupport, type RunStore } from '../../src/store/store.ts';
import { PlanMismatchError } from '../../src/core/errors.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import type { Model } from '../../src/models/types.ts';
import { fakeModel, resolveToy, toyCases } from '../loop/fakes.ts';
import { toyRun } from '../store/toy-run.ts';
import { PG_SKIP, rawDb, testStore } from '../store/backends.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function request(store: RunStore, cases: ConstraintCase[], model: Model = fakeModel()): RunRequest {
  return {
    store,
    runId: 'toy',
    cases,
    caseSet: { format: 'toy', total: cases.length, limit: null, fileSha256: null, manifest: null, path: null },
    model,
    protocol: PAPER_PROTOCOL,
    resolveFamily: resolveToy,
    concurrency: 2,
    abandonAfterMs: 50,
  };
}

const context = (model: Model) => async () => ({ runId: 'toy', model, protocol: PAPER_PROTOCOL, resolveFamily: resolveToy });

/** The store as a worker sees it, with some of its lease operations replaced (the rest delegated). */
function withLeases(store: RunStore, replaced: Partial<LeaseSupport>): RunStore {
  const real = store.leases!;
  const leases: LeaseSupport = {
    register: (i) => real.register(i),
    claim: (w, o) => real.claim(w, o),
    renew: (w, secs) => real.renew(w, secs),
    release: (l) => real.release(l),
    unregister: (w) => real.unregister(w),
    pending: (except) => real.pending(except),
    workers: () => real.workers(),
    ...replaced,
  };
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'leases') return leases;
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Draft keys (case:revision) of a run, each once, and every trajectory completed at most once. */
async function assertExactlyOnce(store: RunStore): Promise<void> {
  const events = await store.readEvents('toy');
  const drafts = events.filter((e) => e.type === 'draft_accepted').map((e) => `${e.caseIndex}:${e.revision}`);
  assert.equal(new Set(drafts).size, drafts.length, 'no round twice');
  const completed = events.filter((e) => e.type === 'trajectory_completed').map((e) => e.caseIndex);
  assert.equal(new Set(completed).size, completed.length, 'no trajectory completed twice');
}

/**
 * Two stores on one fresh PostgreSQL database (two workers' connections), with the toy run of
 * `cases` planned through the first; both are closed after `body`. `firstKilled`: the test ends the
 * first store's session, so closing it may fail.
 */
async function withTwoStores(
  cases: ConstraintCase[],
  body: (a: RunStore, b: RunStore, location: string) => Promise<void>,
  options: { firstKilled?: boolean } = {},
): Promise<void> {
  const s = testStore('postgres');
  const a = await openStore(s.location);
  const b = await openStore(s.location);
  try {
    await prepareRun(request(a, cases));
    await body(a, b, s.location);
  } finally {
    await (options.firstKilled ? a.close().catch(() => undefined) : a.close());
    await b.close();
    await s.cleanup();
  }
}

/** Ends a registered worker's database session as a SIGKILL does: its connections close, its session locks go. */
async function endSession(location: string, worker: number): Promise<void> {
  const db = await rawDb(location);
  const [{ pid }] = await db.all<{ pid: number }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND objid::bigint = ? AND granted",
    worker,
  );
  await db.run('SELECT pg_terminate_backend(?)', pid);
  await db.close();
  await sleep(100);
}

test(
  'claims: pending trajectories once each; an expired lease is taken over and the old holder can no longer write (refused, counted)',
  { skip: PG_SKIP },
  async () =>
    withTwoStores(toyCases(3, 'claims'), async (a, b) => {
      const wa = await a.leases!.register({ concurrency: 2, leaseSeconds: 1 });
      const wb = await b.leases!.register({ concurrency: 2, leaseSeconds: 1 });
      const first = await a.leases!.claim(wa, { runId: 'toy', limit: 2, leaseSeconds: 1 });
      assert.deepEqual(
        first.map((l) => [l.caseIndex, l.epoch]),
        [
          [0, 1],
          [1, 1],
        ],
      );
      // Held and alive: B gets only what is left.
      const second = await b.leases!.claim(wb, { runId: 'toy', limit: 5, leaseSeconds: 1 });
      assert.deepEqual(
        second.map((l) => l.caseIndex),
        [2],
      );
      const started = (caseIndex: number) => ({
        type: 'attempt_started' as const,
        caseIndex,
        revision: 0,
        payload: { messages_sha256: 'x'.repeat(64), message_count: 1, max_tokens: 16 },
      });
      await a.append('toy', [started(0)], { lease: first[0] });
      // Nobody renews (A stalled; B's own lease lapses too): after a second B claims all three, each a new epoch.
      await sleep(1100);
      const taken = await b.leases!.claim(wb, { runId: 'toy', limit: 5, leaseSeconds: 30 });
      assert.deepEqual(
        taken.map((l) => [l.caseIndex, l.epoch]),
        [
          [0, 2],
          [1, 2],
          [2, 2],
        ],
      );
      await assert.rejects(a.append('toy', [started(0)], { lease: first[0] }), (e) => e instanceof LeaseLostError);
      await assert.rejects(a.appendSoon('toy', [started(1)], { lease: first[1] }), (e) => e instanceof LeaseLostError);
      await b.append('toy', [started(0)], { lease: taken[0] });
      const workers = await b.leases!.workers();
      assert.equal(workers.find((w) => w.worker === wa)!.rejectedWrites, 2);
      assert.equal(workers.find((w) => w.worker === wb)!.rejectedWrites, 0);
      assert.deepEqual(
        workers
          .find((w) => w.worker === wb)!
          .leases.map((l) => l.caseIndex)
          .sort(),
        [0, 1, 2],
      );
      // The refused writes left nothing: one attempt from A (before the takeover), one from B.
      assert.equal((await a.readEvents('toy', { types: ['attempt_started'] })).length, 2);
      // A renewal tells A what it still holds: nothing.
      assert.deepEqual(await a.leases!.renew(wa, 1), []);
    }),
);

test('a worker whose database session closes (killed) loses its leases at once, before they expire', { skip: PG_SKIP }, async () =>
  withTwoStores(
    toyCases(2, 'live'),
    async (a, b, location) => {
      const wa = await a.leases!.register({ concurrency: 2, leaseSeconds: 600 });
      const wb = await b.leases!.register({ concurrency: 2, leaseSeconds: 600 });
      assert.equal((await a.leases!.claim(wa, { runId: 'toy', limit: 2, leaseSeconds: 600 })).length, 2);
      assert.deepEqual(await b.leases!.claim(wb, { runId: 'toy', limit: 2, leaseSeconds: 600 }), []);
      // What the server sees when a worker is SIGKILLed.
      await endSession(location, wa);
      const listed = (await b.leases!.workers()).find((w) => w.worker === wa)!;
      assert.equal(listed.alive, false);
      // Its claims ended with its session: it holds nothing, and both trajectories are free to claim.
      assert.deepEqual(listed.leases, []);
      assert.deepEqual(
        listed.released.map((l) => l.caseIndex),
        [0, 1],
      );
      const taken = await b.leases!.claim(wb, { runId: 'toy', limit: 2, leaseSeconds: 600 });
      assert.deepEqual(
        taken.map((l) => [l.caseIndex, l.epoch]),
        [
          [0, 2],
          [1, 2],
        ],
      );
      await assert.rejects(a.leases!.renew(wa, 600), /cannot reach PostgreSQL|terminat/i);
    },
    { firstKilled: true },
  ),
);

test(
  'a worker killed between completing its trajectories and giving their leases back: none is listed as held, none is claimable',
  { skip: PG_SKIP },
  async () =>
    withTwoStores(
      toyCases(2, 'handback'),
      async (a, b, location) => {
        // A finishes both trajectories but gives no lease back and never unregisters: what a SIGKILL
        // right after each completion's commit leaves behind.
        const result = await runWorker({
          store: withLeases(a, { release: async () => undefined, unregister: async () => undefined }),
          runId: 'toy',
          context: context(fakeModel()),
          concurrency: 2,
          leaseSeconds: 600,
          untilDone: true,
        });
        assert.equal(result.progress.done, 2);
        const db = await rawDb(location);
        assert.deepEqual(
          await db.all<{ n: number }>("SELECT count(*)::int AS n FROM leases WHERE run_id = 'toy' AND worker = ?", result.worker),
          [{ n: 2 }],
          'the rows still name the worker',
        );
        await db.close();
        // Its session ends as a killed worker's does.
        await endSession(location, result.worker);
        const listed = (await b.leases!.workers()).find((w) => w.worker === result.worker)!;
        assert.equal(listed.alive, false);
        assert.deepEqual(listed.leases, [], 'a lease on a finished trajectory holds nothing');
        const wb = await b.leases!.register({ concurrency: 2, leaseSeconds: 600 });
        assert.deepEqual(await b.leases!.claim(wb, { runId: 'toy', limit: 2, leaseSeconds: 600 }), []);
        assert.equal(await b.leases!.pending(), 0);
        const [run] = await b.listRuns();
        assert.equal(run.status, 'complete');
        await assertExactlyOnce(b);
      },
      { firstKilled: true },
    ),
);

test(
  'a lease stolen during a stalled write: the late write is refused and counted, the new holder finishes, nothing is stored twice',
  { skip: PG_SKIP },
  async () => {
    // A case whose trajectory needs a second generation (so there is a round to stall on).
    let cases: ConstraintCase[];
    const ref = testStore('sqlite');
    for (let k = 0; ; k++) {
      cases = toyCases(3, `steal-${k}`);
      const path = ref.another();
      await toyRun(path, { cases });
      const r = await openStore(path, { readonly: true });
      const rounds = (await r.loadTrajectories(['toy']))[0].rounds.length;
      await r.close();
      if (rounds >= 2) break;
    }
    const refPath = ref.another();
    await toyRun(refPath, { cases });
    const refStore = await openStore(refPath, { readonly: true });
    try {
      await withTwoStores(cases, async (a, b) => {
        // A stalls inside its second generation of case 0 (a GC pause, a frozen VM, a slow network…).
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let stalled!: () => void;
        const reached = new Promise<void>((r) => (stalled = r));
        const inner = fakeModel();
        const stalling: Model = {
          ...inner,
          async generate(messages, options) {
            if (messages.length === 3 && messages[0].content.includes('item 0.')) {
              stalled();
              await gate;
            }
            return inner.generate(messages, options);
          },
        };
        const stopA = new AbortController();
        const workerA = runWorker({
          store: a,
          runId: 'toy',
          context: context(stalling),
          concurrency: 1,
          leaseSeconds: 1,
          heartbeatMs: 1_000_000_000, // stalled: no renewal either
          pollMs: 50,
          signal: stopA.signal,
          abandonAfterMs: 2000,
        });
        await reached;
        await sleep(1200); // A's lease expires
        const resultB = await runWorker({
          store: b,
          runId: 'toy',
          context: context(fakeModel()),
          concurrency: 2,
          leaseSeconds: 30,
          untilDone: true,
        });
        assert.equal(resultB.progress.lost, 0);
        assert.ok(resultB.progress.done >= 1);
        release(); // A wakes up and writes its round
        // Its refusal is counted in the store in the same commit; a busy machine may take a while.
        for (let waited = 0; waited < 10_000; waited += 50) {
          if ((await b.leases!.workers()).some((w) => w.rejectedWrites > 0)) break;
          await sleep(50);
        }
        await sleep(50); // and the worker's own counter, a few microtasks later
        stopA.abort();
        const resultA = await workerA;
        assert.equal(resultA.progress.rejectedWrites, 1, 'the late write was refused');
        assert.equal(resultA.progress.lost, 1);
        const listed = (await b.leases!.workers()).find((w) => w.worker === resultA.worker)!;
        assert.equal(listed.rejectedWrites, 1, 'and counted in the store');
        await assertExactlyOnce(b);
        assert.deepEqual(await b.loadTrajectories(['toy']), await refStore.loadTrajectories(['toy']));
        const audit = await auditRun(b, 'toy', resolveToy);
        assert.deepEqual(audit.discrepancies.map(formatDiscrepancy), []);
        // Case 0's log: A's first round (with the start of its second generation), then B from there on.
        const log = (await b.readEvents('toy')).filter((e) => e.caseIndex === 0).map((e) => `${e.type}:${e.revision}`);
        assert.deepEqual(log.slice(0, 5), [
          'attempt_started:0',
          'attempt_finished:0',
          'draft_accepted:0',
          'attempt_started:1',
          'attempt_started:1',
        ]);
      });
    } finally {
      await refStore.close();
      await ref.cleanup();
    }
  },
);

test(
  'a trajectory claimed while a renewal is in flight is not taken for lost: the renewal could not see it',
  { skip: PG_SKIP, timeout: 60_000 },
  async () => {
    const cases = toyCases(5, 'renew-race');
    const s = testStore('postgres');
    const store = await openStore(s.location);
    try {
      await prepareRun(request(store, cases));
      // Each renewal's answer (computed by the database) is held back until a claim made after it
      // was asked has returned, so every renewal races a claim it cannot have seen.
      const real = store.leases!;
      let claims = 0;
      let raced = 0;
      const raceful = withLeases(store, {
        claim: async (w, o) => {
          const got = await real.claim(w, o);
          if (got.length) claims++;
          return got;
        },
        renew: async (w, secs) => {
          const asked = claims;
          const held = await real.renew(w, secs);
          for (let waited = 0; claims === asked && waited < 300; waited += 5) await sleep(5);
          if (claims > asked) raced++;
          return held;
        },
      });
      const result = await runWorker({
        store: raceful,
        runId: 'toy',
        context: context(fakeModel()),
        concurrency: 1,
        leaseSeconds: 30,
        heartbeatMs: 10,
        pollMs: 10,
        untilDone: true,
        // Before the fix the abandoned trajectory kept its (renewed) lease and the worker waited forever.
        signal: AbortSignal.timeout(30_000),
      });
      assert.ok(raced > 0, 'some renewal answered after a later claim');
      assert.equal(result.stopped, null, 'the run finished');
      assert.equal(result.progress.lost, 0);
      assert.equal(result.progress.done, cases.length);
      await assertExactlyOnce(store);
    } finally {
      await store.close();
      await s.cleanup();
    }
  },
);

test(
  'a freed slot is refilled while its lease goes back: the next claim does not wait for the release',
  { skip: PG_SKIP, timeout: 60_000 },
  async () => {
    // Over a slow link every trajectory used to idle its slot for the release's round trip first.
    // Here releases are held until the worker has returned: with one slot and polling off, a claim
    // that waited for them would never come.
    const cases = toyCases(4, 'refill');
    const s = testStore('postgres');
    const store = await openStore(s.location);
    try {
      await prepareRun(request(store, cases));
      const real = store.leases!;
      const held: Array<{ lease: Lease; done: () => void }> = [];
      const claimedWhileHeld: number[] = [];
      const slow = withLeases(store, {
        claim: async (w, o) => {
          const got = await real.claim(w, o);
          if (got.length) claimedWhileHeld.push(held.length);
          return got;
        },
        release: (lease) => new Promise<void>((done) => held.push({ lease, done })),
      });
      const result = await runWorker({
        store: slow,
        runId: 'toy',
        context: context(fakeModel()),
        concurrency: 1,
        leaseSeconds: 30,
        pollMs: 3_600_000,
        untilDone: true,
        signal: AbortSignal.timeout(30_000),
      });
      assert.equal(result.stopped, null, 'the run finished without waiting for a release');
      assert.equal(result.progress.done, cases.length);
      assert.deepEqual(claimedWhileHeld, [0, 1, 2, 3], 'each claim came while the earlier releases were still out');
      assert.deepEqual(
        held.map((h) => h.lease.caseIndex),
        [0, 1, 2, 3],
      );
      // The held releases go through now; each gives back a lease the worker's exit already gave back.
      for (const h of held) await real.release(h.lease).then(h.done);
      await assertExactlyOnce(store);
      assert.equal((await store.listRuns())[0].status, 'complete');
      assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
    } finally {
      await store.close();
      await s.cleanup();
    }
  },
);

test(
  'a worker whose provider keeps failing stops after N protocol-incomplete trajectories in a row; what it left is free for other workers',
  { skip: PG_SKIP },
  async () => {
    const s = testStore('postgres');
    const store = await openStore(s.location);
    try {
      await prepareRun(request(store, toyCases(5, 'down')));
      const down = await runWorker({
        store,
        runId: 'toy',
        context: context(fakeModel({ faults: () => 9 })),
        concurrency: 1,
        leaseSeconds: 30,
        untilDone: true,
        maxConsecutiveFailures: 2,
        abandonAfterMs: 50,
      });
      assert.equal(down.stopped?.reason, 'provider-failures');
      assert.match(
        down.stopped!.message,
        /^2 trajectories in a row ended protocol-incomplete \(last: .+\); stopped to spare the provider$/,
      );
      assert.deepEqual([down.progress.done, down.progress.incomplete, down.progress.successes], [2, 2, 0]);
      const [stopped] = await store.listRuns();
      assert.deepEqual([stopped.incomplete, stopped.pending, stopped.leased], [2, 3, 0]);
      assert.ok(
        (await store.leases!.workers()).every((w) => w.leases.length === 0),
        'no lease is left held',
      );
      // Another worker, whose provider answers, takes up the rest.
      const up = await runWorker({ store, runId: 'toy', context: context(fakeModel()), concurrency: 2, leaseSeconds: 30, untilDone: true });
      assert.equal(up.stopped, null);
      assert.equal(up.progress.done, 3);
      const [after] = await store.listRuns();
      assert.deepEqual([after.complete, after.incomplete, after.pending], [3, 2, 0]);
      await assertExactlyOnce(store);
      assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
    } finally {
      await store.close();
      await s.cleanup();
    }
  },
);

test('three workers sharing a run end where one SQLite process ends; every round once', { skip: PG_SKIP }, async () => {
  const cases = toyCases(24, 'share');
  const ref = testStore('sqlite');
  const s = testStore('postgres');
  const stores = await Promise.all([1, 2, 3].map(() => openStore(s.location)));
  try {
    await toyRun(ref.location, { cases });
    await prepareRun(request(stores[0], cases));
    const results = await Promise.all(
      stores.map((store) =>
        runWorker({ store, runId: 'toy', context: context(fakeModel({ delayMs: 3 })), concurrency: 2, leaseSeconds: 30, untilDone: true }),
      ),
    );
    assert.equal(
      results.reduce((n, r) => n + r.progress.done, 0),
      24,
    );
    assert.ok(results.filter((r) => r.progress.done > 0).length >= 2, 'the work was shared');
    const refStore = await openStore(ref.location, { readonly: true });
    assert.deepEqual(await stores[0].loadTrajectories(['toy']), await refStore.loadTrajectories(['toy']));
    assert.deepEqual(await stores[0].loadTrajectories(['toy'], { from: 'events' }), await refStore.loadTrajectories(['toy']));
    await refStore.close();
    await assertExactlyOnce(stores[0]);
    assert.equal((await stores[0].readEvents('toy', { types: ['session_started'] })).length, 3, 'one session per worker');
    assert.equal((await stores[0].listRuns())[0].status, 'complete');
    assert.deepEqual((await auditRun(stores[0], 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
  } finally {
    for (const st of stores) await st.close();
    await s.cleanup();
    await ref.cleanup();
  }
});

test(
  'one plan per run across planners and workers: racing planners create it once; a different plan is refused',
  { skip: PG_SKIP },
  async () => {
    const s = testStore('postgres');
    const stores = await Promise.all([1, 2, 3, 4].map(() => openStore(s.location)));
    try {
      const cases = toyCases(4, 'plans');
      const prepared = await Promise.all(stores.map((st) => prepareRun(request(st, cases))));
      assert.equal(prepared.filter((p) => p.created).length, 1, 'exactly one planner created the run');
      assert.equal((await stores[0].readEvents('toy', { types: ['run_planned'] })).length, 1);
      await assert.rejects(
        prepareRun({ ...request(stores[1], cases), protocol: { ...PAPER_PROTOCOL, budget: 3 } }),
        (e) => e instanceof PlanMismatchError && /protocol\.budget: stored 8, requested 3/.test(e.message),
      );
      await assert.rejects(prepareRun(request(stores[2], toyCases(4, 'other'))), PlanMismatchError);
    } finally {
      for (const st of stores) await st.close();
      await s.cleanup();
    }
  },
);

test(
  'claims across runs: oldest run first, in case order, skipping held and finished trajectories and runs the worker excepts; --run keeps to one run',
  { skip: PG_SKIP },
  async () => {
    const s = testStore('postgres');
    const store = await openStore(s.location);
    try {
      for (const runId of ['a', 'b', 'c']) await prepareRun({ ...request(store, toyCases(3, `order-${runId}`)), runId });
      const other = await store.leases!.register({ concurrency: 1, leaseSeconds: 60 });
      const me = await store.leases!.register({ concurrency: 8, leaseSeconds: 60 });
      const held = await store.leases!.claim(other, { runId: 'a', limit: 1, leaseSeconds: 60 }); // a#0, held by a live worker
      const names = (ls: Lease[]) => ls.map((l) => `${l.runId}#${l.caseIndex}`);
      assert.deepEqual(names(held), ['a#0']);
      // Runs a worker cannot run are passed over, and not counted as pending for it.
      const excepting = await store.leases!.claim(me, { limit: 1, leaseSeconds: 60, exceptRuns: ['a', 'b'] });
      assert.deepEqual(names(excepting), ['c#0']);
      const pending = (except?: string[]) => store.leases!.pending(except);
      assert.deepEqual([await pending(), await pending(['a', 'c']), await pending(['a', 'b', 'c'])], [9, 3, 0]);
      await store.leases!.release(excepting[0]);
      assert.deepEqual(names(await store.leases!.claim(me, { limit: 3, leaseSeconds: 60 })), ['a#1', 'a#2', 'b#0']);
      assert.deepEqual(names(await store.leases!.claim(me, { runId: 'c', limit: 2, leaseSeconds: 60 })), ['c#0', 'c#1']);
      // A finished trajectory is never claimed again, even with its lease free.
      const b1 = (await store.leases!.claim(other, { runId: 'b', limit: 1, leaseSeconds: 60 }))[0];
      await store.append(
        'b',
        [{ type: 'trajectory_completed', caseIndex: 1, payload: { stop: 'budget', rounds: 0, final_joint: false } }],
        {
          lease: b1,
        },
      );
      await store.leases!.release(b1);
      assert.deepEqual(names(await store.leases!.claim(me, { limit: 8, leaseSeconds: 60 })), ['b#2', 'c#2']);
      assert.deepEqual(await store.leases!.claim(me, { limit: 8, leaseSeconds: 60 }), []);
    } finally {
      await store.close();
      await s.cleanup();
    }
  },
);
