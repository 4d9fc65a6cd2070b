// `revloop runs --release-lock RUN` (issue 36): a lock whose holder is gone — on another host (a
// restarted container) or a reused PID — blocked every resume; now it can be cleared after a
// confirmation that names holder, host and age. A live holder is never released.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { openStore } from '../../src/store/store.ts';
import { releaseRunLock } from '../../src/app/runs.ts';
import { RunLockedError } from '../../src/core/errors.ts';
import { revloop, hasStack } from '../cli/cli.ts';
import { toyRun } from '../store/toy-run.ts';
import { eachBackend, rawDb } from '../store/backends.ts';
import { toyCases } from '../loop/fakes.ts';

const twoHoursAgo = () => new Date(Date.now() - 2 * 3600_000 - 5 * 60_000).toISOString();

test('SQLite: a lock held on another host blocks the resume; --release-lock names it, asks, and clears it with --yes', async () => {
  const s = (await import('../store/backends.ts')).testStore('sqlite');
  try {
    await toyRun(s.location, { cases: toyCases(2) });
    const db = await rawDb(s.location);
    await db.run(
      'INSERT OR REPLACE INTO run_locks (run_id, pid, host, started_at) VALUES (?, ?, ?, ?)',
      'toy',
      4242,
      'old-container',
      twoHoursAgo(),
    );
    await db.close();
    await assert.rejects(
      toyRun(s.location, { cases: toyCases(2) }),
      (e) => e instanceof RunLockedError && /process 4242 on old-container/.test(e.message),
    );

    const asked = revloop(['runs', '--store', s.location, '--release-lock', 'toy']);
    assert.equal(asked.code, 2, asked.err);
    assert.match(asked.err, /run 'toy' is locked by process 4242 on host old-container since \S+ \(2 h 5 min ago\)/);
    assert.match(asked.err, /No terminal to ask: run again with --yes/);
    assert.ok(!hasStack(asked.err));

    const done = revloop(['runs', '--store', s.location, '--release-lock', 'toy', '--yes']);
    assert.equal(done.code, 0, done.err);
    assert.match(done.out, /released the lock of run 'toy' \(process 4242 on old-container\)/);
    await toyRun(s.location, { cases: toyCases(2) }); // resumes (a no-op: the run was complete)

    const none = revloop(['runs', '--store', s.location, '--release-lock', 'toy', '--yes']);
    assert.equal(none.code, 0);
    assert.match(none.out, /run 'toy' has no lock: nothing to release/);
  } finally {
    await s.cleanup();
  }
});

eachBackend('a live holder is never released; a gone one only after the confirmation, and only the lock that was shown', async (s) => {
  await toyRun(s.location, { cases: toyCases(2) });
  const holder = await openStore(s.location);
  try {
    await holder.acquireLock('toy'); // this live process (SQLite) or live session (PostgreSQL)
    await assert.rejects(
      releaseRunLock(s.location, 'toy', async () => true),
      new RegExp(`locked by process ${process.pid} on this host \\(${hostname()}\\).*and that process is alive`),
    );
  } finally {
    await holder.releaseLock('toy');
    await holder.close();
  }
  const db = await rawDb(s.location);
  const cols = s.backend === 'postgres' ? '(run_id, pid, host, started_at, lock_key)' : '(run_id, pid, host, started_at)';
  const vals = s.backend === 'postgres' ? '(?, ?, ?, ?, 7)' : '(?, ?, ?, ?)';
  await db.run(`DELETE FROM run_locks`);
  await db.run(`INSERT INTO run_locks ${cols} VALUES ${vals}`, 'toy', 4242, 'old-container', twoHoursAgo());
  await db.close();
  let shown = '';
  await assert.rejects(
    releaseRunLock(s.location, 'toy', async (_h, described) => {
      shown = described;
      return false;
    }),
    /the lock was left as it is/,
  );
  assert.match(shown, /locked by process 4242 on host old-container since .* \(2 h 5 min ago\)/);
  const r = await releaseRunLock(s.location, 'toy', async () => true);
  assert.equal(r.released, true);
  const after = await openStore(s.location, { readonly: true });
  assert.equal(await after.lockHolder('toy'), null);
  await after.close();
});

test(
  'SQLite: a lock whose PID now belongs to a process started after the lock (a reused PID) is no live holder',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const s = (await import('../store/backends.ts')).testStore('sqlite');
    // A live process of this host that started now: the PID a holder killed two hours ago had.
    const { spawn } = await import('node:child_process');
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      await toyRun(s.location, { cases: toyCases(2) });
      const db = await rawDb(s.location);
      await db.run(
        'INSERT OR REPLACE INTO run_locks (run_id, pid, host, started_at) VALUES (?, ?, ?, ?)',
        'toy',
        other.pid,
        hostname(),
        twoHoursAgo(),
      );
      await db.close();
      const store = await openStore(s.location, { readonly: true });
      try {
        assert.equal((await store.lockHolder('toy'))?.state, 'gone');
        assert.equal((await store.listRuns())[0].status === 'running', false, 'not listed as running');
      } finally {
        await store.close();
      }
      // The resume takes the run over instead of being refused for good.
      await toyRun(s.location, { cases: toyCases(2) });
    } finally {
      other.kill();
      await s.cleanup();
    }
  },
);
