// Issue 36: nothing lost, nothing forged, on both backends. Every column of the derived tables is
// checked against the events (runs, trajectories, rounds); PostgreSQL refuses edits of derived rows
// outside revloop's appends; a shortened log is caught against a head kept outside the store; text
// the derived columns cannot hold as it is (NUL, lone surrogates, from stores written before the
// text boundary) is kept exactly and copies between backends.
import assert from 'node:assert/strict';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import { checkRunIntegrity } from '../../src/store/integrity.ts';
import { copyStore } from '../../src/app/store-copy.ts';
import { resolveToy, scriptedModel, toyCases } from '../loop/fakes.ts';
import { toyRun } from './toy-run.ts';
import { eachBackend, PG_SKIP, rawDb, testStore } from './backends.ts';
import { test } from 'node:test';
import { existsSync } from 'node:fs';

const audit = async (location: string, expectHead?: string) => {
  const store = await openStore(location, { readonly: true });
  try {
    return (await auditRun(store, 'toy', resolveToy, { expectHead })).discrepancies.map(formatDiscrepancy);
  } finally {
    await store.close();
  }
};

/** Lifts every guard a person with database access can lift (triggers on events and derived tables). */
async function liftAll(location: string) {
  const db = await rawDb(location);
  await db.liftGuard();
  if (/^postgres/.test(location)) for (const t of ['runs', 'trajectories', 'rounds']) await db.run(`ALTER TABLE ${t} DISABLE TRIGGER USER`);
  return db;
}

eachBackend('audit checks every column of runs, trajectories and rounds against the events', async (s) => {
  await toyRun(s.location);
  assert.deepEqual(await audit(s.location), []);
  const pg = s.backend === 'postgres';
  const db = await liftAll(s.location);
  await db.run(
    `UPDATE runs SET simulated = ${pg ? 'false' : '0'}, controller = 'gpt-5', budget = budget + 1, protocol = 'paper+x', n_cases = n_cases + 1, plan_sha256 = 'f00d', model_spec = 'openai:gpt-5', kind = 'import'`,
  );
  await db.run(
    `UPDATE trajectories SET final_joint = ${pg ? 'NOT coalesce(final_joint, false)' : '1 - coalesce(final_joint, 0)'} WHERE case_index = 3`,
  );
  await db.run(`UPDATE trajectories SET attempts_failed = attempts_failed + 2, case_id = 'other' WHERE case_index = 5`);
  await db.run(`UPDATE rounds SET joint = ${pg ? 'NOT joint' : '1 - joint'}, energy = energy + 0.5 WHERE case_index = 1 AND revision = 0`);
  await db.run("UPDATE rounds SET text = text || ' edited', feedback = 'be better' WHERE case_index = 2 AND revision = 0");
  await db.close();
  const found = (await audit(s.location)).join('\n');
  for (const col of [
    'runs.simulated: the events say true, the table holds false',
    'runs.controller: the events say "fake-toy", the table holds "gpt-5"',
    'runs.budget',
    'runs.protocol',
    'runs.n_cases',
    'runs.plan_sha256',
    'runs.model_spec',
    'runs.kind',
    'case toy-003 (#4): tables: trajectories.final_joint',
    'case toy-005 (#6): tables: trajectories.attempts_failed',
    'trajectories.case_id: the events say "toy-005", the table holds "other"',
    'case toy-001 (#2) revision 0: tables: rounds.joint',
    'rounds.energy',
    'case toy-002 (#3) revision 0: tables: rounds.text',
    'rounds.feedback',
  ])
    assert.ok(found.includes(col), `missing ${col} in:\n${found}`);
});

