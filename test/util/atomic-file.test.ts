// Output files appear complete or not at all, and a missing folder is a message for people.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outputTarget, writeFileAtomic, writeFileAtomicSync } from '../../src/core/util/atomic-file.ts';
import { UserError } from '../../src/core/errors.ts';
import { verifyBatchToFile } from '../../src/core/verify/index.ts';
import { tempDir } from '../tmp.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');

test('atomic writes replace the file whole and leave no temporary file', async () => {
  const dir = tempDir('revloop-atomic-');
  const path = join(dir, 'out.txt');
  writeFileSync(path, 'old');
  writeFileAtomicSync(path, 'new ünïcode', { fsync: true });
  assert.equal(readFileSync(path, 'utf8'), 'new ünïcode');
  await writeFileAtomic(path, 'async');
  assert.equal(readFileSync(path, 'utf8'), 'async');
  assert.deepEqual(readdirSync(dir), ['out.txt']);
});

test('a missing folder or a folder in the way is a UserError, and nothing is left behind', async () => {
  const dir = tempDir('revloop-atomic-');
  const missing = join(dir, 'no', 'out.txt');
  assert.throws(
    () => writeFileAtomicSync(missing, 'x'),
    (e) => e instanceof UserError && /cannot write .*out\.txt: folder .*no does not exist/.test(e.message),
  );
  await assert.rejects(
    writeFileAtomic(missing, 'x'),
    (e) => e instanceof UserError && /folder .*no does not exist/.test((e as Error).message),
  );
  mkdirSync(join(dir, 'taken'));
  assert.throws(
    () => writeFileAtomicSync(join(dir, 'taken'), 'x'),
    (e) => e instanceof UserError && /cannot write .*taken/.test(e.message),
  );
  assert.deepEqual(readdirSync(dir).sort(), ['taken']);
});

test('commands writing into a missing folder say so without "unexpected error"', () => {
  const dir = tempDir('revloop-atomic-');
  const texts = join(dir, 'texts.jsonl');
  writeFileSync(texts, '{"id": "a", "family": "exact-length", "target": 2, "anchors": [], "text": "two words"}\n');
  const r = spawnSync(process.execPath, [BIN, 'verify', '--jsonl', texts, '-o', join(dir, 'no', 'states.jsonl')], { encoding: 'utf8' });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^revloop: cannot write .*states\.jsonl: folder .*no does not exist/);
  assert.doesNotMatch(r.stderr, /unexpected error/);
});

test('a device or a named pipe is written in place, never replaced by a file (-o /dev/null)', async () => {
  const dir = tempDir('revloop-atomic-');
  const fifo = join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  // A pipe needs a reader before a writer's open returns: `cat` in another process, given up after
  // 10 s (a write that replaced the pipe never reaches it).
  const read = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const cat = spawn('cat', [fifo]);
      const giveUp = setTimeout(() => cat.kill(), 10_000);
      let out = '';
      cat.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      cat.on('error', reject).on('close', () => {
        clearTimeout(giveUp);
        resolve(out);
      });
    });
  let got = read();
  writeFileAtomicSync(fifo, 'sync ünïcode\n');
  assert.equal(await got, 'sync ünïcode\n');
  got = read();
  await writeFileAtomic(fifo, 'async\n');
  assert.equal(await got, 'async\n');
  const texts = join(dir, 'texts.jsonl');
  writeFileSync(texts, '{"id": "a", "family": "exact-length", "target": 2, "anchors": [], "text": "two words"}\n');
  got = read();
  const summary = await verifyBatchToFile(texts, fifo);
  assert.equal(summary.lines, 1);
  assert.match(await got, /^\{"id": "a", .*"joint_success": true/);
  assert.ok(statSync(fifo).isFIFO(), 'the pipe is still a pipe');
  assert.deepEqual(readdirSync(dir).sort(), ['pipe', 'texts.jsonl'], 'no temporary file was left');
});

test('a symbolic link to a file keeps the link and gets its file replaced; /dev and /proc paths are written in place', async () => {
  const dir = tempDir('revloop-atomic-');
  const file = join(dir, 'real.jsonl');
  const link = join(dir, 'link.jsonl');
  writeFileSync(file, 'old');
  symlinkSync(file, link);
  writeFileAtomicSync(link, 'sync');
  assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.equal(readFileSync(file, 'utf8'), 'sync');
  await writeFileAtomic(link, 'async');
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(readFileSync(file, 'utf8'), 'async');
  assert.deepEqual(readdirSync(dir).sort(), ['link.jsonl', 'real.jsonl']);
  // Decided without writing there: the devices and /dev/stdout are never renamed over.
  assert.deepEqual(outputTarget(link), { path: realpathSync(file), inPlace: false });
  assert.deepEqual(outputTarget(join(dir, 'new.jsonl')), { path: join(dir, 'new.jsonl'), inPlace: false });
  for (const path of ['/dev/null', '/dev/stdout', '/dev/fd/1', '/proc/self/fd/2', '/dev/new-name']) {
    assert.equal(outputTarget(path).inPlace, true, path);
  }
  // /dev/shm is an ordinary (tmpfs) folder: files there are still replaced atomically.
  if (existsSync('/dev/shm')) assert.equal(outputTarget('/dev/shm/revloop-out.jsonl').inPlace, false);
});
