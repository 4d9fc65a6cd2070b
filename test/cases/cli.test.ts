// `revloop cases validate|manifest` end to end (spawns node bin/revloop.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { loadCaseSet } from '../../src/core/cases/index.ts';
import { paperExactRows, tmpDir, writeLines } from './fixtures.ts';
import { userEnv } from '../cli/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');

function revloop(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'revloop.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: userEnv(),
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('cases validate: ok files, a failing file with file:line: field lines, exit 1', () => {
  const dir = tmpDir();
  const good = writeLines(dir, 'good.jsonl', paperExactRows());
  const bad = writeLines(dir, 'bad.jsonl', [{ ...paperExactRows()[0], target: 'x' }, paperExactRows()[1]]);
  const r = revloop(['cases', 'validate', good, bad, join(dir, 'missing.jsonl')]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, new RegExp(`^ok   ${good}: 2 cases \\(format paper-exact\\); families: exact-length 2; sha256 [0-9a-f]{16}…\\n$`));
  assert.equal(
    r.stderr,
    `FAIL ${bad}: 1 problem (format paper-exact)\n${bad}:1: target: must be an integer, got the string "x"\n` +
      `FAIL ${join(dir, 'missing.jsonl')}: no such file\nrevloop: 2 of 3 files failed validation\n`,
  );
});

test('cases manifest --json prints the manifest loadCaseSet computes; readable by default', async () => {
  const dir = tmpDir();
  const file = writeLines(dir, 'good.jsonl', paperExactRows());
  const r = revloop(['cases', 'manifest', file, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), (await loadCaseSet(file)).manifest);
  const h = revloop(['cases', 'manifest', file]);
  assert.equal(h.code, 0, h.stderr);
  assert.match(h.stdout, /^case set {8}.*\nformat {10}paper-exact\ncases {11}2\nby family {7}exact-length 2\n/);
  assert.match(h.stdout, /manifest sha256 [0-9a-f]{64}\n/);
  const bad = revloop(['cases', 'manifest', file, '--input-format', 'tsv']);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /^error: option '--input-format <name>' argument 'tsv' is invalid\. Allowed choices are paper-exact, paper-structured, collie, native, ifeval\.\n/,
  );
});
