// `store copy` (src/store/copy.ts): runs move between SQLite and PostgreSQL as the same evidence —
// every row verbatim, chains verified, exports byte-identical both ways; a run already at the
// destination is extended only if it is the same run so far; anything else is refused before
// anything is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCases } from '../../src/app/run.ts';
import { exportRun } from '../../src/app/export.ts';
import { copyStore } from '../../src/app/store-copy.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { writeCaseSet } from '../../src/core/cases/write.ts';
import { StoreError } from '../../src/core/errors.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import { openStore, type RunStore } from '../../src/store/store.ts';
import { openCrashingStore, SimulatedCrash } from '../../src/test/index.ts';
import { copyRuns } from '../../src/store/copy.ts';
import type { EventRow } from '../../src/store/chain.ts';
import { toyCases, resolveToy } from '../loop/fakes.ts';
import { runToyIn, toyRun } from './toy-run.ts';
import { BACKENDS, PG_SKIP, rawDb, testStore, type TestStore } from './backends.ts';

const rowsOf = async (location: string, runId: string): Promise<Array<Omit<EventRow, 'id'>>> => {
  const s = await openStore(location, { readonly: true });
  try {
    return (await s.rawEventRows(runId)).map(({ id: _id, ...r }) => {
      delete (r as { key?: unknown }).key;
      return r;
    });
  } finally {
    await s.close();
  }
};

/** A toy run left unfinished: its store dies right after `afterAppends` committed groups. */
async function crashedToyRun(location: string, cases: ReturnType<typeof toyCases>, afterAppends: number): Promise<void> {
  const crashing = await openCrashingStore(location, afterAppends);
  await assert.rejects(runToyIn(crashing, { cases, concurrency: 1 }), SimulatedCrash);
  await crashing.close();
}

/** Two fresh SQLite stores, a source and a destination, removed afterwards. */
async function withSqlitePair(body: (src: TestStore, dst: TestStore) => Promise<void>): Promise<void> {
  const src = testStore('sqlite');
  const dst = testStore('sqlite');
  try {
    await body(src, dst);
  } finally {
    await src.cleanup();
    await dst.cleanup();
  }
}

const exported = async (store: string, runId: string) => (await exportRun({ store, runId, format: 'paper', output: null })).text!;

test('SQLite → PostgreSQL → SQLite: the same rows, audits pass, exports byte-identical', { skip: PG_SKIP }, async () => {
  const lite = testStore('sqlite');
  const pg = testStore('postgres');
  try {
    const casesPath = join(lite.another(), '..', 'cases.jsonl');
    await writeCaseSet(casesPath, exactLengthDemoCases());
    for (const model of ['sim:steady', 'sim:stubborn'])
      await runCases({ cases: casesPath, model, store: lite.location, runId: model.slice(4), concurrency: 3 });
    const back = lite.another();
    const there = await copyStore({ from: lite.location, to: pg.location });
    assert.deepEqual(
      there.map((r) => [r.runId, r.status, r.copied === r.events]),
      [
        ['steady', 'copied', true],
        ['stubborn', 'copied', true],
      ],
    );
    await copyStore({ from: pg.location, to: back });
    for (const runId of ['steady', 'stubborn']) {
      const original = await exported(lite.location, runId);
      assert.ok(original.length > 100);
      assert.equal(await exported(pg.location, runId), original);
      assert.equal(await exported(back, runId), original);
      const rows = await rowsOf(lite.location, runId);
      assert.deepEqual(await rowsOf(pg.location, runId), rows);
      assert.deepEqual(await rowsOf(back, runId), rows);
      for (const loc of [pg.location, back]) {
        const s = await openStore(loc, { readonly: true });
        assert.deepEqual((await auditRun(s, runId, getFamily)).discrepancies.map(formatDiscrepancy), []);
        assert.deepEqual(await s.loadTrajectories([runId]), await s.loadTrajectories([runId], { from: 'events' }));
        await s.close();
      }
    }
    // Copying again writes nothing.
    assert.deepEqual(
      (await copyStore({ from: lite.location, to: pg.location })).map((r) => [r.status, r.copied]),
      [
        ['up-to-date', 0],
        ['up-to-date', 0],
      ],
    );
  } finally {
    await lite.cleanup();
    await pg.cleanup();
  }
});

