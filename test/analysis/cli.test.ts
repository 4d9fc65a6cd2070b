// `revloop analyze` end to end: a real store written by the engine (toy family, fake model), then the
// CLI as a user runs it, in JSON and table form, and its errors for people.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir, toyRun } from '../store/toy-run.ts';
import { toyCases } from '../loop/fakes.ts';

const root = new URL('../..', import.meta.url).pathname;
const revloop = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin/revloop.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, REVLOOP_DEBUG: '' },
  });

const dir = tempDir('revloop-analyze-');
const db = join(dir, 'runs.db');
const ready = toyRun(db, { runId: 'toy-a', cases: toyCases(24) });

test('--json prints one strict document with a cell per controller × family', async () => {
  await ready;
  const r = revloop('analyze', '--store', db, '--json', '--bootstrap', '200', '--seed', '5');
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.schema, 'revloop.analysis/1');
  assert.equal(doc.options.bootstrap, 200);
  assert.equal(doc.trajectories.total, 24);
  assert.equal(doc.cells.length, 1);
  const [cell] = doc.cells;
  assert.equal(cell.family, 'toy');
  assert.equal(cell.n + cell.incomplete + cell.pending, 24);
  assert.equal(cell.cumulative_success.length, doc.options.budget + 1);
  assert.equal(cell.cumulative_success.at(-1), cell.final_success);
  for (const key of ['terminal_fixed_point', 'terminal_cycle', 'other_repeat', 'no_repeat'])
    assert.equal(typeof cell.repeat_classes[key], 'number');
  assert.equal(
    Object.values(cell.repeat_classes as Record<string, number>).reduce((a, b) => a + b, 0),
    cell.failures,
  );
  assert.ok(!/NaN|Infinity/.test(r.stdout));
  // The §3.8 / §3.9 sections are always present; with one controller they say why they are empty.
  assert.equal(doc.options.permutations, 100000);
  assert.equal(doc.hazard_association.rows.length, 3);
  assert.match(doc.hazard_association.rows[0].null_reasons.rho, /needs at least 3 controllers/);
  assert.equal(doc.capture_prediction.panels[0].estimable, false, 'a toy family has no exact-length risk set');
  assert.match(doc.capture_prediction.panels[0].null_reasons.estimable, /0 risk-set rows/);
  assert.equal(doc.three_domain_landmark.fits[0].subset, 'combined');
  // Same seed, same document.
  assert.equal(revloop('analyze', '--store', db, '--json', '--bootstrap', '200', '--seed', '5', '--run', 'toy-a').stdout, r.stdout);
});

test('tables by default, with headings', async () => {
  await ready;
  const r = revloop('analyze', 'toy-a', '--store', db, '--bootstrap', '0');
  assert.equal(r.status, 0, r.stderr);
  for (const heading of [
    'Endpoints per controller × family',
    'Cumulative joint success',
    'Output recurrence among failures',
    'Conditional rescue',
    "Early hazards and final success across controllers: Spearman's ρ",
    'All-domain landmark',
  ]) {
    assert.ok(r.stdout.includes(heading), heading);
  }
});

test('user errors: a clear message, no stack trace, non-zero exit', async () => {
  await ready;
  const missing = revloop('analyze', '--json');
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /--store <location> is required/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /);
  const bad = revloop('analyze', '--store', db, '--bootstrap', 'lots');
  assert.match(bad.stderr, /--bootstrap must be a whole number ≥ 0 \(got "lots"\)/);
  const unknown = revloop('analyze', '--store', db, '--run', 'nope');
  assert.notEqual(unknown.status, 0);
  assert.match(unknown.stderr, /nope/);
  const nostore = revloop('analyze', '--store', join(dir, 'absent.db'));
  assert.match(nostore.stderr, /no such store/);
  const panel = revloop('analyze', '--store', db, '--panel', 'oops');
  assert.match(panel.stderr, /--panel expects controller=panel/);
  const family = revloop('analyze', '--store', db, '--model-family', 'llama');
  assert.notEqual(family.status, 0);
  assert.match(family.stderr, /--model-family expects controller=family \(got "llama"\)/);
});
