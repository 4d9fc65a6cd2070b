// Issue 37, "One command line": one flag for one thing on every command (docs/running.md, "One
// vocabulary"), the old spellings hidden aliases for one release, the model-spec help written from
// the model registry, help texts that say what the command does (#10), and one JSON key style.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.ts';
import { specFormsLine } from '../../src/models/spec.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { allCommands, revloop } from './cli.ts';
import { tempDir } from '../tmp.ts';

const program = await buildProgram();
const commands = allCommands(program).filter(({ cmd }) => cmd.options.length > 0);
const visible = (cmd: Command) => cmd.options.filter((o) => !o.hidden).map((o) => o.long!);
const has = (cmd: Command, flag: string) => visible(cmd).includes(flag);
const named = (path: string) => commands.find((c) => c.path === path)!.cmd;

test('one flag for a run, an output file, an output folder, an input and an output format', () => {
  for (const { path, cmd } of commands) {
    for (const old of ['--run-id', '--out', '--format', '--run-id-prefix'])
      assert.ok(!has(cmd, old), `revloop ${path} shows ${old} (an old spelling)`);
    const output = cmd.options.find((o) => o.long === '--output');
    if (output) assert.equal(output.short, '-o', `revloop ${path}: the output file is -o, --output`);
  }
  for (const path of [
    'run',
    'experiment history',
    'experiment crossover',
    'experiment sysid',
    'experiment persist',
    'import-trajectories',
    'audit',
    'export',
    'analyze',
    'report',
    'worker',
    'probe',
    'agent',
  ])
    assert.ok(has(named(path), '--run'), `revloop ${path} names its run with --run`);
  for (const path of ['export', 'report', 'verify', 'experiment states', 'probe items']) assert.ok(has(named(path), '--output'), path);
  assert.ok(has(named('demo'), '--out-dir'));
  for (const path of ['run', 'cases validate', 'cases manifest', 'import-trajectories'])
    assert.ok(has(named(path), '--input-format'), path);
  assert.ok(has(named('export'), '--output-format'));
});

test('--budget means the revision budget wherever it appears; the curve cap is --max-cap; --limit wherever cases are read', () => {
  for (const { path, cmd } of commands) {
    const budget = cmd.options.find((o) => o.long === '--budget' && !o.hidden);
    if (budget) assert.match(budget.description, /revision budget T/, `revloop ${path} --budget`);
    if (cmd.options.some((o) => o.long === '--cases')) assert.ok(has(cmd, '--limit'), `revloop ${path} reads cases but has no --limit`);
  }
  for (const path of ['analyze', 'report']) {
    assert.ok(has(named(path), '--max-cap'), path);
    assert.ok(!has(named(path), '--budget'), `${path}: --budget is an old spelling there`);
  }
});

test('every --model help is written from the model registry', () => {
  for (const { path, cmd } of commands) {
    const model = cmd.options.find((o) => o.long === '--model');
    if (!model) continue;
    const forms = [specFormsLine(), specFormsLine('score'), specFormsLine('ban')];
    assert.ok(
      forms.some((f) => model.description.includes(f)),
      `revloop ${path} --model: ${model.description}`,
    );
  }
});

