// Issue 37 #1 and #7: what `analyze` and `report` compare. A run's protocol, history, harness and
// budget are part of what is compared: runs of one model under another history, another budget or
// only another run id, over the same cases, are shown as controllers of their own instead of the
// store being refused; runs of one controller over disjoint cases stay pooled. A revision cap past
// the runs' budget is refused (the curves would only repeat their last value).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { revloop } from '../cli/cli.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-controllers-');
const cases = join(dir, 'cases.jsonl');
const db = join(dir, 'runs.db');

test('setup: four runs of sim:steady over the same cases (the docs/running.md arm, a budget 4, another run id) and one over others', async () => {
  await writeCaseSet(cases, exactLengthDemoCases());
  const base = ['run', '--cases', cases, '--model', 'sim:steady', '--store', db, '--limit', '6'];
  for (const more of [
    ['--run-id', 'steady'],
    ['--history', 'last:1'],
    ['--budget', '4'],
    ['--run-id', 'again'],
  ]) {
    const r = revloop([...base, ...more]);
    assert.equal(r.code, 0, r.err);
  }
  // The same controller on the other four cases (a case set run in parts): pooled with nothing.
  const rest = join(dir, 'rest.jsonl');
  await writeCaseSet(rest, exactLengthDemoCases().slice(6));
  assert.equal(revloop(['run', '--cases', rest, '--model', 'sim:overshoot', '--store', db, '--run-id', 'part2']).code, 0);
});

test('analyze compares every run of the model as its own controller, named by what differs', () => {
  const r = revloop(['analyze', '--store', db, '--bootstrap', '50', '--no-progress', '--json']);
  assert.equal(r.code, 0, r.err);
  const controllers = (JSON.parse(r.out) as { controllers: Array<{ controller: string }> }).controllers.map((c) => c.controller).sort();
  assert.deepEqual(controllers, [
    'sim:overshoot [simulated]',
    'sim:steady · T=4 [simulated]',
    'sim:steady · T=8 · again [simulated]',
    'sim:steady · T=8 · steady [simulated]',
    'sim:steady · history=last:1 [simulated]',
  ]);
  const text = revloop(['analyze', '--store', db, '--bootstrap', '50', '--no-progress', '--wide']);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /│ sim:steady · history=last:1 \[SIMULATED\] +│/);
});

test('report includes them all as well', () => {
  const out = join(dir, 'report.html');
  const r = revloop(['report', '--store', db, '--bootstrap', '0', '--no-progress', '-o', out]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^wrote .*report\.html/m);
});

test('a revision cap beyond the runs’ budget is refused, naming both; within it the curves stop there', () => {
  for (const flag of ['--max-cap', '--budget']) {
    const r = revloop(['analyze', '--store', db, '--bootstrap', '0', '--no-progress', flag, '99']);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /a largest revision cap of 99 is beyond the budget of the runs analysed \(8\)/);
    assert.match(r.err, /ask for a cap of at most 8/);
  }
  const report = revloop(['report', '--store', db, '--bootstrap', '0', '--no-progress', '--max-cap', '9', '-o', join(dir, 'r9.html')]);
  assert.equal(report.code, 2, report.err);
  const ok = revloop(['analyze', '--store', db, '--bootstrap', '0', '--no-progress', '--json', '--max-cap', '3']);
  assert.equal(ok.code, 0, ok.err);
  assert.deepEqual((JSON.parse(ok.out) as { budget_replay: { caps: number[] } }).budget_replay.caps, [0, 1, 2, 3]);
});
