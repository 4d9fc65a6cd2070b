// A PostgreSQL store written by the previous release (schema 1: derived tables without guards)
// still opens after issue 36: read-only it is read and verified as it is; the first writing open
// applies migration 2 (the derived tables' guards) in place, keeps every run, and from then on an
// edit of a derived row outside revloop's appends is refused while revloop's own appends go on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore } from '../../src/store/store.ts';
import { checkRunIntegrity } from '../../src/store/integrity.ts';
import { auditRun } from '../../src/engine/audit.ts';
import { resolveToy } from '../loop/fakes.ts';
import { toyRun } from './toy-run.ts';
import { PG_SKIP, rawDb, testStore } from './backends.ts';

/** Turns a fresh store back into what schema 1 left: no guard function or triggers, version 1. */
async function downgradeToSchema1(location: string): Promise<void> {
  const db = await rawDb(location);
  try {
    for (const t of ['runs', 'trajectories', 'rounds']) await db.run(`DROP TRIGGER ${t}_derived ON ${t}`);
    await db.run('DROP FUNCTION derived_guard()');
    await db.run("UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  } finally {
    await db.close();
  }
}

test(
  'a schema-1 PostgreSQL store opens: read as it is, migrated to schema 2 by the first writer, derived rows guarded since',
  { skip: PG_SKIP },
  async () => {
    const s = testStore('postgres');
    try {
      await toyRun(s.location, { runId: 'old' });
      await downgradeToSchema1(s.location);
      let db = await rawDb(s.location);
      try {
        // Schema 1 let anyone edit a derived row; undo it so the run is intact again.
        await db.run("UPDATE runs SET controller = 'gpt-5' WHERE run_id = 'old'");
        await db.run("UPDATE runs SET controller = 'fake-toy' WHERE run_id = 'old'");
      } finally {
        await db.close();
      }

      // A reader opens the old store without migrating it, and it verifies.
      const reader = await openStore(s.location, { readonly: true });
      try {
        assert.equal((await checkRunIntegrity(reader, 'old')).ok, true);
      } finally {
        await reader.close();
      }
      db = await rawDb(s.location);
      try {
        assert.deepEqual(
          await db.all("SELECT value FROM meta WHERE key = 'schema_version'"),
          [{ value: '1' }],
          'a reader migrates nothing',
        );
      } finally {
        await db.close();
      }

      // The first writer migrates: the old run is kept and audits clean, and a new run is written.
      await toyRun(s.location, { runId: 'new' });
      const store = await openStore(s.location, { readonly: true });
      try {
        assert.deepEqual((await store.runIds()).sort(), ['new', 'old']);
        for (const id of ['old', 'new']) {
          assert.equal((await checkRunIntegrity(store, id)).ok, true, id);
          assert.deepEqual((await auditRun(store, id, resolveToy)).discrepancies, [], id);
        }
      } finally {
        await store.close();
      }
      db = await rawDb(s.location);
      try {
        assert.deepEqual(await db.all("SELECT value FROM meta WHERE key = 'schema_version'"), [{ value: '2' }]);
        for (const sql of [
          "UPDATE runs SET controller = 'gpt-5' WHERE run_id = 'old'",
          "UPDATE trajectories SET final_joint = true WHERE run_id = 'old'",
          "DELETE FROM rounds WHERE run_id = 'old'",
          "INSERT INTO rounds (run_id, case_index, revision, text, state, energy, joint, feedback) VALUES ('old', 99, 0, 'x', '{}', 0, true, NULL)",
        ])
          await assert.rejects(db.run(sql), /is derived from events: only revloop's appends change it/, sql);
      } finally {
        await db.close();
      }
    } finally {
      await s.cleanup();
    }
  },
);
