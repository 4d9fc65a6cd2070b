// Issue 37 #3, #8, #9 and #4: commands that only read a store read it without creating anything.
// A store in a read-only folder, or a read-only store in a writable one, is read by every reading
// command (run as an unprivileged user: as root, as `nobody`), and no -wal or -shm appears beside
// it; neither beside a foreign SQLite file in WAL mode, which is refused. A damaged store is exit 2
// naming the file. A reader opened while nothing writes sees what a writer adds later. A PostgreSQL
// server that asks for a password none is configured for fails at once, clearly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, openSync, readdirSync, statSync, writeSync, closeSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { openStore } from '../../src/store/store.ts';
// Registers the kind `run` with the store: this process creates such a run (a copy of a plan) itself.
import '../../src/engine/trajectory-kinds.ts';
import { BIN, hasStack, userEnv } from '../cli/cli.ts';
import { tempDir } from '../tmp.ts';

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const UNPRIVILEGED = asRoot
  ? false
  : 'the read-only cases need root (to run the commands as `nobody`); as another user they are not read-only';

const dir = tempDir('revloop-readonly-');
chmodSync(dir, 0o755);
const userTmp = join(dir, 'tmp');
mkdirSync(userTmp, { mode: 0o777 });
chmodSync(userTmp, 0o777);
if (asRoot) {
  // `nobody` must reach the test's folders: let it through the (0700) temporary folders above them.
  for (let p = dir; p.startsWith(process.env.REVLOOP_TEST_TMP ?? tmpdir()) && p !== dirname(p); p = dirname(p))
    chmodSync(p, statSync(p).mode | 0o111);
}

