// The analyses on real revision trajectories: COLLIE's released gpt-3.5-turbo multi-round log,
// imported into a store by `revloop import-trajectories --from collie-log`. Runs once the importer
// supports that format (and the shared data is present); otherwise it is a visible skip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireShared } from '../helpers.ts';
import { tempDir } from '../tmp.ts';

const root = new URL('../..', import.meta.url).pathname;
const revloop = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin/revloop.mjs'), ...args], { cwd: root, encoding: 'utf8' });
const log = requireShared('collie-logs', 'gpt-3.5-turbo-multi-round-generation-1trial.json');
const importerReady = !log.skip && revloop('import-trajectories', '--help').stdout.includes('collie-log');
const skip = log.skip || (!importerReady && 'import-trajectories does not support --from collie-log yet');

test('analyses of the imported gpt-3.5 COLLIE log are internally consistent', { skip }, () => {
  const dir = tempDir('revloop-collie-');
  const db = join(dir, 'runs.db');
  const imported = revloop('import-trajectories', log.path!, '--input-format', 'collie-log', '--store', db);
  assert.equal(imported.status, 0, imported.stderr);
  const r = revloop('analyze', '--store', db, '--json', '--bootstrap', '200');
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  const prompts = (JSON.parse(readFileSync(log.path!, 'utf8')).prompts as unknown[]).length;
  // Prompts whose COLLIE structure has no family (c01, c14, …) are skipped and counted by the importer.
  const mapped = Number(/(\d+) mapped to runnable COLLIE cases/.exec(imported.stdout + imported.stderr)?.[1]);
  const skipped = [...(imported.stdout + imported.stderr).matchAll(/\bc\d+\w* (\d+)/g)].reduce((a, m) => a + Number(m[1]), 0);
  assert.ok(mapped > 0, 'the importer reports how many prompts it mapped');
  assert.equal(mapped + skipped, prompts, 'every prompt of the log is either imported or counted as skipped');
  assert.equal(doc.trajectories.total, mapped, 'one trajectory per mapped prompt');
  assert.ok(doc.simulated_controllers.length === 0, 'a real model, not a simulation');
  const base = doc.cells.filter((c: { aggregate: boolean }) => !c.aggregate);
  assert.equal(
    base.reduce((a: number, c: { n: number; incomplete: number; pending: number }) => a + c.n + c.incomplete + c.pending, 0),
    mapped,
  );
  for (const c of doc.cells) {
    const classes = Object.values(c.repeat_classes as Record<string, number>).reduce((a, b) => a + b, 0);
    assert.equal(classes, c.failures, `${c.family}: repeat classes partition the failures`);
    assert.equal(c.failures, c.n - c.successes);
    // At most three drafts: no cycle of period ≥ 2 fits (it needs four rounds), and at most two transitions each.
    assert.equal(c.repeat_classes.terminal_cycle, 0);
    assert.ok(c.hazards.active_transitions <= 2 * c.n);
    for (let k = 1; k < c.cumulative_success.length; k++) assert.ok(c.cumulative_success[k] >= c.cumulative_success[k - 1]);
    if (c.n) assert.equal(c.cumulative_success.at(-1), c.final_success);
  }
});
