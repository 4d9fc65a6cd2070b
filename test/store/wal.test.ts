// A killed run's WAL holds commits SQLite has not copied into the file yet. Issue 36: a flipped byte
// or a truncation there made SQLite drop committed events silently (the audit then passed). A
// damaged WAL is now refused before SQLite reads it; a WAL cut at a frame boundary leaves no trace
// in the store, and `audit --expect-head` with the head printed earlier finds the shortened log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/store.ts';
import { StoreError } from '../../src/core/errors.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { walDamage } from '../../src/store/sqlite/wal-check.ts';
import { resolveToy } from '../loop/fakes.ts';
import { tempDir } from './toy-run.ts';

/** A store whose run was killed with every commit still in its WAL; its files copied aside, and the head it printed. */
function killedStore(): { dir: string; path: string; head: { seq: number; hash: string }; pageSize: number } {
  const dir = tempDir('revloop-wal-');
  const path = join(dir, 'runs.db');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'child-killed.ts'), path], {
    encoding: 'utf8',
  });
  assert.equal(r.signal, 'SIGKILL', r.stderr);
  const head = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.ok(statSync(`${path}-wal`).size > 32, 'the commits are in the WAL');
  for (const ext of ['', '-wal', '-shm']) copyFileSync(`${path}${ext}`, join(dir, `orig${ext}`));
  const wal = readFileSync(`${path}-wal`);
  return { dir, path, head, pageSize: wal.readUInt32BE(8) };
}

const audit = async (path: string, expectHead?: string) => {
  const s = await openStore(path, { readonly: true });
  try {
    return (await auditRun(s, 'toy', resolveToy, { expectHead })).discrepancies.map(formatDiscrepancy);
  } finally {
    await s.close();
  }
};

test('an intact WAL of a killed run opens and audits against the head it printed', async () => {
  const k = killedStore();
  assert.equal(walDamage(k.path), null);
  assert.deepEqual(await audit(k.path, k.head.hash), []);
});

test('a byte flipped in a WAL frame is refused before SQLite would drop the commits after it', async () => {
  const k = killedStore();
  const wal = readFileSync(`${k.path}-wal`);
  const frameSize = 24 + k.pageSize;
  const frames = Math.floor((wal.length - 32) / frameSize);
  assert.ok(frames >= 4, `${frames} frames`);
  const at = 32 + 2 * frameSize + 24 + 100; // inside the page of frame 3
  wal[at] ^= 0xff;
  writeFileSync(`${k.path}-wal`, wal);
  assert.match(walDamage(k.path)!, new RegExp(`runs\\.db-wal is damaged at frame 3 of ${frames}: SQLite would stop reading there`));
  for (const readonly of [true, false])
    await assert.rejects(
      openStore(k.path, { readonly }),
      (e) => e instanceof StoreError && /damaged at frame 3 .* keep a copy of .*runs\.db and its -wal and -shm files/.test(e.message),
    );
  // Nothing was changed: the original bytes open again.
  copyFileSync(join(k.dir, 'orig-wal'), `${k.path}-wal`);
  assert.deepEqual(await audit(k.path, k.head.hash), []);
});

test('a WAL cut at a frame boundary: undetectable in the store, found by audit --expect-head', async () => {
  const k = killedStore();
  const frameSize = 24 + k.pageSize;
  const size = statSync(`${k.path}-wal`).size;
  const frames = Math.floor((size - 32) / frameSize);
  truncateSync(`${k.path}-wal`, 32 + Math.floor(frames / 2) * frameSize);
  assert.equal(walDamage(k.path), null, 'no trace left in the WAL');
  const found = await audit(k.path, k.head.hash);
  assert.equal(found.length, 1, found.join('\n'));
  assert.match(found[0], /the log does not hold the expected head/);
  assert.ok(existsSync(k.path));
});
