// Issue 14 #5: binary input is never echoed raw into error lines (control bytes, NUL, invalid UTF-8
// are shown escaped), and a file with many errors of one kind shows a few and counts the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatLocation, printable } from '../../src/core/errors.ts';
import { renderProblems } from '../../src/core/cases/errors.ts';
import type { CaseProblem } from '../../src/core/cases/types.ts';
import { revloop } from '../cli/cli.ts';
import { tmpDir } from './fixtures.ts';

// Anything a terminal would act on: C0 controls but newline, DEL, C1 controls.
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

test('formatLocation shows control characters, NUL and undecodable bytes escaped', () => {
  const line = formatLocation('f.jsonl', 3, 'a\u0007b', 'invalid JSON (Unexpected token \u0000 in "\u001b[31m\ufffd")');
  assert.equal(line, 'f.jsonl:3: a\\x07b: invalid JSON (Unexpected token \\x00 in "\\x1b[31m\\ufffd")');
  assert.equal(printable('tab\there\nline\r\u200b\u202e'), 'tab\\there\\nline\\r\\u200b\\u202e');
  assert.equal(printable('plain text, ünïcode and “quotes” stay'), 'plain text, ünïcode and “quotes” stay');
});

test('repeated problems of one kind: three shown, then a count with the lines', () => {
  const problems: CaseProblem[] = Array.from({ length: 50 }, (_, i) => ({
    line: i + 1,
    field: null,
    problem: `invalid JSON (token ${i})`,
  }));
  problems.push({ line: 51, field: 'id', problem: 'is required' });
  const text = renderProblems('f.jsonl', problems);
  const lines = text.split('\n');
  assert.deepEqual(lines.slice(0, 3), [
    'f.jsonl:1: invalid JSON (token 0)',
    'f.jsonl:2: invalid JSON (token 1)',
    'f.jsonl:3: invalid JSON (token 2)',
  ]);
  assert.ok(lines.includes('f.jsonl:51: id: is required'), text);
  assert.ok(lines.includes('… and 47 more of the kind "invalid JSON" (lines 4–50)'), text);
  assert.equal(lines.length, 5);
});

test('revloop cases validate on a binary file: escaped bytes, capped repeats, exit 1', () => {
  const dir = tmpDir();
  const file = join(dir, 'binary.dat');
  const junk = (i: number) => Buffer.from([0x00, 0x01, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0xff, 0xfe, 0x41 + (i % 26), 0x0a]);
  writeFileSync(file, Buffer.concat([...Array.from({ length: 40 }, (_, i) => junk(i)), Buffer.from('{"id": "x", "fam\\u0007ily": 1}\n')]));
  for (const args of [
    ['cases', 'validate', '--input-format', 'native', file],
    ['cases', 'validate', file],
    ['cases', 'manifest', '--input-format', 'native', file],
  ]) {
    const r = revloop(args);
    assert.notEqual(r.code, 0);
    assert.ok(!RAW_CONTROL.test(r.err), `raw control bytes in: ${JSON.stringify(r.err)}`);
    assert.ok(!r.err.includes('\ufffd'), 'undecodable bytes are shown escaped, not as U+FFFD');
  }
  const r = revloop(['cases', 'validate', '--input-format', 'native', file]);
  // The text boundary (issue 36) names the first byte that is not UTF-8 before any JSON parsing.
  assert.match(r.err, /binary\.dat:1: is not valid UTF-8 \(byte 0xff at byte 8\)/);
  assert.match(r.err, /… and 37 more of the kind "is not valid UTF-8" \(lines 4–40\)/);
  assert.match(r.err, /binary\.dat:41: fam\\x07ily: unknown field/);
});