for (const b of BACKENDS) {
  test(
    `[${b.name} destination] a copied unfinished run is extended after it resumes; a different plan or history is refused, writing nothing`,
    { skip: b.skip },
    async () => {
      const src = testStore('sqlite');
      const dst = testStore(b.name);
      try {
        const cases = toyCases(4, 'copy');
        // An unfinished run (crashed after 6 commits), copied, then finished at the source.
        await crashedToyRun(src.location, cases, 6);
        const first = await copyStore({ from: src.location, to: dst.location });
        assert.equal(first[0].status, 'copied');
        await toyRun(src.location, { cases, concurrency: 1 });
        const second = await copyStore({ from: src.location, to: dst.location });
        assert.equal(second[0].status, 'extended');
        assert.equal(second[0].copied, second[0].events - first[0].events);
        assert.deepEqual(await rowsOf(dst.location, 'toy'), await rowsOf(src.location, 'toy'));
        const d = await openStore(dst.location, { readonly: true });
        assert.ok((await auditRun(d, 'toy', resolveToy)).passed);
        await d.close();

        // Another store with a run of the same id: a different plan, then the same plan run separately.
        const other = testStore('sqlite');
        try {
          await toyRun(other.location, { runId: 'fresh', cases: toyCases(2, 'fresh') });
          await toyRun(other.location, { cases: toyCases(4, 'different') });
          const before = await rowsOf(dst.location, 'toy');
          await assert.rejects(copyStore({ from: other.location, to: dst.location }), (e: unknown) => {
            assert.ok(e instanceof StoreError);
            assert.match(e.message, /run 'toy' exists in .* with a different plan/);
            return true;
          });
          const dd = await openStore(dst.location, { readonly: true });
          assert.deepEqual(await dd.runIds(), ['toy'], "nothing was written, not even the run that could have been copied ('fresh')");
          await dd.close();
          assert.deepEqual(await rowsOf(dst.location, 'toy'), before);
          const twin = testStore('sqlite');
          try {
            await toyRun(twin.location, { cases, concurrency: 1 });
            await assert.rejects(
              copyStore({ from: twin.location, to: dst.location }),
              /same plan but a different history from event seq 1 on \(the plan was recorded separately in each store \(at \S+ in .*, at \S+ here\): two runs of one plan, not one run copied twice\); nothing copied: copy it into another store to keep both/,
            );
          } finally {
            await twin.cleanup();
          }
        } finally {
          await other.cleanup();
        }

        // A broken chain at the source is refused.
        const db = await rawDb(src.location);
        await db.liftGuard();
        await db.run("UPDATE events SET payload = replace(payload, 'w', 'x') WHERE seq = 5");
        await db.close();
        const fresh = testStore(b.name);
        try {
          await assert.rejects(
            copyStore({ from: src.location, to: fresh.location }),
            /run 'toy' in .*: its chain is broken \(event seq 5 .* was modified after it was written/,
          );
        } finally {
          await fresh.cleanup();
        }
      } finally {
        await src.cleanup();
        await dst.cleanup();
      }
    },
  );
}

test('a run copied unfinished and then resumed on both sides is refused, naming the event where the two part', () =>
  withSqlitePair(async (src, dst) => {
    const cases = toyCases(3, 'parted');
    await crashedToyRun(src.location, cases, 4);
    const common = (await rowsOf(src.location, 'toy')).length;
    await copyStore({ from: src.location, to: dst.location });
    await toyRun(src.location, { cases, concurrency: 1 });
    await toyRun(dst.location, { cases, concurrency: 1 });
    const before = await rowsOf(dst.location, 'toy');
    await assert.rejects(copyStore({ from: src.location, to: dst.location }), (e: unknown) => {
      assert.ok(e instanceof StoreError);
      const m = /different history from event seq (\d+) on \((.*)\); nothing copied/.exec(e.message);
      assert.ok(m, e.message);
      assert.equal(Number(m[1]), common + 1, 'the first event after the shared prefix');
      assert.match(m[2], new RegExp(`^event seq ${common + 1} \\(\\w+.*\\) .*: the runs went on separately$`));
      return true;
    });
    assert.deepEqual(await rowsOf(dst.location, 'toy'), before, 'nothing written');
  }));

/** The source store, with a hook on every read of a run's rows (`n`: the how-manieth read of that run). */
function onRead(store: RunStore, hook: (runId: string, n: number, rows: EventRow[]) => Promise<EventRow[]>): RunStore {
  const reads = new Map<string, number>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'rawEventRows') return Reflect.get(target, prop, receiver) as unknown;
      return async (runId: string) => {
        const n = (reads.get(runId) ?? 0) + 1;
        reads.set(runId, n);
        return hook(runId, n, await target.rawEventRows(runId));
      };
    },
  });
}

