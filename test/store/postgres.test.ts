// What only the PostgreSQL store has to prove (the shared suite in store.test.ts runs on both):
// append-only enforced by the database, versioned schema and its refusals, errors that never print
// a password, global event ids in commit order for readers following `eventsAfter` while several
// processes write, read-only opens, run locks that die with their session (and a process whose
// session died writes no more of its run), and snapshot reads in one round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { openStore, redactLocation, type RunStore } from '../../src/store/store.ts';
import { StoreError, RunLockedError } from '../../src/core/errors.ts';
import type { NewEvent } from '../../src/store/events.ts';
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.ts';
import { toyCases } from '../loop/fakes.ts';
import { toyRun } from './toy-run.ts';
import { PG_SKIP, rawDb, testStore } from './backends.ts';

const skip = PG_SKIP;

test('the PostgreSQL server for the tests answers (REVLOOP_TEST_PG; set by .ci/run)', { skip }, async () => {
  // Set but unreachable fails here, loudly, and in every PostgreSQL test: never a silent skip.
  const s = testStore('postgres');
  try {
    const store = await openStore(s.location);
    assert.deepEqual(await store.runIds(), []);
    await store.close();
  } finally {
    await s.cleanup();
  }
});

test('passwords never show: locations and errors are redacted', async () => {
  assert.equal(redactLocation('postgres://ann:s3cret@db.example:5432/runs?schema=x'), 'postgres://ann:***@db.example:5432/runs?schema=x');
  assert.equal(redactLocation('postgresql://ann:p%40ss@h/db'), 'postgresql://ann:***@h/db');
  assert.equal(redactLocation('postgres://ann@h/db?password=hunter2&schema=s'), 'postgres://ann@h/db?password=***&schema=s');
  assert.equal(redactLocation('postgres://h/db'), 'postgres://h/db');
  assert.equal(redactLocation('runs.db'), 'runs.db');
  // Nothing listens on port 1: the error says so, naming the store without its password.
  await assert.rejects(openStore('postgres://ann:hunter2@127.0.0.1:1/db'), (e: unknown) => {
    assert.ok(e instanceof StoreError);
    assert.equal(e.reason, 'unreachable');
    assert.match(e.message, /^postgres:\/\/ann:\*\*\*@127\.0\.0\.1:1\/db: cannot reach PostgreSQL/);
    assert.doesNotMatch(e.message, /hunter2/);
    return true;
  });
  await assert.rejects(openStore('postgres://ann@127.0.0.1:1/db?schema=Bad-Name'), /schema 'Bad-Name' must be lower-case letters/);
});

test('?pool=N sets the connections a process pools (default 4); the driver never sees it; a bad value is refused before connecting', async () => {
  const { parsePostgresLocation } = await import('../../src/store/postgres/postgres-store.ts');
  assert.deepEqual(parsePostgresLocation('postgres://ann@h/db?schema=lab&pool=1'), {
    connectionString: 'postgres://ann@h/db',
    schema: 'lab',
    pool: 1,
    display: 'postgres://ann@h/db?schema=lab&pool=1',
  });
  assert.equal(parsePostgresLocation('postgres://ann@h/db').pool, 4);
  for (const bad of ['0', '65', '2.5', 'x', ''])
    await assert.rejects(
      openStore(`postgres://ann@127.0.0.1:1/db?pool=${bad}`),
      (e) => e instanceof StoreError && e.message.endsWith(`pool '${bad}' must be a whole number of connections from 1 to 64`),
      bad,
    );
});

test('append-only in the database: UPDATE, DELETE and TRUNCATE of events are refused', { skip }, async () => {
  const s = testStore('postgres');
  try {
    await toyRun(s.location, { cases: toyCases(2) });
    const db = await rawDb(s.location);
    await assert.rejects(db.run("UPDATE events SET payload = '{}' WHERE seq = 3"), /events are append-only \(UPDATE refused\)/);
    await assert.rejects(db.run('DELETE FROM events WHERE seq = 3'), /events are append-only \(DELETE refused\)/);
    await assert.rejects(db.run('TRUNCATE events'), /events are append-only \(TRUNCATE refused\)/);
    // Derived tables are guarded too (issue 36): only revloop's appends and rebuilds change them.
    await assert.rejects(
      db.run('DELETE FROM rounds'),
      /rounds is derived from events: only revloop's appends change it \(DELETE refused\)/,
    );
    await db.close();
    const store = await openStore(s.location);
    await store.rebuild();
    assert.ok((await store.loadTrajectories(['toy'])).every((t) => t.rounds.length > 0));
    await store.close();
  } finally {
    await s.cleanup();
  }
});

