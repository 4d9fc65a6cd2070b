// Issue 37 #6 and issue 40's small commands: every command checks what it is given before it does
// work or creates anything. An experiment with a misspelt store, a sysid over an empty case file,
// a demo given a foreign store create nothing; `report` refuses a wrong store or an output folder
// before it starts analysing; `--limit` beyond the case file is said and changes nothing;
// `revloop help NAME` names an unknown NAME; `cases validate -` speaks of standard input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { revloop } from './cli.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-checks-');
const cases = join(dir, 'cases.jsonl');
const db = join(dir, 'runs.db');

test('setup: a store with one run', async () => {
  await writeCaseSet(cases, exactLengthDemoCases());
  // Old spellings (--run-id, --out) where the new ones differ: these tests also run against the code before the fixes.
  const r = revloop(['run', '--cases', cases, '--model', 'sim:stubborn', '--store', db, '--run-id', 'src', '--limit', '4']);
  assert.equal(r.code, 0, r.err);
});

test('experiment history, crossover and persist with a misspelt store: exit 2, and no store is created', () => {
  const typo = join(dir, 'typo.db');
  for (const args of [
    ['experiment', 'history', '--from-run', 'src'],
    ['experiment', 'crossover', '--planner-run', 'src'],
    ['experiment', 'persist', '--from-run', 'src'],
  ]) {
    const r = revloop([...args, '--store', typo, '--model', 'sim:steady', '--run-id', 'x']);
    assert.equal(r.code, 2, `${args[1]}: ${r.err}`);
    assert.match(r.err, /typo\.db: no such store/, args[1]);
    assert.ok(!existsSync(typo), `${args[1]} created ${typo}`);
  }
  const wrongRun = revloop(['experiment', 'history', '--store', db, '--from-run', 'nope', '--model', 'sim:steady', '--run-id', 'x']);
  assert.equal(wrongRun.code, 2, wrongRun.err);
  const s = new Database(db, { readonly: true });
  const runs = (s.prepare('SELECT DISTINCT run_id FROM events').all() as Array<{ run_id: string }>).map((r) => r.run_id);
  s.close();
  assert.deepEqual(runs, ['src'], 'nothing planned under a misspelt source run');
});

test('experiment sysid with an empty case file: refused, and no store is created', () => {
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '');
  const store = join(dir, 'sysid.db');
  const r = revloop(['experiment', 'sysid', '--cases', empty, '--model', 'sim:steady', '--store', store, '--run-id', 's']);
  assert.equal(r.code, 2, r.err);
  assert.ok(!existsSync(store), 'the store was created');
});

test('demo with a foreign store: refused before it writes its case file', () => {
  const foreign = join(dir, 'foreign.db');
  const other = new Database(foreign);
  other.exec('CREATE TABLE items (sku TEXT)');
  other.close();
  const out = join(dir, 'dd');
  const r = revloop(['demo', '--store', foreign, '--out', out]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /foreign\.db: not a revloop store/);
  assert.ok(!existsSync(out) || readdirSync(out).length === 0, `the demo wrote into ${out}: ${existsSync(out) ? readdirSync(out) : ''}`);
});

test('report checks the store and the output before any work: no "analysing" for a wrong one', () => {
  const folder = join(dir, 'outdir');
  mkdirSync(folder);
  const asFolder = revloop(['report', '--store', db, '-o', folder]);
  assert.equal(asFolder.code, 2, asFolder.err);
  assert.match(asFolder.err, /outdir is a folder; give a file name such as .*outdir\/report\.html/);
  assert.doesNotMatch(asFolder.err, /analysing|EISDIR/);
  const foreign = join(dir, 'foreign.db');
  const wrongStore = revloop(['report', '--store', foreign, '-o', join(dir, 'r.html')]);
  assert.equal(wrongStore.code, 2, wrongStore.err);
  assert.doesNotMatch(wrongStore.err, /analysing/);
  const missingRun = revloop(['report', '--store', db, '--run', 'nope', '-o', join(dir, 'r.html')]);
  assert.equal(missingRun.code, 2);
  assert.doesNotMatch(missingRun.err, /analysing/);
  assert.ok(!existsSync(join(dir, 'r.html')));
});

test('--limit beyond the case file: all cases are run, said in a note, and the run is the one without a limit', () => {
  const store = join(dir, 'limit.db');
  const r = revloop(['run', '--cases', cases, '--model', 'sim:instant', '--store', store, '--limit', '500']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /note: .*cases\.jsonl has 10 cases, fewer than the limit of 500: all 10 are run, as without a limit/);
  assert.doesNotMatch(r.out, /__n500/);
  const without = revloop(['run', '--cases', cases, '--model', 'sim:instant', '--store', store]);
  assert.match(without.out, /resuming \(10 of 10 trajectories already complete\)/, 'the same run');
});

test('revloop help NAME: an unknown NAME is named, with the closest command; a known one gets its help', () => {
  const r = revloop(['help', 'nope']);
  assert.equal(r.code, 2);
  assert.match(r.err, /^revloop: help: unknown command 'nope'/m);
  assert.doesNotMatch(r.out, /Usage: revloop \[options\]/, 'not the whole help');
  assert.match(revloop(['help', 'rnu']).err, /did you mean run\?/);
  const known = revloop(['help', 'runs']);
  assert.equal(known.code, 0);
  assert.match(known.out, /^Usage: revloop runs/);
});