test('help says what a command needs (#10): analyze and report need a store named; worker a PostgreSQL one', () => {
  for (const path of ['analyze', 'report']) {
    const store = named(path).options.find((o) => o.long === '--store')!;
    assert.equal(store.defaultValue, undefined, `${path} claims a default store`);
    assert.doesNotMatch(store.description, /runs\.db/, path);
  }
  const worker = named('worker').options.find((o) => o.long === '--store')!;
  assert.doesNotMatch(worker.description, /SQLite/);
  assert.equal(worker.defaultValue, undefined);
  const r = revloop(['worker', '--store', 'runs.db']);
  assert.equal(r.code, 2);
  assert.match(r.err, /^revloop: worker: --store must be a PostgreSQL URL/m);
  assert.doesNotMatch(r.err, /revloop: revloop/);
  // Without a store at all: the message asks for what a worker can use, never a SQLite file.
  const none = revloop(['worker'], { env: { REVLOOP_STORE: undefined } });
  assert.equal(none.code, 2);
  assert.match(none.err, /^revloop: worker: --store <location> is required \(postgres:\/\//m);
  assert.doesNotMatch(none.err, /SQLite/);
});

const dir = tempDir('revloop-vocabulary-');
const cases = join(dir, 'cases.jsonl');
const db = join(dir, 'runs.db');

test('old spellings still work for one release, hidden from help, and say what replaced them', async () => {
  await writeCaseSet(cases, exactLengthDemoCases());
  const run = revloop([
    'run',
    '--cases',
    cases,
    '--model',
    'sim:instant',
    '--store',
    db,
    '--run-id',
    'old',
    '--format',
    'native',
    '--limit',
    '2',
  ]);
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^run 'old' in /m);
  assert.match(run.err, /^revloop: note: --run-id is now --run; the old spelling goes in the next release$/m);
  assert.match(run.err, /^revloop: note: --format is now --input-format/m);
  const exp = revloop(['export', '--store', db, '--run', 'old', '--format', 'paper', '-o', '-']);
  assert.equal(exp.code, 0, exp.err);
  assert.match(exp.err, /--format is now --output-format/);
  const analyze = revloop(['analyze', '--store', db, '--bootstrap', '0', '--no-progress', '--budget', '3', '--json']);
  assert.equal(analyze.code, 0, analyze.err);
  assert.deepEqual(JSON.parse(analyze.out).budget_replay.caps, [0, 1, 2, 3]);
  assert.match(analyze.err, /--budget is now --max-cap/);
  assert.doesNotMatch(revloop(['run', '--help']).out, /--run-id|--format /);
  const bad = revloop(['analyze', '--store', db, '--budget', 'x']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--max-cap must be a whole number/, 'an alias is parsed as the new flag');
});

test('values are checked while the command line is read, before any work: nothing is created', () => {
  const fresh = join(dir, 'never.db');
  for (const args of [
    ['--limit', 'x'],
    ['--budget', '-1'],
    ['--variant', 'loud'],
    ['--input-format', 'tsv'],
    ['--concurrency', '0'],
  ]) {
    const r = revloop(['run', '--cases', cases, '--model', 'sim:instant', '--store', fresh, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, new RegExp(args[0]), args.join(' '));
  }
  assert.equal(revloop(['runs', '--store', fresh]).code, 2, 'no store was created');
});

test('--json keys are snake_case; the old camelCase keys are kept for one release', () => {
  const runs = JSON.parse(revloop(['runs', '--store', db, '--json']).out) as Array<Record<string, unknown>>;
  assert.equal(runs[0].run_id, 'old');
  assert.equal(runs[0].model_spec, 'sim:instant');
  assert.equal(runs[0].runId, 'old', 'the old key, for one release');
  const keys = Object.keys(runs[0]);
  assert.ok(keys.indexOf('run_id') < keys.indexOf('runId'), 'the old keys come after the new ones');
  const audit = JSON.parse(revloop(['audit', '--store', db, '--run', 'old', '--json']).out) as Record<string, unknown>;
  assert.equal(audit.run_id, 'old');
  const model = JSON.parse(revloop(['model', 'try', 'sim:instant', '--prompt', 'hi', '--json']).out) as {
    attempts: Array<Record<string, unknown>>;
  };
  assert.ok('latency_ms' in model.attempts[0] && 'started_at' in model.attempts[0], Object.keys(model.attempts[0]).join(', '));
  for (const args of [
    ['runs', '--store', db, '--json'],
    ['analyze', '--store', db, '--bootstrap', '0', '--no-progress', '--json'],
    ['model', 'info', 'sim:steady', '--json'],
  ]) {
    const text = revloop(args).out;
    // Every camelCase key has its snake_case twin (the legacy copy); none stands alone.
    const check = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(check);
      if (!v || typeof v !== 'object') return;
      for (const [k, x] of Object.entries(v)) {
        if (/^[a-z][a-z0-9]*[A-Z]/.test(k))
          assert.ok(k.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() in v, `${args[0]}: ${k} without a snake_case key`);
        check(x);
      }
    };
    check(JSON.parse(text));
  }
});
