// Output files appear complete or not at all, and a missing folder is a message for people.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/core/util/atomic-file.ts';
import { UserError } from '../../src/core/errors.ts';
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