eachBackend('a row added to or removed from a derived table is found', async (s) => {
  await toyRun(s.location);
  const db = await liftAll(s.location);
  await db.run(
    "INSERT INTO rounds (run_id, case_index, revision, text, state, energy, joint, feedback) VALUES ('toy', 0, 40, 'forged', '{}', 0, ?, NULL)",
    s.backend === 'postgres' ? true : 1,
  );
  await db.run('DELETE FROM trajectories WHERE run_id = ? AND case_index = 7', 'toy');
  await db.close();
  const found = (await audit(s.location)).join('\n');
  assert.match(found, /revision 40: tables: rounds: a row with no accepted draft in the events/);
  assert.match(found, /\(#8\): tables: trajectories: the trajectory has no row/);
});

eachBackend('a shortened log (last events deleted, derived rows rebuilt to match) is caught by --expect-head', async (s) => {
  await toyRun(s.location);
  const store = await openStore(s.location, { readonly: true });
  const head = (await checkRunIntegrity(store, 'toy')).head!;
  await store.close();
  assert.deepEqual(await audit(s.location, head.hash), []);
  const db = await liftAll(s.location);
  await db.run('DELETE FROM events WHERE run_id = ? AND seq > ?', 'toy', head.seq - 3);
  await db.close();
  const w = await openStore(s.location);
  await w.rebuild('toy');
  await w.close();
  // Without an anchor kept outside the store a shortened log is an interrupted run…
  assert.deepEqual(await audit(s.location), []);
  // …against the head printed earlier it is a shortened log.
  const found = await audit(s.location, head.hash);
  assert.equal(found.length, 1);
  assert.match(found[0], /^run: head: the log does not hold the expected head [0-9a-f]{16}…: it was shortened or rewritten/);
  // `store copy --expect-head` refuses to carry the shortened log on, and creates nothing.
  const dest = s.another();
  await assert.rejects(
    copyStore({ from: s.location, to: dest, expectHeads: [head.hash] }),
    /no run copied holds the expected head [0-9a-f]{16}…: the source's log was shortened or rewritten since/,
  );
  if (s.backend === 'sqlite') assert.ok(!existsSync(dest), 'no store file was created');
  const now = await openStore(s.location, { readonly: true });
  const shortHead = (await checkRunIntegrity(now, 'toy')).head!;
  await now.close();
  const copied = await copyStore({ from: s.location, to: dest, expectHeads: [shortHead.hash.toUpperCase()] });
  assert.deepEqual(copied[0].head, shortHead);
});

eachBackend('text a derived column cannot hold as it is (NUL, lone surrogates) is kept exactly and audits clean', async (s) => {
  // A store written before the text boundary: the loop accepted whatever the model sent.
  const cases = toyCases(2);
  const outputs = ['one \u0000 two', 'alpha \ud83d beta', ...Array.from({ length: 40 }, (_, i) => `w${i} \uffff x y z`)];
  const model = scriptedModel(outputs, 'legacy');
  await toyRun(s.location, { cases, concurrency: 1, extra: { model } });
  const store = await openStore(s.location, { readonly: true });
  try {
    const fromTables = await store.loadTrajectories(['toy']);
    const fromEvents = await store.loadTrajectories(['toy'], { from: 'events' });
    assert.deepEqual(fromTables, fromEvents);
    assert.equal(fromTables[0].rounds[0].text, 'one \u0000 two');
    assert.equal(fromTables[0].rounds[1].text, 'alpha \ud83d beta');
    assert.ok(fromTables.some((t) => t.rounds.some((r) => r.text.includes('\uffff'))));
    assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
    const page = await store.trajectorySummaries('toy', { text: '\u0000 two' });
    assert.deepEqual(
      page.rows.map((r) => r.caseIndex),
      [0],
    );
  } finally {
    await store.close();
  }
});

eachBackend(
  'a lone surrogate as an earlier release stored it in a derived column (U+FFFD) is no disagreement; other edits still are',
  async (s) => {
    const model = scriptedModel(['alpha \ud83d beta', ...Array.from({ length: 40 }, (_, i) => `w${i} x y`)], 'legacy');
    await toyRun(s.location, { cases: toyCases(1), concurrency: 1, extra: { model } });
    const legacy = s.backend === 'postgres' ? 'alpha \ufffd beta' : 'alpha \ufffd\ufffd\ufffd beta';
    let db = await liftAll(s.location);
    await db.run('UPDATE rounds SET text = ? WHERE case_index = 0 AND revision = 0', legacy);
    await db.close();
    const check = async () => {
      const store = await openStore(s.location, { readonly: true });
      try {
        return [
          (await checkRunIntegrity(store, 'toy')).ok,
          (await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy),
        ] as const;
      } finally {
        await store.close();
      }
    };
    assert.deepEqual(await check(), [true, []]);
    db = await liftAll(s.location);
    await db.run('UPDATE rounds SET text = ? WHERE case_index = 0 AND revision = 0', 'alpha \ufffd gamma');
    await db.close();
    const [ok, found] = await check();
    assert.equal(ok, false);
    assert.match(found.join('\n'), /rounds\.text: the events say "alpha \\ud83d beta", the table holds "alpha \ufffd gamma"/);
  },
);

test('store copy never fails on content: NUL and lone surrogates copy SQLite → PostgreSQL → SQLite', { skip: PG_SKIP }, async () => {
  const src = testStore('sqlite');
  const pg = testStore('postgres');
  try {
    const model = scriptedModel(['one \u0000 two', 'alpha \ud83d beta', ...Array.from({ length: 40 }, (_, i) => `w${i} x y`)], 'legacy');
    await toyRun(src.location, { cases: toyCases(2), concurrency: 1, extra: { model } });
    await copyStore({ from: src.location, to: pg.location });
    const back = src.another();
    await copyStore({ from: pg.location, to: back });
    for (const location of [pg.location, back]) {
      const store = await openStore(location, { readonly: true });
      try {
        const ts = await store.loadTrajectories(['toy']);
        assert.equal(ts[0].rounds[0].text, 'one \u0000 two');
        assert.equal(ts[0].rounds[1].text, 'alpha \ud83d beta');
        assert.deepEqual((await auditRun(store, 'toy', resolveToy)).discrepancies.map(formatDiscrepancy), []);
      } finally {
        await store.close();
      }
    }
  } finally {
    await src.cleanup();
    await pg.cleanup();
  }
});

eachBackend(
  'PostgreSQL guards the derived tables like events: edits outside revloop are refused',
  async (s) => {
    await toyRun(s.location);
    const db = await rawDb(s.location);
    try {
      for (const sql of [
        'UPDATE runs SET simulated = false',
        'UPDATE trajectories SET final_joint = true WHERE case_index = 3',
        "UPDATE rounds SET text = 'forged'",
        'DELETE FROM rounds',
        'TRUNCATE trajectories',
        "INSERT INTO runs (run_id, position, kind, controller, model_spec, simulated, budget, protocol, plan_sha256, n_cases, created_at, updated_at) VALUES ('x', 0, 'run', 'c', 's', false, 8, 'paper', 'h', 0, 't', 't')",
      ])
        await assert.rejects(db.run(sql), /is derived from events: only revloop's appends change it/, sql);
    } finally {
      await db.close();
    }
    assert.deepEqual(await audit(s.location), []);
    // revloop's own writes still go through: a rebuild rewrites every derived row.
    const w = await openStore(s.location);
    await w.rebuild('toy');
    await w.close();
    assert.deepEqual(await audit(s.location), []);
  },
  'postgres',
);

for (const backend of ['sqlite', 'postgres'] as const) {
  test(
    `[${backend}] a refused store copy creates nothing at the destination; a destination ahead of its source is said`,
    { skip: backend === 'postgres' ? PG_SKIP : false },
    async () => {
      const src = testStore('sqlite');
      const dst = testStore(backend);
      try {
        await toyRun(src.location, { cases: toyCases(3) });
        const db = await rawDb(src.location);
        await db.liftGuard();
        await db.run("UPDATE events SET at = '2000-01-01T00:00:00.000Z' WHERE seq = 3");
        await db.close();
        await assert.rejects(copyStore({ from: src.location, to: dst.location }), /its chain is broken/);
        if (backend === 'sqlite') assert.ok(!existsSync(dst.location), 'no store file was created');
        else assert.equal(await schemaExists(dst.location), false, 'no schema was created');

        // A source shortened after an earlier copy: the destination is ahead, and the copy says so.
        const good = testStore('sqlite');
        try {
          await toyRun(good.location, { cases: toyCases(3) });
          const first = await copyStore({ from: good.location, to: dst.location });
          assert.deepEqual(
            first.map((r) => [r.status, r.ahead]),
            [['copied', 0]],
          );
          const g = await liftAll(good.location);
          const [{ n }] = await g.all<{ n: number }>('SELECT max(seq) AS n FROM events');
          await g.run('DELETE FROM events WHERE seq > ?', Number(n) - 2);
          await g.close();
          const again = await copyStore({ from: good.location, to: dst.location });
          assert.deepEqual(
            again.map((r) => [r.status, r.ahead]),
            [['up-to-date', 2]],
          );
        } finally {
          await good.cleanup();
        }
      } finally {
        await src.cleanup();
        await dst.cleanup();
      }
    },
  );
}

async function schemaExists(location: string): Promise<boolean> {
  const url = new URL(location);
  const schema = url.searchParams.get('schema')!;
  url.searchParams.delete('schema');
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    return (await c.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema])).rowCount === 1;
  } finally {
    await c.end();
  }
}

