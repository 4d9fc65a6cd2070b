// Issue 14 #9: a store that mixes case sets (sim runs on one set, an import of two unrelated
// trajectories, the COLLIE log on COLLIE's cases) gets one panel per case set, so no import blanks
// everyone else's paired cells; and an empty cell says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { analyzeTrajectories } from '../../src/studies/revision/index.ts';
import { traj } from './build.ts';
import { requirePunkt, requireShared } from '../helpers.ts';
import { revloop } from '../cli/cli.ts';
import { tempDir } from '../tmp.ts';

const sims = ['sim:a', 'sim:b', 'sim:c'].flatMap((controller, i) =>
  ['e1', 'e2', 'e3', 'e4'].map((caseId, j) => traj({ controller, caseId, simulated: true, texts: (i + j) % 2 ? 'ab*' : 'abc' })),
);
const imported = ['k1', 'k2'].map((caseId) => traj({ controller: 'mine', caseId, texts: 'a*' }));
const collieLike = ['x1', 'x2', 'x3'].map((caseId) => traj({ controller: 'gpt', family: 'c07', caseId, texts: 'ab*' }));

test('controllers with no case in common get separate panels (set1, set2, …), each with its own paired cells', () => {
  const r = analyzeTrajectories([...sims, ...imported, ...collieLike], { bootstrap: 0 });
  assert.deepEqual(Object.fromEntries(r.controllers.map((c) => [c.controller, c.panel])), {
    'sim:a': 'set1',
    'sim:b': 'set1',
    'sim:c': 'set1',
    gpt: 'set2',
    mine: 'set3',
  });
  for (const row of r.endpoint_table.rows.filter((x) => x.controller.startsWith('sim:')))
    assert.notEqual(row.final['exact-length'], null, `${row.controller} keeps its exact-length rate`);
  assert.equal(r.cells.find((c) => c.controller === 'sim:a' && c.family === 'exact-length')!.endpoint.n_common, 4);
  assert.equal(r.pairwise.filter((p) => p.family === 'exact-length').length, 3, 'the three sims are compared with each other');
  assert.ok(r.pairwise.every((p) => p.n_common > 0));
  assert.match(
    r.notes.join('\n'),
    /Panels by case set: .*set1 = sim:a \[SIMULATED\], sim:b \[SIMULATED\], sim:c \[SIMULATED\] \(4 cases; runs run-sim:a, run-sim:b, run-sim:c\); set2 = gpt \(3 cases/,
  );
  // An empty Table 1 cell says why.
  const gpt = r.endpoint_table.rows.find((x) => x.controller === 'gpt')!;
  assert.equal(gpt.null_reasons?.['final.exact-length'], 'no trajectories in this assay');
});

test('one case set keeps the single panel "all" (the paper setting is unchanged)', () => {
  const r = analyzeTrajectories(sims, { bootstrap: 0 });
  assert.deepEqual([...new Set(r.controllers.map((c) => c.panel))], ['all']);
  assert.ok(!r.notes.some((n) => n.startsWith('Panels by case set')));
});

test('explicit --panel keeps its grouping; a cell left without common cases says so', () => {
  const r = analyzeTrajectories([...sims, ...imported], { bootstrap: 0, panels: { 'sim:a': 'p', mine: 'p' } });
  const a = r.cells.find((c) => c.controller === 'sim:a' && c.family === 'exact-length')!;
  assert.equal(a.endpoint.n_common, 0);
  assert.equal(a.endpoint.null_reasons?.estimate, 'no cases in common with the rest of panel p');
  const row = r.endpoint_table.rows.find((x) => x.controller === 'mine')!;
  assert.equal(row.null_reasons?.['final.exact-length'], 'no cases in common with the rest of panel p');
  assert.match(r.notes.join('\n'), /Not compared \(no case complete for every controller of the panel\): exact-length in panel p/);
});

test('budget replay: a panel with one assay has no comparable pair (a reversal needs two assays)', () => {
  const r = analyzeTrajectories(sims, { bootstrap: 0 });
  assert.deepEqual(r.budget_replay.by_cap[0].reversals, [{ panel: 'all', reversing_pairs: 0, pairs: 3, comparable_pairs: 0 }]);
});

const log = requireShared('collie-logs', 'gpt-3.5-turbo-multi-round-generation-1trial.json');
const punkt = requirePunkt();
test('the issue scenario: demo + a two-trajectory import + the COLLIE log in one store', { skip: log.skip || punkt.skip }, () => {
  const dir = tempDir('revloop-mixed-');
  assert.equal(revloop(['demo', '--out-dir', dir]).code, 0);
  const db = join(dir, 'demo.db');
  const two = join(dir, 'two.jsonl');
  const line = (id: string, target: number, drafts: string[]) =>
    JSON.stringify({ id, controller: 'mine', family: 'exact-length', case_id: id, source: 'own', target, anchors: [], drafts });
  writeFileSync(two, [line('k1', 2, ['one', 'one two']), line('k2', 3, ['a b c'])].join('\n') + '\n');
  assert.equal(revloop(['import-trajectories', two, '--store', db]).code, 0);
  assert.equal(revloop(['import-trajectories', log.path!, '--input-format', 'collie-log', '--store', db]).code, 0);
  const r = revloop(['analyze', '--store', db, '--bootstrap', '200', '--no-progress', '--wide']);
  assert.equal(r.code, 0, r.err);
  const t1 = r.out.split('== Endpoints per controller')[0];
  for (const sim of ['sim:steady', 'sim:overshoot', 'sim:stubborn'])
    assert.match(t1, new RegExp(`│ ${sim} \\[SIMULATED\\] +│ set1 +│ \\d+\\.\\d +│ \\d+\\.\\d +│ \\d+\\.\\d +│`), `${sim} row has numbers`);
  assert.match(t1, /— no trajectories in this assay: gpt-3\.5-turbo \(exact-length\), mine \(lexical, compositional\)/);
  assert.doesNotMatch(
    r.out,
    /│ sim:\w+ \[SIMULATED\] +│ exact-length +│ 10 +│ 0 +│ [\d.]+ +│ [\d.]+ +│ 0 /,
    'no sim cell has paired n = 0',
  );
});