test(
  'versioned schema: created once under a lock by racing openers; foreign and newer schemas refused; read-only needs a store',
  { skip },
  async () => {
    const s = testStore('postgres');
    try {
      await assert.rejects(openStore(s.location, { readonly: true }), (e) => e instanceof StoreError && e.reason === 'missing');
      const stores = await Promise.all([1, 2, 3, 4].map(() => openStore(s.location)));
      for (const st of stores) await st.close();
      const db = await rawDb(s.location);
      assert.deepEqual(await db.all('SELECT key, value FROM meta ORDER BY key'), [
        { key: 'revloop_store', value: '1' },
        { key: 'schema_version', value: String(SCHEMA_VERSION) },
      ]);
      await db.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'");
      await db.close();
      await assert.rejects(
        openStore(s.location),
        (e) => e instanceof StoreError && e.reason === 'newer_schema' && /version 99 is newer/.test(e.message),
      );

      const foreign = s.another();
      const fdb = await rawDb(foreign);
      await fdb.run(`CREATE SCHEMA ${new URL(foreign).searchParams.get('schema')}`);
      await fdb.run('CREATE TABLE customers (id INTEGER)');
      await fdb.close();
      await assert.rejects(openStore(foreign), (e) => e instanceof StoreError && e.reason === 'not_a_store' && /customers/.test(e.message));
    } finally {
      await s.cleanup();
    }
  },
);

test(
  "a commit never rewrites the run's row: it keeps its planning transaction, and a run's last update is its last event's time",
  { skip },
  async () => {
    const s = testStore('postgres');
    try {
      await toyRun(s.location, { cases: toyCases(2) });
      const db = await rawDb(s.location);
      const [row] = await db.all<{ same: boolean; events: number }>(
        `SELECT r.xmin::text = e.xmin::text AS same, (SELECT count(*)::int FROM events) AS events
         FROM runs r JOIN events e ON e.run_id = r.run_id AND e.seq = 1 WHERE r.run_id = 'toy'`,
      );
      await db.close();
      assert.ok(row.events > 3, 'the toy run committed more than its plan');
      assert.equal(row.same, true, "the runs row was written by the plan's transaction and by no commit since");
      const store = await openStore(s.location, { readonly: true });
      const events = await store.readEvents('toy');
      assert.equal((await store.listRuns())[0].updatedAt, events[events.length - 1].at);
      await store.close();
    } finally {
      await s.cleanup();
    }
  },
);

test('a read-only store refuses writes in the database too', { skip }, async () => {
  const s = testStore('postgres');
  try {
    await toyRun(s.location, { cases: toyCases(1) });
    const ro = await openStore(s.location, { readonly: true });
    await assert.rejects(
      ro.append('toy', [{ type: 'trajectory_reopened', caseIndex: 0, payload: { previous_reason: null } }]),
      (e) => e instanceof StoreError && e.reason === 'readonly',
    );
    await ro.close();
  } finally {
    await s.cleanup();
  }
});

test('global event ids follow commit order: a reader paging eventsAfter while three stores write misses nothing', { skip }, async () => {
  const s = testStore('postgres');
  const writers: RunStore[] = [];
  try {
    await toyRun(s.location, { runId: 'a', cases: toyCases(2) });
    const planned = await (async () => {
      const st = await openStore(s.location);
      const p = (await st.getPlanned('a'))!;
      for (const id of ['b', 'c', 'd']) await st.createRun(id, p);
      await st.close();
      return p;
    })();
    assert.ok(planned);
    for (let i = 0; i < 3; i++) writers.push(await openStore(s.location));
    const ev = (k: number): NewEvent => ({ type: 'record', payload: { kind: 'n', key: String(k), session: null, data: k } });
    let writing = true;
    const writes = writers.map(async (w, i) => {
      const run = ['b', 'c', 'd'][i];
      for (let k = 0; k < 60; k++) {
        // Bursts through the group commit and single appends, interleaved across processes.
        if (k % 3 === 0) await w.append(run, [ev(k)]);
        else await Promise.all([w.appendSoon(run, [ev(k)]), w.appendSoon(run, [ev(k + 1000)])]);
      }
    });
    const reader = await openStore(s.location, { readonly: true });
    const seen: number[] = [];
    let cursor = 0;
    const reading = (async () => {
      while (writing) {
        const page = await reader.eventsAfter(cursor, 7);
        for (const e of page) seen.push(e.id);
        if (page.length) cursor = page[page.length - 1].id;
      }
    })();
    await Promise.all(writes);
    writing = false;
    await reading;
    for (let page = await reader.eventsAfter(cursor, 7); page.length; page = await reader.eventsAfter(cursor, 7)) {
      for (const e of page) seen.push(e.id);
      cursor = page[page.length - 1].id;
    }
    const all: number[] = [];
    for (const id of await reader.runIds()) for (const e of await reader.readEvents(id)) all.push(e.id);
    all.sort((x, y) => x - y);
    assert.deepEqual(seen, all, 'every event seen once, in id order, though read while others committed');
    assert.equal((await reader.readEvents('c', { types: ['record'], keyPrefix: 'n:' })).length, 100);
    await reader.close();
  } finally {
    for (const w of writers) await w.close();
    await s.cleanup();
  }
});