function cli(args: string[], o: { asUser?: boolean } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: userTmp,
    encoding: 'utf8',
    timeout: 120_000,
    env: userEnv({ TMPDIR: userTmp, HOME: userTmp }),
    ...(o.asUser && asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const sideFiles = (db: string) => readdirSync(dirname(db)).filter((n) => n.startsWith(`${db.split('/').pop()}-`));

/** Every command that only reads a store, with where it may write its own output. */
const readers = (db: string): Array<[string, string[]]> => [
  ['runs', ['runs', '--store', db]],
  ['audit', ['audit', '--store', db, '--run', 'steady']],
  ['export', ['export', '--store', db, '--run', 'steady', '-o', '-']],
  ['analyze', ['analyze', '--store', db, '--bootstrap', '10', '--no-progress']],
  ['report', ['report', '--store', db, '--bootstrap', '10', '--no-progress', '-o', join(userTmp, 'r.html')]],
  ['experiment states', ['experiment', 'states', '--store', db, '--from-run', 'steady', '--for', 'crossover', '-o', '-']],
];

let seed = '';
test('setup: a store with one complete run, readable by everyone', async () => {
  const cases = join(dir, 'cases.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases().slice(0, 4));
  chmodSync(cases, 0o644);
  seed = join(dir, 'seed.db');
  const r = cli(['run', '--cases', cases, '--model', 'sim:steady', '--store', seed, '--run', 'steady']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(sideFiles(seed), [], 'a writer that closed leaves no side files');
});

function storeIn(folder: string, mode: number): string {
  mkdirSync(folder);
  const db = join(folder, 'runs.db');
  copyFileSync(seed, db);
  chmodSync(db, mode);
  chmodSync(folder, folder.endsWith('ro-folder') ? 0o555 : 0o755);
  return db;
}

test('a store in a read-only folder: every reading command reads it, and nothing is created', { skip: UNPRIVILEGED }, () => {
  const db = storeIn(join(dir, 'ro-folder'), 0o444);
  for (const [name, args] of readers(db)) {
    const r = cli(args, { asUser: true });
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.doesNotMatch(r.err, /read-only/, name);
    assert.deepEqual(readdirSync(dirname(db)), ['runs.db'], `${name} created files beside the store`);
  }
});

test('a read-only store in a writable folder: read, and no -wal or -shm appears beside it', { skip: UNPRIVILEGED }, () => {
  const folder = join(dir, 'rw-folder');
  const db = storeIn(folder, 0o444);
  chmodSync(folder, 0o777);
  for (const [name, args] of readers(db)) {
    const r = cli(args, { asUser: true });
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.deepEqual(sideFiles(db), [], `${name} left side files`);
  }
});

test('reading a writable store creates no side files either (nothing was writing it)', () => {
  const db = storeIn(join(dir, 'own-folder'), 0o644);
  for (const [name, args] of readers(db)) {
    const r = cli(args);
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.deepEqual(sideFiles(db), [], `${name} left side files`);
  }
});

test('a reader opened while nothing writes sees what a writer adds, then reads through its -wal', async () => {
  const db = storeIn(join(dir, 'live-folder'), 0o644);
  const reader = await openStore(db, { readonly: true });
  try {
    assert.deepEqual(await reader.runIds(), ['steady']);
    assert.deepEqual(sideFiles(db), [], 'the reader created nothing');
    const writer = await openStore(db);
    try {
      await writer.createRun('copy', (await writer.getPlanned('steady'))!);
      assert.deepEqual(await reader.runIds(), ['steady', 'copy'], 'the reader sees the new run while the writer is open');
    } finally {
      await writer.close();
    }
    assert.equal((await reader.listRuns()).length, 2);
  } finally {
    await reader.close();
  }
});

test('a foreign SQLite file in WAL mode: refused by readers and writers, and no -wal or -shm is left beside it', () => {
  const db = join(dir, 'foreign-wal.db');
  const other = new Database(db);
  other.pragma('journal_mode = WAL');
  other.exec("CREATE TABLE items (sku TEXT); INSERT INTO items VALUES ('a');");
  other.close();
  assert.deepEqual(sideFiles(db), []);
  const cases = join(dir, 'cases.jsonl');
  for (const args of [
    ['runs', '--store', db],
    ['analyze', '--store', db],
    ['export', '--store', db, '--run', 'x', '-o', '-'],
    ['run', '--cases', cases, '--model', 'sim:instant', '--store', db],
  ]) {
    const r = cli(args);
    assert.equal(r.code, 2, `${args[0]}: ${r.err}`);
    assert.match(r.err, /foreign-wal\.db: not a revloop store \(it has tables revloop does not know \(items\)\)/, args[0]);
    assert.deepEqual(sideFiles(db), [], `${args[0]} left side files`);
  }
});

test('a damaged store: exit 2 naming the file and saying it is damaged, never an unexpected error', () => {
  const db = join(dir, 'damaged.db');
  copyFileSync(seed, db);
  // Overwrite pages in the middle of the file (the schema on page 1 stays readable).
  const size = statSync(db).size;
  const fd = openSync(db, 'r+');
  writeSync(fd, Buffer.alloc(Math.floor(size / 2), 0xff), 0, Math.floor(size / 2), Math.floor(size / 4));
  closeSync(fd);
  const r = cli(['analyze', '--store', db, '--bootstrap', '10', '--no-progress']);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /^revloop: .*damaged\.db: the store file is damaged \(database disk image is malformed\)/m);
  assert.doesNotMatch(r.err, /unexpected error/);
  assert.ok(!hasStack(r.err), r.err);
});

/** A server that asks for a SCRAM password and then waits, as PostgreSQL waits for a login (60 s by default). */
async function scramServer(): Promise<{ port: number; closedByClient: Promise<void>; close(): void }> {
  const sockets: Socket[] = [];
  let closed!: () => void;
  const closedByClient = new Promise<void>((resolve) => (closed = resolve));
  const auth = (code: number, payload: Buffer) => {
    const b = Buffer.alloc(9 + payload.length);
    b.write('R', 0);
    b.writeInt32BE(8 + payload.length, 1);
    b.writeInt32BE(code, 5);
    payload.copy(b, 9);
    return b;
  };
  const server = createServer((sock) => {
    sockets.push(sock);
    let messages = 0;
    sock.on('data', () => {
      messages++;
      if (messages === 1) sock.write(auth(10, Buffer.from('SCRAM-SHA-256\0\0'))); // AuthenticationSASL
      if (messages === 2) sock.write(auth(11, Buffer.from('r=clientnonceservernonce,s=c2FsdA==,i=4096'))); // SASLContinue
    });
    sock.on('close', () => closed());
    sock.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    closedByClient,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

test('PostgreSQL asking for a password none is configured for: exit 2 at once, saying so, the socket closed', async () => {
  const server = await scramServer();
  try {
    const env = userEnv({ PGPASSWORD: undefined, HOME: userTmp, PGPASSFILE: join(userTmp, 'no-pgpass') });
    const child = spawn(process.execPath, [BIN, 'runs', '--store', `postgres://alice@127.0.0.1:${server.port}/db`], { env });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    // The server never ends the login: only the client closing its socket lets the command end (or the kill).
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(kill);
    await server.closedByClient;
    assert.equal(code, 2, err);
    assert.match(err, /PostgreSQL asks for a password for this user and none is configured: set PGPASSWORD/);
    assert.doesNotMatch(err, /SASL|password must be a string/);
  } finally {
    server.close();
  }
});
