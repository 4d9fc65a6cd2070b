// docs/remedy.md's example is a program: run it as written (imports resolved to this checkout)
// against a simulated model and against the project's tiny GGUF (a real backend that can ban).
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureTinyModel, TINY_MODEL_DIR } from '../../src/test/tiny-model.ts';

const root = resolve(import.meta.dirname, '../..');

function exampleProgram(): string {
  const doc = readFileSync(join(root, 'docs/remedy.md'), 'utf8');
  const m = /## Example \(runnable\)[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc);
  assert.ok(m, 'docs/remedy.md has a ```ts block under "Example (runnable)"');
  // The doc's 'revloop/<module>' imports (or './src/…' paths), resolved to this checkout's src/<module>/index.ts.
  return m[1]
    .replace(/from 'revloop\/([^']+)'/g, (_, p: string) => `from '${pathToFileURL(join(root, 'src', p, 'index.ts')).href}'`)
    .replace(/from '\.\/src\/([^']+)'/g, (_, p: string) => `from '${pathToFileURL(join(root, 'src', p)).href}'`);
}

function run(spec: string): { code: number | null; out: string; err: string } {
  mkdirSync(TINY_MODEL_DIR, { recursive: true });
  const file = join(TINY_MODEL_DIR, 'remedy-example.mts');
  writeFileSync(file, exampleProgram());
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], {
    cwd: root,
    env: { ...process.env, REVLOOP_MODEL: spec },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('docs/remedy.md example runs with a simulated model', () => {
  const r = run('sim:steady');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /step 1: failed \(ban enforced: true/);
  assert.match(r.out, /user: \[attempt 1 failed: read_file \u2014 no such file; that call is not repeatable\]/);
  assert.match(r.out, /ban list: \[\s*"read_file\(path='notes\/todo\.txt'\)"/);
  assert.ok(!/assistant: read_file\(path='notes\/todo\.txt'\)/.test(r.out), 'the failed call is not echoed back');
});

test('docs/remedy.md example runs with the tiny GGUF (in-process backend with the ban)', () => {
  const path = ensureTinyModel();
  const r = run(`gguf:${path}`);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /step 1: (ok|failed) \(ban enforced: true, repeated a failed action: false\)/);
  assert.match(r.out, /failure records: \[/);
});