test('study runs: one writing process per run, held by its database session', { skip }, async () => {
  const s = testStore('postgres');
  const a = await openStore(s.location);
  const b = await openStore(s.location);
  try {
    await a.acquireLock('probe-run');
    await assert.rejects(
      b.acquireLock('probe-run'),
      (e) => e instanceof RunLockedError && /is being written by process \d+ on /.test(e.message),
    );
    assert.ok((await b.listRuns()).every((r) => r.runId !== 'probe-run'));
    await a.close(); // the session ends: the lock goes with it
    await b.acquireLock('probe-run');
    await b.releaseLock('probe-run');
  } finally {
    await b.close();
    await s.cleanup();
  }
});

test(
  'study runs: a process whose database session ends writes no more of the run it held, which another process may then take',
  { skip },
  async () => {
    const s = testStore('postgres');
    await toyRun(s.location, { runId: 'seed', cases: toyCases(1) });
    const a = await openStore(s.location);
    const b = await openStore(s.location);
    const db = await rawDb(s.location);
    const ev = (k: number): NewEvent => ({ type: 'record', payload: { kind: 'n', key: String(k), session: null, data: k } });
    const takeOver = () =>
      b.acquireLock('held').then(
        () => true,
        () => false,
      );
    try {
      await a.acquireLock('held');
      await a.createRun('held', (await a.getPlanned('seed'))!);
      await a.append('held', [ev(1)]);
      // The session holding the lock ends (a server restart, a network cut, an administrator): only
      // that one, found by the lock it holds (other tests' sessions share the server).
      await db.all(
        `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN run_locks rl ON l.objid::bigint = rl.lock_key
         WHERE rl.run_id = 'held' AND l.locktype = 'advisory' AND l.granted AND l.objsubid = 2`,
      );
      let taken = false;
      for (let i = 0; i < 100 && !taken; i++) {
        taken = await takeOver();
        if (!taken) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(taken, 'the lock went with the session');
      await assert.rejects(
        a.append('held', [ev(2)]),
        (e) =>
          e instanceof StoreError &&
          e.reason === 'unreachable' &&
          /the database session that held run 'held' for this process has ended .*; nothing more of the run is written from here/.test(
            e.message,
          ),
      );
      // The new holder writes on: each event once, in its order.
      await b.append('held', [ev(3)]);
      const data = (await b.readEvents('held')).filter((e) => e.type === 'record').map((e) => (e.payload as { data: number }).data);
      assert.deepEqual(data, [1, 3]);
      await b.releaseLock('held');
    } finally {
      await db.close();
      await a.close().catch(() => undefined);
      await b.close();
      await s.cleanup();
    }
  },
);

/** A loopback TCP proxy to the test server that counts the chunks each client connection sends. */
async function countingProxy(location: string): Promise<{ location: string; sent: () => number; close(): void }> {
  const target = new URL(location);
  let sent = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) sockets.add(s.setNoDelay(true));
    client.on('data', (d) => {
      sent++;
      upstream.write(d);
    });
    upstream.on('data', (d) => client.write(d));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const via = new URL(location);
  via.hostname = '127.0.0.1';
  via.port = String((server.address() as AddressInfo).port);
  return {
    location: via.toString(),
    sent: () => sent,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

test(
  'a trajectory is read from one snapshot in one TCP write; a failed read rolls back and leaves its connection usable',
  { skip },
  async () => {
    const s = testStore('postgres');
    const proxy = await countingProxy(s.location);
    const db = await rawDb(s.location);
    try {
      await toyRun(s.location, { cases: toyCases(3) });
      // One pooled connection: the reads after the failed ones run on the connection that failed.
      const store = await openStore(`${proxy.location}&pool=1`, { readonly: true });
      const before = await store.loadTrajectories(['toy'], { cases: [1] });
      const page = await store.trajectorySummaries('toy', { limit: 2 });
      assert.ok(before[0].rounds.length > 0);
      assert.equal(page.total, 3);
      // BEGIN, both reads and COMMIT go out together (a worker reads so after every claim).
      const sentBefore = proxy.sent();
      assert.deepEqual(await store.loadTrajectories(['toy'], { cases: [1] }), before);
      assert.equal(proxy.sent() - sentBefore, 1, 'one write for the whole snapshot read');
      // The second read of each snapshot fails; the COMMIT behind it finds the transaction aborted.
      await db.run('ALTER TABLE rounds RENAME TO rounds_away');
      await assert.rejects(store.loadTrajectories(['toy'], { cases: [1] }), /relation "rounds" does not exist/);
      await assert.rejects(store.trajectorySummaries('toy', { limit: 2 }), /relation "rounds" does not exist/);
      await db.run('ALTER TABLE rounds_away RENAME TO rounds');
      assert.deepEqual(await store.loadTrajectories(['toy'], { cases: [1] }), before);
      assert.deepEqual(await store.trajectorySummaries('toy', { limit: 2 }), page);
      await store.close();
    } finally {
      await db.close();
      proxy.close();
      await s.cleanup();
    }
  },
);
