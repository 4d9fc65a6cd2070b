// The test suite's own machinery (scripts/run-tests.mjs): a test file that leaves a temporary
// folder behind fails, a tidy one passes, and the compact reporter lists every skipped test with
// its reason and ends with node's summary lines (which CI reads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../tmp.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'suite');

function runSuite(file: string, runTmp: string) {
  const args = ['--import', join(ROOT, 'test/setup/tmp-guard.mjs'), '--test'];
  args.push('--test-reporter', join(ROOT, 'test/setup/reporter.mjs'), '--test-reporter-destination', 'stdout', join(FIXTURES, file));
  // A fresh runner: without this process's NODE_TEST_CONTEXT, which would make it a nested child.
  const env: NodeJS.ProcessEnv = { ...process.env, REVLOOP_TEST_TMP: runTmp };
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env, timeout: 60_000 });
}

test('a test file that leaves a temporary folder behind fails, naming it; the folder is removed anyway', () => {
  const runTmp = tempDir('revloop-suite-');
  const r = runSuite('leaky.test.mjs', runTmp);
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stdout, /left temporary files behind: revloop-forgotten-\w+/);
  assert.match(r.stdout, /^✖ test\/fixtures\/suite\/leaky\.test\.mjs — 1 passed, 1 FAILED, 1 skipped/m);
  assert.match(r.stdout, /^# fail 1$/m);
  assert.deepEqual(readdirSync(runTmp), [], 'the guard removes the per-file folder');
});

test('a tidy test file passes; the reporter ends with the skipped list and node’s summary lines', () => {
  const tidy = runSuite('tidy.test.mjs', tempDir('revloop-suite-'));
  assert.equal(tidy.status, 0, tidy.stdout);
  assert.match(tidy.stdout, /^✔ test\/fixtures\/suite\/tidy\.test\.mjs — 1 passed/m);

  const leaky = runSuite('leaky.test.mjs', tempDir('revloop-suite-'));
  const lines = leaky.stdout.trimEnd().split('\n');
  const tail = lines.slice(-8).map((l) => l.replace(/ .*/, ''));
  assert.deepEqual(tail, ['#', '#', '#', '#', '#', '#', '#', '#']);
  assert.deepEqual(
    lines.slice(-8).map((l) => l.split(' ')[1]),
    ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms'],
  );
  assert.match(
    leaky.stdout,
    /\nskipped \(1\):\n {2}- test\/fixtures\/suite\/leaky\.test\.mjs › needs something absent: the absent thing is absent\n/,
  );
});

test('a suite whose hook throws shows that error, not only its cancelled tests; suites count towards the file’s time', () => {
  const r = runSuite('hook-fails.test.mjs', tempDir('revloop-suite-'));
  assert.notEqual(r.status, 0, r.stdout);
  assert.match(r.stdout, /^✖ test\/fixtures\/suite\/hook-fails\.test\.mjs — 1 passed, 2 FAILED \((0\.[3-9]|[1-9])/m);
  assert.match(r.stdout, /^ {2}✖ needs a browser \(hookFailed\)\n {4}the browser did not start: no display\n/m);
  assert.match(r.stdout, /^# cancelled 2$/m);
});
