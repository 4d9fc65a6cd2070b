// Input files pass the one text boundary (issue 36): invalid UTF-8, NUL and lone surrogates are
// refused as file:line: field: problem with exit 2 (case files, import files, verify --text-file),
// and counts have upper bounds (a target of 10^15 is refused, never run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { paperExactRows, tmpDir } from './fixtures.ts';
import { hasStack, revloop } from '../cli/cli.ts';

/** A case file of two paper-exact rows whose second line is `second` (raw bytes). */
function caseFile(dir: string, second: Buffer | string): string {
  const path = join(dir, 'cases.jsonl');
  writeFileSync(path, Buffer.concat([Buffer.from(JSON.stringify(paperExactRows()[0]) + '\n'), Buffer.from(second), Buffer.from('\n')]));
  return path;
}

const row = (patch: Record<string, unknown>) => JSON.stringify({ ...paperExactRows()[1], ...patch });

test('a case file with invalid UTF-8 in a field: file:line: field, exit 2 wherever it is read', () => {
  const dir = tmpDir();
  const text = row({ instruction: 'When does the quiet period start?' });
  const at = text.indexOf('start?');
  const file = caseFile(dir, Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff, 0xfe]), Buffer.from(text.slice(at))]));
  const v = revloop(['cases', 'validate', file]);
  assert.equal(v.code, 1, v.err);
  assert.match(v.err, new RegExp(`${file}:2: instruction: is not valid UTF-8 \\(byte 0xff at byte \\d+\\)`));
  const m = revloop(['cases', 'manifest', file]);
  assert.equal(m.code, 2, m.err);
  assert.match(m.err, new RegExp(`${file}:2: instruction: is not valid UTF-8`));
  const r = revloop(['run', '--cases', file, '--model', 'sim:steady', '--store', join(dir, 'runs.db')]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /cases\.jsonl:2: instruction: is not valid UTF-8/);
  assert.ok(!hasStack(r.err));
});

test('NUL and lone surrogates in case fields are refused with the field named', () => {
  const dir = tmpDir();
  const nul = caseFile(dir, row({ id: 'mine__\u00002' }));
  const a = revloop(['cases', 'manifest', nul]);
  assert.equal(a.code, 2);
  assert.match(a.err, /cases\.jsonl:2: id: holds a NUL character \(\\u0000\) at character 7/);
  // JSON's escape of a lone surrogate, as an editor or a script would write it.
  const lone = caseFile(dir, row({ anchors: ['quiet period', 'IPO'] }).replace('"IPO"', '"IP\\ud83dO"'));
  const b = revloop(['cases', 'manifest', lone]);
  assert.equal(b.code, 2);
  assert.match(b.err, /cases\.jsonl:2: anchors\[1\]: holds a lone UTF-16 surrogate \(\\ud83d\) at character 3/);
});

test('counts have upper bounds: a target of 10^15 is refused by cases validate and by run', () => {
  const dir = tmpDir();
  const file = caseFile(dir, row({ target: 1_000_000_000_000_000 }));
  const v = revloop(['cases', 'validate', file]);
  assert.equal(v.code, 1);
  assert.match(v.err, /cases\.jsonl:2: target: must be at most 100000, got 1000000000000000/);
  const r = revloop(['run', '--cases', file, '--model', 'sim:steady', '--store', join(dir, 'runs.db')]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /target: must be at most 100000/);
  assert.ok(!existsSync(join(dir, 'runs.db')), 'nothing was written');
});

test('import files: a draft holding NUL or invalid UTF-8 is refused with file:line: field, nothing imported', () => {
  const dir = tmpDir();
  const line = (drafts: string[]) => ({
    id: 'a',
    controller: 'm1',
    case_id: 'k1',
    family: 'exact-length',
    source: 'own',
    target: 4,
    anchors: ['lake'],
    drafts,
  });
  const file = join(dir, 'in.jsonl');
  writeFileSync(
    file,
    JSON.stringify(line(['The lake.'])) + '\n' + JSON.stringify({ ...line(['The lake \u0000 was.']), id: 'b', case_id: 'k2' }) + '\n',
  );
  const r = revloop(['import-trajectories', file, '--store', join(dir, 'runs.db')]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /in\.jsonl:2: drafts\[0\]: holds a NUL character/);
  assert.ok(!existsSync(join(dir, 'runs.db')));
  const bytes = join(dir, 'bytes.jsonl');
  const text = JSON.stringify(line(['The lake was calm.']));
  const at = text.indexOf('calm');
  writeFileSync(bytes, Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(text.slice(at) + '\n')]));
  const u = revloop(['import-trajectories', bytes, '--store', join(dir, 'runs.db')]);
  assert.equal(u.code, 2, u.err);
  assert.match(u.err, /bytes\.jsonl:1: drafts\[0\]: is not valid UTF-8 \(byte 0xc3/);
});

test('verify --text-file: invalid UTF-8 or NUL is refused with file:line: text, exit 2 (never verified as U+FFFD)', () => {
  const dir = tmpDir();
  const file = join(dir, 'draft.txt');
  writeFileSync(file, Buffer.concat([Buffer.from('first line\nsecond '), Buffer.from([0xff]), Buffer.from(' line\n')]));
  const r = revloop(['verify', '--family', 'exact-length', '--target', '4', '--text-file', file]);
  assert.equal(r.code, 2, r.err);
  assert.ok(r.err.endsWith(`revloop: ${file}:2: text: is not valid UTF-8 (byte 0xff at byte 8 of the line)\n`), r.err);
  writeFileSync(file, 'one two\u0000 three four');
  const n = revloop(['verify', '--family', 'exact-length', '--target', '4', '--text-file', file]);
  assert.equal(n.code, 2);
  assert.match(n.err, /draft\.txt:1: text: holds a NUL character/);
  const piped = revloop(['verify', '--family', 'exact-length', '--target', '4'], { input: Buffer.from([0x61, 0x80]) });
  assert.equal(piped.code, 2);
  assert.match(piped.err, /<standard input>:1: text: is not valid UTF-8/);
  const huge = revloop(['verify', '--family', 'exact-length', '--target', '1000000000000000'], { input: 'a b c d' });
  assert.equal(huge.code, 2);
  assert.match(huge.err, /--target must be at most 100000/);
});
