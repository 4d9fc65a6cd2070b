// The store's reads for live views (docs/store.md, "Paged reads"): the global event cursor, paged
// and filtered trajectory summaries, full records of chosen cases, one trajectory's events, and
// every run's latest event id — checked against what the whole-run reads say, on every backend
// (the PostgreSQL store gets the fixture's runs through `copyRuns`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type RunStore } from '../../src/store/store.ts';
import { copyRuns } from '../../src/store/copy.ts';
import { viewerFixture, type ViewerFixture } from '../viewer/fixtures.ts';
import { BACKENDS, testStore, type TestStore } from './backends.ts';

for (const backend of BACKENDS) {
  describe(`[${backend.name}] paged reads`, { skip: backend.skip }, () => {
    let fx: ViewerFixture;
    let target: TestStore | null = null;
    let store: RunStore;

    before(async () => {
      fx = await viewerFixture();
      let location = fx.store;
      if (backend.name !== 'sqlite') {
        target = testStore(backend.name);
        const from = await openStore(fx.store, { readonly: true });
        const to = await openStore(target.location);
        try {
          await copyRuns(from, to);
        } finally {
          await from.close();
          await to.close();
        }
        location = target.location;
      }
      store = await openStore(location, { readonly: true });
    });
    after(async () => {
      await store?.close();
      await target?.cleanup();
      fx?.cleanup();
    });

    test('eventsAfter pages through every run in id order, from any cursor, and misses nothing', async () => {
      const all = (await Promise.all((await store.runIds()).map((id) => store.readEvents(id)))).flat().sort((a, b) => a.id - b.id);
      const paged = [];
      for (let cursor = 0; ;) {
        const page = await store.eventsAfter(cursor, 7);
        assert.ok(page.length <= 7);
        if (!page.length) break;
        paged.push(...page);
        cursor = page[page.length - 1].id;
      }
      assert.deepEqual(paged, all);
      assert.ok(new Set(paged.map((e) => e.runId)).size === 3, 'events of all three runs');
      const mid = all[Math.floor(all.length / 2)].id;
      assert.deepEqual(
        await store.eventsAfter(mid, 1_000_000),
        all.filter((e) => e.id > mid),
      );
      assert.deepEqual(await store.eventsAfter(all[all.length - 1].id, 10), []);
      assert.deepEqual(await store.eventsAfter(0, 0), []);
    });

    test('lastEventId of every run is its latest event (listing and getRun); runIds in creation order; listRuns of chosen runs', async () => {
      for (const s of await store.listRuns()) {
        const events = await store.readEvents(s.runId);
        assert.equal(s.lastEventId, events[events.length - 1].id, s.runId);
        assert.equal((await store.getRun(s.runId))!.summary.lastEventId, s.lastEventId);
      }
      assert.deepEqual(await store.runIds(), ['alpha', 'beta', 'faulty'], 'runs in creation order');
      const some = await store.listRuns(['faulty', 'nope', 'alpha']);
      assert.deepEqual(
        some.map((s) => s.runId),
        ['faulty', 'alpha'],
        'the runs asked for, in that order; unknown ids left out',
      );
      assert.deepEqual(some[1], (await store.listRuns())[0]);
    });

    test('trajectorySummaries: rows without texts agree with the full records; offset, limit, case indexes', async () => {
      const full = await store.loadTrajectories(['alpha']);
      const page = await store.trajectorySummaries('alpha');
      assert.equal(page.total, 5);
      assert.deepEqual(
        page.rows.map((r) => [r.caseIndex, r.caseId, r.status, r.rounds, r.finalJoint, r.finalEnergy]),
        full.map((t) => [t.caseIndex, t.caseId, t.status, t.rounds.length, t.rounds.at(-1)!.joint, t.rounds.at(-1)!.energy]),
      );
      assert.equal(page.rows[4].incompleteReason, full[4].incompleteReason);
      const slice = await store.trajectorySummaries('alpha', { offset: 1, limit: 2 });
      assert.equal(slice.total, 5);
      assert.deepEqual(
        slice.rows.map((r) => r.caseId),
        ['rain-02', 'snow-03'],
      );
      const chosen = await store.trajectorySummaries('alpha', { caseIndexes: [4, 0, 4, 99], limit: 1 });
      assert.equal(chosen.total, 2, 'duplicates and unknown indexes ignored');
      assert.deepEqual(
        chosen.rows.map((r) => r.caseIndex),
        [0],
        'case order, then the limit',
      );
      assert.deepEqual((await store.trajectorySummaries('alpha', { caseIndexes: [] })).total, 0);
      const faulty = await store.trajectorySummaries('faulty');
      assert.ok(
        faulty.rows.some((r) => r.attempts.failed > 0),
        'failed attempts counted per trajectory',
      );
    });

    test('trajectorySummaries text search: case ids and every draft, ASCII case-insensitive, % and _ literal', async () => {
      const ids = async (text: string, caseIndexes?: number[]) =>
        (await store.trajectorySummaries('alpha', { text, caseIndexes })).rows.map((r) => r.caseId);
      assert.deepEqual(await ids('RAIN-0'), ['rain-02'], 'case id, any case');
      assert.deepEqual(await ids('umbrella SLOWLY'), ['rain-02'], 'an earlier draft counts');
      assert.deepEqual(await ids('onerror=alert'), ['bread-04']);
      assert.deepEqual(await ids('<b>bold</b> &amp;'), ['bread-04'], 'markup is plain text to the search');
      assert.deepEqual(await ids('%'), [], '% is not a wildcard');
      assert.deepEqual(await ids('_'), [], '_ is not a wildcard');
      assert.deepEqual(await ids('-0'), ['tea-01', 'rain-02', 'snow-03', 'bread-04', 'sun-05']);
      assert.deepEqual(await ids('-0', [1, 3]), ['rain-02', 'bread-04'], 'within the given cases');
      assert.deepEqual(await ids('no such words here'), []);
    });

    test('trajectoriesAt returns the full records of the chosen cases, equal to the whole-run read', async () => {
      const full = await store.loadTrajectories(['alpha']);
      assert.deepEqual(await store.trajectoriesAt('alpha', [3, 1, 3, 42]), [full[1], full[3]]);
      assert.deepEqual(await store.trajectoriesAt('alpha', []), []);
    });

    test('readEvents by case index: exactly that trajectory’s events, in log order', async () => {
      const all = await store.readEvents('faulty');
      for (const i of [0, 1, 2]) {
        const mine = await store.readEvents('faulty', { caseIndex: i });
        assert.deepEqual(
          mine,
          all.filter((e) => e.caseIndex === i),
        );
        assert.ok(mine.some((e) => e.type === 'attempt_finished'));
      }
      const attempts = await store.readEvents('faulty', { caseIndex: 0, types: ['attempt_finished'] });
      assert.ok(attempts.length > 0 && attempts.every((e) => e.type === 'attempt_finished' && e.caseIndex === 0));
    });
  });
}
