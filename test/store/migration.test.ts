// Schema migration 2 → 3 of SQLite stores (src/store/sqlite/schema.ts): a store written with the
// schema-2 layout (the `(run_id, type)` index, `rounds` clustered WITHOUT ROWID) is read as it is
// by a read-only open and upgraded by the first writing open, with every event, its chain and
// every derived row kept; the run then continues in the new layout. A store's page size is its
// own: new files get 16 KB pages, older 4 KB files keep theirs. A writing connection caps SQLite's
// page cache; a read-only one keeps better-sqlite3's default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore } from '../../src/store/store.ts';
import { PAGE_SIZE, SqliteRunStore, WRITER_CACHE_KIB } from '../../src/store/sqlite/sqlite-store.ts';
import { tempDir, toyRun } from './toy-run.ts';

/** Rewrites a current store into the schema-2 layout (what revloop wrote before schema 3). */
function downgradeToSchema2(path: string): void {
  const db = new Database(path);
  db.exec(`
    CREATE TABLE rounds_v2 (
      run_id TEXT NOT NULL, case_index INTEGER NOT NULL, revision INTEGER NOT NULL, text TEXT NOT NULL,
      state TEXT NOT NULL, energy REAL NOT NULL, joint INTEGER NOT NULL, feedback TEXT,
      PRIMARY KEY (run_id, case_index, revision)
    ) WITHOUT ROWID;
    INSERT INTO rounds_v2 SELECT run_id, case_index, revision, text, state, energy, joint, feedback FROM rounds;
    DROP TABLE rounds;
    ALTER TABLE rounds_v2 RENAME TO rounds;
    CREATE INDEX events_type ON events (run_id, type);
    UPDATE meta SET value = '2' WHERE key = 'schema_version';
  `);
  db.close();
}

function layout(path: string): { version: string; indexes: string[]; roundsSql: string; rounds: unknown[] } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      version: (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
      indexes: (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name").all() as Array<{
          name: string;
        }>
      ).map((r) => r.name),
      roundsSql: (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'rounds'").get() as { sql: string }).sql,
      rounds: db.prepare('SELECT * FROM rounds ORDER BY run_id, case_index, revision').all(),
    };
  } finally {
    db.close();
  }
}

test('a schema-2 store is read as it is, then upgraded by the first writer with every row and the chain intact', async () => {
  const path = join(tempDir(), 'runs.db');
  await toyRun(path, { runId: 'first' });
  downgradeToSchema2(path);
  const old = layout(path);
  assert.equal(old.version, '2');
  assert.ok(old.indexes.includes('events_type'));
  assert.match(old.roundsSql, /WITHOUT ROWID/);
  assert.ok(old.rounds.length > 8, 'the toy run accepted rounds');

  // A read-only open neither migrates nor needs the new layout.
  const reader = await openStore(path, { readonly: true });
  const before = { trajectories: await reader.loadTrajectories(['first']), summary: (await reader.listRuns())[0] };
  await reader.close();
  assert.equal(layout(path).version, '2');

  const writer = await openStore(path);
  await writer.close();
  const now = layout(path);
  assert.equal(now.version, '3');
  assert.ok(!now.indexes.includes('events_type'), 'the (run_id, type) index is gone');
  assert.doesNotMatch(now.roundsSql, /WITHOUT ROWID/);
  assert.deepEqual(now.rounds, old.rounds, 'every derived round kept');

  const store = await openStore(path, { readonly: true });
  try {
    assert.deepEqual(await store.loadTrajectories(['first']), before.trajectories);
    assert.deepEqual((await store.listRuns())[0], before.summary);
    assert.equal((await store.loadTrajectories(['first'], { from: 'events' })).length, before.trajectories.length);
    const events = await store.readEvents('first');
    assert.equal((await store.listRuns())[0].updatedAt, events[events.length - 1].at, "a run's last update is its last event's time");
    // The plan is read as the run's first event (seq 1), now that no index covers event types.
    assert.equal(events[0].type, 'run_planned');
    assert.deepEqual(await store.getPlanned('first'), events[0].payload);
  } finally {
    await store.close();
  }

  // The run's store keeps working in the new layout: a second run appends, rounds and all.
  await toyRun(path, { runId: 'second' });
  const after = await openStore(path, { readonly: true });
  try {
    assert.deepEqual((await after.runIds()).sort(), ['first', 'second']);
    const second = await after.loadTrajectories(['second']);
    assert.equal(second.length, before.trajectories.length);
    assert.deepEqual(
      second.map((t) => t.rounds.map((r) => r.text)),
      before.trajectories.map((t) => t.rounds.map((r) => r.text)),
    );
  } finally {
    await after.close();
  }
});

test('a new store gets 16 KB pages; a store with 4 KB pages (as revloop created them before) keeps them and takes new runs', async () => {
  const pageSize = (path: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return db.pragma('page_size', { simple: true });
    } finally {
      db.close();
    }
  };
  const path = join(tempDir(), 'runs.db');
  await toyRun(path, { runId: 'first' });
  assert.equal(pageSize(path), PAGE_SIZE);
  assert.equal(PAGE_SIZE, 16384);

  // Rewrite the file with 4 KB pages (a WAL file keeps its page size: out of WAL, VACUUM, back).
  const db = new Database(path);
  db.pragma('journal_mode = DELETE');
  db.pragma('page_size = 4096');
  db.exec('VACUUM');
  db.pragma('journal_mode = WAL');
  db.close();
  assert.equal(pageSize(path), 4096);

  await toyRun(path, { runId: 'second' });
  assert.equal(pageSize(path), 4096, 'an existing store is never rewritten');
  const store = await openStore(path, { readonly: true });
  try {
    const [first, second] = [await store.loadTrajectories(['first']), await store.loadTrajectories(['second'])];
    assert.ok(first.length > 0);
    assert.deepEqual(
      second.map((t) => t.rounds.map((r) => r.text)),
      first.map((t) => t.rounds.map((r) => r.text)),
    );
  } finally {
    await store.close();
  }
});

test('a writing connection caps its page cache at WRITER_CACHE_KIB; a read-only one keeps the default', async () => {
  const path = join(tempDir(), 'runs.db');
  await toyRun(path, { runId: 'first' });
  const cacheOf = async (readonly: boolean) => {
    const store = await openStore(path, { readonly });
    try {
      assert.ok(store instanceof SqliteRunStore);
      return store.db.pragma('cache_size', { simple: true });
    } finally {
      await store.close();
    }
  };
  assert.equal(await cacheOf(false), -WRITER_CACHE_KIB);
  const probe = new Database(':memory:');
  const defaultCache = probe.pragma('cache_size', { simple: true });
  probe.close();
  assert.notEqual(defaultCache, -WRITER_CACHE_KIB);
  assert.equal(await cacheOf(true), defaultCache);
});
