// Issue 14 #2 and #3, end to end through every command that writes a store (run, probe, agent,
// import-trajectories) and one that reads (runs): a read-only store file or folder, and SQLite files
// that are not revloop stores, are refused with exit 2 and a message naming the file; nothing is
// written (the file hashes the same, no -wal/-shm appears). An empty or new file becomes a store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { sha256Hex } from '../../src/core/util/hash.ts';
import { BIN, hasStack } from '../cli/cli.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-foreign-');
chmodSync(dir, 0o755);
const casesFile = join(dir, 'own.jsonl');
const importFile = join(dir, 'import.jsonl');
writeFileSync(
  importFile,
  JSON.stringify({
    id: 't1',
    controller: 'mine',
    family: 'exact-length',
    case_id: 'c1',
    source: 'own',
    target: 2,
    anchors: [],
    drafts: ['a b'],
  }) + '\n',
);

// Read-only means nothing to root: as root, the commands run as `nobody` for the read-only cases.
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const userTmp = tempDir('revloop-foreign-tmp-');
chmodSync(userTmp, 0o777);
if (asRoot) {
  // `nobody` must reach the test's folders: let it through the (0700) temporary folders above them.
  for (let p = dirname(dir); p.startsWith(process.env.REVLOOP_TEST_TMP ?? tmpdir()); p = dirname(p)) chmodSync(p, statSync(p).mode | 0o111);
}

function cli(args: string[], asUser = false) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, TMPDIR: userTmp, HOME: userTmp },
    ...(asUser && asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const writers = (db: string): Array<[string, string[]]> => [
  ['run', ['run', '--cases', casesFile, '--model', 'sim:instant', '--store', db, '--limit', '2']],
  ['probe', ['probe', '--build', '2', '--model', 'sim:steady', '--store', db, '--no-progress']],
  ['agent', ['agent', '--model', 'sim:steady', '--harness', 'verbatim', '--tasks', '1', '--store', db, '--no-progress']],
  ['import-trajectories', ['import-trajectories', importFile, '--store', db, '--run', 'imp']],
];

const hashOf = (path: string) => sha256Hex(readFileSync(path));
const siblings = (path: string) => readdirSync(join(path, '..')).filter((n) => n.startsWith(path.split('/').pop()! + '-'));

test('setup: a case file readable by everyone', async () => {
  await writeCaseSet(casesFile, exactLengthDemoCases());
  chmodSync(casesFile, 0o644);
  chmodSync(importFile, 0o644);
});

test('a read-only store file: exit 2 naming the file and saying read-only; the file is untouched', () => {
  const db = join(dir, 'ro.db');
  assert.equal(cli(['import-trajectories', importFile, '--store', db, '--run', 'seed']).code, 0);
  chmodSync(db, 0o444);
  const before = hashOf(db);
  for (const [name, args] of writers(db)) {
    const r = cli(args, true);
    assert.equal(r.code, 2, `${name}: ${r.err}`);
    assert.match(r.err, new RegExp(`^revloop: ${db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*read-only`, 'm'), `${name}: ${r.err}`);
    assert.ok(!hasStack(r.err), r.err);
    assert.equal(hashOf(db), before, `${name} changed the file`);
  }
});

test('a store in a read-only folder: exit 2 naming the folder; nothing is created', () => {
  const folder = join(dir, 'ro-folder');
  spawnSync('mkdir', ['-m', '555', folder]);
  const db = join(folder, 'runs.db');
  for (const [name, args] of writers(db)) {
    const r = cli(args, true);
    assert.equal(r.code, 2, `${name}: ${r.err}`);
    assert.match(r.err, /cannot create the store: the folder .*ro-folder is read-only for you/, `${name}: ${r.err}`);
    assert.deepEqual(readdirSync(folder), [], `${name} wrote into the folder`);
  }
});

test('a SQLite file with its own `events` table, or with unrelated tables: exit 2, left byte-identical', () => {
  const withEvents = join(dir, 'events.db');
  const other = new Database(withEvents);
  other.exec("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT); INSERT INTO events (what) VALUES ('party');");
  other.close();
  const unrelated = join(dir, 'inventory.db');
  const inv = new Database(unrelated);
  inv.exec("CREATE TABLE items (sku TEXT, qty INTEGER); INSERT INTO items VALUES ('a', 1);");
  inv.close();
  for (const db of [withEvents, unrelated]) {
    const before = hashOf(db);
    for (const [name, args] of [...writers(db), ['runs', ['runs', '--store', db]] as [string, string[]]]) {
      const r = cli(args);
      assert.equal(r.code, 2, `${name} on ${db}: ${r.err}`);
      assert.match(
        r.err,
        /: not a revloop store \(it has (no revloop marker|tables revloop does not know \(items\))\)/,
        `${name}: ${r.err}`,
      );
      assert.doesNotMatch(r.err, /no such column/);
      assert.equal(hashOf(db), before, `${name} changed ${db}`);
      assert.deepEqual(siblings(db), [], `${name} left a -wal/-shm next to ${db}`);
    }
  }
});

test('an empty file and a new path become stores (with the marker and schema version)', () => {
  const empty = join(dir, 'empty.db');
  writeFileSync(empty, '');
  const fresh = join(dir, 'new', 'runs.db');
  for (const db of [empty, fresh]) {
    const r = cli(['import-trajectories', importFile, '--store', db, '--run', 'imp']);
    assert.equal(r.code, 0, r.err);
    const s = new Database(db, { readonly: true });
    const meta = Object.fromEntries(
      (s.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((m) => [m.key, m.value]),
    );
    const pageSize = s.pragma('page_size', { simple: true });
    s.close();
    assert.equal(pageSize, 16384, `${db}: a new store's page size`);
    assert.equal(meta.revloop_store, '1');
    assert.equal(meta.schema_version, '3');
    assert.ok(existsSync(db));
  }
});
