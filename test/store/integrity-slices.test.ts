// The readers' check (analyze, report, export, view) holds one slice of a run at a time: a page of
// its log, then a range of cases with their events and derived rows (RunStore.scanRunRows). Read
// whole, a paper-size run took about 1 GB in the viewer's checker thread (docs/viewer.md, "Memory
// and speed"). Here, on both backends: the slices cover every row once and stay within their
// bounds, the sliced check finds exactly what the whole-run check finds on a clean run and after
// each kind of tampering, and the readers never read a run whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore, type RunStore } from '../../src/store/store.ts';
import { checkRunIntegrity, checkRunSlices, type CaseRows } from '../../src/store/integrity.ts';
import type { RawEventRow } from '../../src/store/chain.ts';
import { verifyRuns } from '../../src/app/verified.ts';
import { toyCases } from '../loop/fakes.ts';
import { toyRun } from './toy-run.ts';
import { eachBackend, rawDb, testStore } from './backends.ts';

const SMALL = { logPage: 7, caseRange: 3 };

/** The whole-run check's findings, as the sliced check reports them. */
async function bothChecks(location: string) {
  const store = await openStore(location, { readonly: true });
  try {
    const { rows, events, ...whole } = await checkRunIntegrity(store, 'toy');
    assert.ok(rows.length > 0 && events.length > 0);
    return { whole, sliced: await checkRunSlices(store, 'toy', SMALL), byDefault: await checkRunSlices(store, 'toy') };
  } finally {
    await store.close();
  }
}

eachBackend('scanRunRows hands a run over in bounded slices that cover every row once', async (s) => {
  await toyRun(s.location, { cases: toyCases(10) });
  const store = await openStore(s.location, { readonly: true });
  try {
    const whole = await store.runRows('toy');
    const log: RawEventRow[][] = [];
    const cases: CaseRows[] = [];
    let runRow: unknown = undefined;
    await store.scanRunRows(
      'toy',
      {
        run: (row) => {
          assert.equal(log.length + cases.length, 0, 'the run row comes first');
          runRow = row;
        },
        log: (rows) => {
          assert.equal(cases.length, 0, 'the whole log comes before the cases');
          log.push(rows);
        },
        cases: (slice) => void cases.push(slice),
      },
      SMALL,
    );
    assert.deepEqual(runRow, whole.run);
    assert.ok(log.length > 3 && log.every((page) => page.length <= SMALL.logPage), 'pages of at most 7 rows');
    const seqs = (rows: readonly RawEventRow[]) => rows.map((r) => r.seq);
    assert.deepEqual(seqs(log.flat()), seqs(whole.events), 'every event once, in seq order');
    assert.ok(cases.length >= 4, `${cases.length} ranges of 3 cases for 10 cases`);
    for (const c of cases) {
      assert.equal(c.to - c.from, SMALL.caseRange);
      const inside = (i: number | null) => i !== null && i >= c.from && i < c.to;
      assert.ok(c.events.every((r) => inside(r.case_index)) && c.trajectories.every((r) => inside(r.case_index)));
      assert.ok(c.rounds.every((r) => inside(r.case_index)));
      assert.deepEqual(
        seqs(c.events),
        [...seqs(c.events)].sort((a, b) => a - b),
        "a range's events in seq order",
      );
    }
    assert.deepEqual(
      cases.flatMap((c) => c.trajectories),
      whole.trajectories,
    );
    assert.deepEqual(
      cases.flatMap((c) => c.rounds),
      whole.rounds,
    );
    assert.deepEqual(
      seqs(cases.flatMap((c) => c.events)).sort((a, b) => a - b),
      seqs(whole.events.filter((r) => r.case_index !== null)),
    );
  } finally {
    await store.close();
  }
});