eachBackend('a study run (probe, agent) has its runs row checked too', async (s) => {
  const { openStudyRun } = await import('../../src/store/study-runs.ts');
  // The probe study's module registers its run kind with the store.
  const { PROBE_RUN_KIND } = await import('../../src/studies/probe/probe-store.ts');
  const store = await openStore(s.location);
  await openStudyRun(store, {
    runId: 'probe-x',
    kind: PROBE_RUN_KIND,
    controller: { label: 'sim:steady [simulated]', spec: 'sim:steady', simulated: true },
    settings: { env: 'toolshed' },
  });
  await store.close();
  const clean = await openStore(s.location, { readonly: true });
  assert.ok((await auditRun(clean, 'probe-x', resolveToy)).passed);
  await clean.close();
  const db = await liftAll(s.location);
  await db.run(`UPDATE runs SET simulated = ${s.backend === 'postgres' ? 'false' : '0'}, controller = 'gpt-5' WHERE run_id = 'probe-x'`);
  await db.close();
  const r = await openStore(s.location, { readonly: true });
  try {
    const found = (await auditRun(r, 'probe-x', resolveToy)).discrepancies.map(formatDiscrepancy).join('\n');
    assert.match(found, /runs\.controller: the events say "sim:steady \[simulated\]", the table holds "gpt-5"/);
    assert.match(found, /runs\.simulated: the events say true, the table holds false/);
  } finally {
    await r.close();
  }
});
