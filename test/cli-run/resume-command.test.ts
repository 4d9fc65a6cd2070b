// The command `revloop run` prints for resuming must resume: pasted into a shell it carries every
// option that shapes the plan, so it is never refused as a different plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { resumeCommand } from '../../src/cli/commands/run.ts';
import { shellQuote } from '../../src/cli/invocation.ts';
import { tempDir } from '../tmp.ts';
import { REVLOOP_ON_PATH, userEnv } from '../cli/cli.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');

/** The words bash reads back from a command line. */
function shellWords(line: string): string[] {
  const r = spawnSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

test('shellQuote: bash reads every word back unchanged', () => {
  const words = ['openai-compatible:http://h:8/v1#m?rpm=6&seed=1', '{"a": [1, 2]}', "it's", 'plain.db', 'sp ace', '*', '$HOME', ''];
  assert.deepEqual(shellWords(words.map(shellQuote).join(' ')), words);
  assert.equal(shellQuote('runs.db'), 'runs.db');
});

test('resumeCommand keeps the plan options and leaves defaults out', () => {
  const line = resumeCommand(
    {
      cases: 'my cases.jsonl',
      model: 'sim:steady?gain=0.7&seed=3',
      store: 'runs.db',
      budget: '4',
      history: 'last:1',
      variant: 'baseline',
      limit: '5',
      extraBody: '{"seed": 1}',
      concurrency: '4',
      maxConsecutiveFailures: '3',
      plugin: ['./fam.ts'],
    },
    'r1',
    { PATH: REVLOOP_ON_PATH },
  );
  assert.deepEqual(shellWords(line), [
    'revloop',
    'run',
    '--cases',
    'my cases.jsonl',
    '--model',
    'sim:steady?gain=0.7&seed=3',
    '--store',
    'runs.db',
    '--run',
    'r1',
    '--limit',
    '5',
    '--budget',
    '4',
    '--history',
    'last:1',
    '--extra-body',
    '{"seed": 1}',
    '--plugin',
    './fam.ts',
  ]);
});

test('printed commands start the way revloop can be started: npx revloop under npx, revloop when on PATH, else as launched', () => {
  const o = { cases: 'c.jsonl', model: 'sim:steady', store: 'runs.db' };
  assert.match(resumeCommand(o, 'r', { npm_command: 'exec' }), /^npx revloop run --cases c\.jsonl /);
  assert.match(resumeCommand(o, 'r', { PATH: REVLOOP_ON_PATH }), /^revloop run /);
  // No revloop on PATH: as this process was started (a script path relative to the current folder).
  assert.match(resumeCommand(o, 'r', { PATH: '/nonexistent' }), /^node \S*resume-command\.test\.ts run /);
  assert.match(resumeCommand(o, 'r', { REVLOOP_INVOKED_AS: './node_modules/.bin/revloop' }), /^\.\/node_modules\/\.bin\/revloop run /);
});

test('a run stopped with --limit, --budget and --history prints a resume command that resumes it', async () => {
  const dir = tempDir('revloop-resume-');
  const cases = join(dir, 'own cases.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, 'runs.db');
  // A dead endpoint: every trajectory ends protocol-incomplete and the run stops after 3 in a row.
  const args = [
    'run',
    '--cases',
    cases,
    '--model',
    'openai-compatible:http://127.0.0.1:1/v1#m',
    '--store',
    db,
    '--retries',
    '0',
    '--limit',
    '4',
    '--budget',
    '2',
    '--history',
    'last:1',
    '--concurrency',
    '1',
  ];
  const first = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: userEnv(), timeout: 60_000 });
  assert.equal(first.status, 3, first.stdout + first.stderr);
  // Pasted as printed (continued lines included), bash reads back the one command.
  const line = /resume with the same command:\n {2}(revloop run (?:.* \\\n)*.*)$/m.exec(first.stdout)?.[1];
  assert.ok(line, first.stdout);
  const words = shellWords(line);
  assert.deepEqual(words.slice(0, 2), ['revloop', 'run']);
  const again = spawnSync(process.execPath, [BIN, ...words.slice(1)], { encoding: 'utf8', env: userEnv(), timeout: 60_000 });
  assert.doesNotMatch(again.stderr, /different plan/);
  assert.match(again.stdout, /^run '.*' in .*: resuming \(0 of 4 trajectories already complete\)$/m);
  assert.equal(again.status, 3, again.stdout + again.stderr);
});

test('a refused plan is not announced as a resume', async () => {
  const dir = tempDir('revloop-resume-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const base = ['run', '--cases', cases, '--model', 'sim:instant', '--store', join(dir, 'runs.db'), '--limit', '2', '--run', 'r'];
  assert.equal(spawnSync(process.execPath, [BIN, ...base], { encoding: 'utf8', env: userEnv() }).status, 0);
  const refused = spawnSync(process.execPath, [BIN, ...base, '--budget', '3'], { encoding: 'utf8', env: userEnv() });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /exists with a different plan/);
  assert.doesNotMatch(refused.stdout, /resuming/);
});
