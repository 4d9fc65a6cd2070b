// Issue 14 #1: a closed standard output (`revloop … | head -1`) ends every command quietly: exit 0,
// no "Unhandled 'error' event", no stack trace. Outputs here are far larger than a pipe's buffer,
// so revloop is still writing when `head` goes away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { tempDir } from '../tmp.ts';
import { hasStack, shell } from './cli.ts';

function closedPipe(command: string) {
  // PIPESTATUS[0] is revloop's own exit status; its stderr is kept apart from head's output.
  const r = shell(`$REVLOOP ${command} 2>"$ERR" | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`, { ERR: join(dir, 'stderr.txt') });
  return { code: Number(r.out.trim()), err: shell(`cat "${join(dir, 'stderr.txt')}"`).out };
}

const dir = tempDir('revloop-pipes-');

test('cases manifest --json | head: quiet exit 0', async () => {
  const base = exactLengthDemoCases();
  const many = Array.from({ length: 2000 }, (_, i) => ({ ...base[i % base.length], id: `c${i}` }));
  const file = join(dir, 'many.jsonl');
  await writeCaseSet(file, many);
  const r = closedPipe(`cases manifest ${file} --json`);
  assert.equal(r.err, '', 'nothing on stderr');
  assert.equal(r.code, 0);
});

test('verify --jsonl | head: quiet exit 0', () => {
  const file = join(dir, 'texts.jsonl');
  const line = JSON.stringify({ family: 'exact-length', target: 3, anchors: [], text: 'a b c' });
  writeFileSync(file, Array.from({ length: 5000 }, (_, i) => line.replace('{', `{"id":"${i}",`)).join('\n') + '\n');
  const r = closedPipe(`verify --jsonl ${file}`);
  assert.ok(!hasStack(r.err) && !/EPIPE|unexpected error/.test(r.err), r.err);
  assert.equal(r.err, '');
  assert.equal(r.code, 0);
});

test('--help | head: quiet exit 0', () => {
  const r = closedPipe('run --help');
  assert.equal(r.err, '');
  assert.equal(r.code, 0);
});