for (const [how, retainedPayloadChars] of [
  ['kept from the check', undefined],
  ['read again', 0],
] as const)
  test(`a run written while it is copied (${how}): exactly the events checked are copied, and the next copy extends it`, () =>
    withSqlitePair(async (src, dst) => {
      const cases = toyCases(3, 'live');
      await crashedToyRun(src.location, cases, 4);
      await toyRun(src.location, { runId: 'other', cases: toyCases(2) });
      const checked = (await rowsOf(src.location, 'toy')).length;
      const from = await openStore(src.location, { readonly: true });
      const to = await openStore(dst.location);
      const reads: number[] = [];
      const copied = await copyRuns(
        onRead(from, async (runId, n, rows) => {
          if (runId === 'toy') reads.push(rows.length);
          // 'toy' goes on after its check, while the copy checks the next run
          if (runId === 'other' && n === 1) await toyRun(src.location, { cases, concurrency: 1 });
          return rows;
        }),
        to,
        { retainedPayloadChars },
      );
      await from.close();
      await to.close();
      const all = await rowsOf(src.location, 'toy');
      assert.ok(all.length > checked, 'the run went on');
      assert.deepEqual(reads, retainedPayloadChars === 0 ? [checked, all.length] : [checked], 'read once, or again after it grew');
      const head = (n: number) => ({ seq: all[n - 1].seq, hash: all[n - 1].hash });
      assert.deepEqual(copied[0], { runId: 'toy', events: checked, copied: checked, status: 'copied', ahead: 0, head: head(checked) });
      assert.deepEqual(await rowsOf(dst.location, 'toy'), all.slice(0, checked), 'the checked prefix, verbatim');
      const again = await copyStore({ from: src.location, to: dst.location });
      assert.deepEqual(again[0], {
        runId: 'toy',
        events: all.length,
        copied: all.length - checked,
        status: 'extended',
        ahead: 0,
        head: head(all.length),
      });
      assert.deepEqual(await rowsOf(dst.location, 'toy'), all);
    }));

test('a source whose checked events differ when they are read again stops the copy, naming the run; earlier runs stay copied', () =>
  withSqlitePair(async (src, dst) => {
    await toyRun(src.location, { runId: 'first', cases: toyCases(2) });
    await toyRun(src.location, { runId: 'second', cases: toyCases(2) });
    const from = await openStore(src.location, { readonly: true });
    const to = await openStore(dst.location);
    const forged = onRead(from, async (runId, n, rows) =>
      runId === 'second' && n === 2 ? rows.map((r, i) => (i === rows.length - 1 ? { ...r, hash: '0'.repeat(64) } : r)) : rows,
    );
    await assert.rejects(copyRuns(forged, to, { retainedPayloadChars: 0 }), (e: unknown) => {
      assert.ok(e instanceof StoreError);
      assert.match(
        e.message,
        /run 'second' in .* changed while it was being copied \(event seq \d+ is no longer the one checked\); runs before it were copied, run the copy again/,
      );
      return true;
    });
    assert.deepEqual(await to.runIds(), ['first']);
    await from.close();
    await to.close();
    assert.deepEqual(await rowsOf(dst.location, 'first'), await rowsOf(src.location, 'first'));
  }));