eachBackend('the sliced check finds what the whole-run check finds, clean and after each kind of tampering', async (s) => {
  await toyRun(s.location, { cases: toyCases(10) });
  const pg = s.backend === 'postgres';
  const same = async (what: string, clean = false) => {
    const { whole, sliced, byDefault } = await bothChecks(s.location);
    assert.equal(whole.ok, clean, `${what}: the whole-run check ${clean ? 'passes' : 'fails'}`);
    assert.deepEqual(sliced, whole, what);
    assert.deepEqual(byDefault, whole, `${what} (default slices)`);
  };
  await same('a clean run', true);

  const db = await rawDb(s.location);
  try {
    await db.liftGuard();
    if (pg) for (const t of ['runs', 'trajectories', 'rounds']) await db.run(`ALTER TABLE ${t} DISABLE TRIGGER USER`);
    await db.run(`UPDATE runs SET controller = 'gpt-5', budget = budget + 1, updated_at = '1999-01-01T00:00:00.000Z'`);
    await same('the runs row edited');
    await db.run(`UPDATE trajectories SET attempts_failed = attempts_failed + 2, case_id = 'other' WHERE case_index IN (2, 7)`);
    await db.run(
      `UPDATE rounds SET joint = ${pg ? 'NOT joint' : '1 - joint'}, text = text || ' edited' WHERE case_index = 8 AND revision = 0`,
    );
    await same('trajectories and rounds edited');
    await db.run('DELETE FROM trajectories WHERE case_index = 4');
    await db.run(
      "INSERT INTO rounds (run_id, case_index, revision, text, state, energy, joint, feedback) VALUES ('toy', 5, 40, 'forged', '{}', 0, ?, NULL)",
      pg ? true : 1,
    );
    await db.run(
      "INSERT INTO trajectories (run_id, case_index, case_id, status, n_rounds, attempts_started, attempts_finished, attempts_failed) VALUES ('toy', 30, 'extra', 'pending', 0, 0, 0, 0)",
    );
    // Far past the plan: the ranges jump to it (walking 3 cases at a time there would not end).
    await db.run(
      "INSERT INTO trajectories (run_id, case_index, case_id, status, n_rounds, attempts_started, attempts_finished, attempts_failed) VALUES ('toy', 2000000000, 'far', 'pending', 0, 0, 0, 0)",
    );
    await same('rows removed and added (past the plan, and far past it)');
    const [{ seq: draft }] = await db.all<{ seq: number }>(
      "SELECT seq FROM events WHERE run_id = 'toy' AND type = 'draft_accepted' AND case_index = 6 ORDER BY seq LIMIT 1",
    );
    await db.run(`UPDATE events SET payload = '{"text": broken' WHERE run_id = 'toy' AND seq = ?`, draft);
    const [{ seq: attempt }] = await db.all<{ seq: number }>(
      "SELECT seq FROM events WHERE run_id = 'toy' AND type = 'attempt_finished' AND case_index = 1 ORDER BY seq LIMIT 1",
    );
    await db.run(`UPDATE events SET payload = 'not json' WHERE run_id = 'toy' AND seq = ?`, attempt);
    await same('payloads that do not parse (a draft, an attempt)');
    await db.run("DELETE FROM events WHERE run_id = 'toy' AND seq IN (9, 10, 23)");
    await same('events deleted');
  } finally {
    await db.close();
  }
});

eachBackend('readers check a run a slice at a time, never reading it whole', async (s) => {
  await toyRun(s.location, { cases: toyCases(4) });
  const store = await openStore(s.location, { readonly: true });
  try {
    // A store whose whole-run read fails: what the check used before (it held a whole run at once).
    const sliced = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'runRows') return () => Promise.reject(new Error('runRows: a reader read a whole run'));
        const v = Reflect.get(target, key, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as RunStore;
    const v = await verifyRuns(sliced, ['toy']);
    assert.deepEqual(v.unverified, []);
    assert.deepEqual(v.heads.get('toy'), (await checkRunIntegrity(store, 'toy')).head);
  } finally {
    await store.close();
  }
});

// SQLite keeps what a forged row holds even in an INTEGER column: a text, a blob, a real, an integer
// past 2^53 (where adding a range's width no longer moves a double). Each must end the scan (the
// range loop once never ended on them) and fail the check with the rows named as the whole-run
// check names them (in its own order: those rows sort apart).
test(
  '[sqlite] case indexes only tampering makes (text, blob, real, past 2^53) end the scan and fail the check as the whole-run check does',
  { timeout: 60_000 },
  async () => {
    const s = testStore('sqlite');
    try {
      await toyRun(s.location, { cases: toyCases(6) });
      const db = await rawDb(s.location);
      try {
        await db.liftGuard();
        const forge = (index: string) =>
          db.run(
            `INSERT INTO trajectories (run_id, case_index, case_id, status, n_rounds, attempts_started, attempts_finished, attempts_failed) VALUES ('toy', ${index}, 'forged', 'pending', 0, 0, 0, 0)`,
          );
        for (const index of ["'x'", "X'00ff'", '2.5', '1e300', '4611686018427387904', '-4611686018427387904']) await forge(index);
        await db.run(
          `UPDATE events SET case_index = 'y' WHERE run_id = 'toy' AND seq = (SELECT max(seq) FROM events WHERE run_id = 'toy')`,
        );
      } finally {
        await db.close();
      }
      const { whole, sliced, byDefault } = await bothChecks(s.location);
      assert.equal(whole.ok, false);
      const sorted = (r: typeof whole) => ({ ...r, tables: [...r.tables].map((t) => JSON.stringify(t)).sort() });
      assert.deepEqual(sorted(sliced), sorted(whole));
      assert.deepEqual(sorted(byDefault), sorted(whole));
      assert.equal(sliced.tables.filter((t) => /a row for a case the plan does not have/.test(t.problem)).length, 6);
    } finally {
      await s.cleanup();
    }
  },
);
