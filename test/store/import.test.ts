import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { convertCollieLog } from '../../src/studies/revision/collie-log.ts';
import { importRun } from '../../src/app/import.ts';
import { openStore } from '../../src/store/store.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import { requireShared, requirePunkt } from '../helpers.ts';
import { tempDir } from './toy-run.ts';

const punkt = requirePunkt();

const c07 = { family: 'c07', source: 'own', targets: ['lantern', 'harbor', 'Tuesday'] };
const exact = { family: 'exact-length', source: 'own', target: 4, anchors: ['lake'] };

const LINES = [
  // Solved at revision 1: the two drafts after it are dropped by the stop rule.
  {
    id: 'a',
    controller: 'm1',
    case_id: 'k1',
    ...c07,
    drafts: ['A lantern by the harbor.', ' On Tuesday a lantern lit the harbor. ', 'Extra one.', 'Extra two.'],
  },
  // Never solved in three drafts (budget 2 by default).
  { id: 'b', controller: 'm1', case_id: 'k2', ...exact, drafts: ['The lake.', 'The lake was.', 'The lake was very calm.'] },
  // Solved at once; a second controller on the same case.
  { id: 'c', controller: 'm2', case_id: 'k1', ...c07, drafts: ['On Tuesday the lantern lit the harbor.', 'ignored'] },
  // One unresolved draft.
  { id: 'd', controller: 'm2', case_id: 'k2', ...exact, drafts: ['The lake.'] },
];

function writeLines(dir: string, lines: unknown[], name = 'in.jsonl'): string {
  const p = join(dir, name);
  writeFileSync(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return p;
}

test('import verifies every draft, applies the stop rule and counts what it drops', { skip: punkt.skip }, async () => {
  const dir = tempDir();
  const file = writeLines(dir, LINES);
  const storePath = join(dir, 'runs.db');
  const s = await importRun({ file: file, store: storePath, runId: 'imp' });
  assert.equal(s.trajectories, 4);
  assert.equal(s.draftsSupplied, 10);
  assert.equal(s.droppedAfterSuccess, 3);
  assert.equal(s.truncatedTrajectories, 2);
  assert.equal(s.roundsStored, 7);
  assert.equal(s.successes, 2);
  assert.equal(s.incomplete, 0);
  assert.deepEqual(s.controllers, ['m1', 'm2']);

  const store = await openStore(storePath, { readonly: true });
  const ts = await store.loadTrajectories(['imp']);
  assert.deepEqual(
    ts.map((t) => [t.controller, t.caseId, t.rounds.length, t.status, t.budget]),
    [
      ['m1', 'k1', 2, 'complete', 3],
      ['m1', 'k2', 3, 'complete', 2],
      ['m2', 'k1', 1, 'complete', 1],
      ['m2', 'k2', 1, 'complete', 0],
    ],
  );
  assert.equal(ts[0].rounds[1].text, 'On Tuesday a lantern lit the harbor.', 'drafts are stripped');
  assert.equal(ts[1].rounds.at(-1)!.joint, false);
  const truncated = (await store.readEvents('imp')).filter((e) => e.type === 'import_truncated').map((e) => [e.caseIndex, e.payload]);
  assert.deepEqual(truncated, [
    [0, { dropped_after_success: 2, dropped_beyond_budget: 0 }],
    [2, { dropped_after_success: 1, dropped_beyond_budget: 0 }],
  ]);
  const [run] = await store.listRuns();
  assert.equal(run.kind, 'import');
  assert.equal(run.controller, '2 controllers');
  assert.deepEqual((await auditRun(store, 'imp', getFamily)).discrepancies.map(formatDiscrepancy), []);
  await store.close();
  await assert.rejects(importRun({ file: file, store: storePath, runId: 'imp' }), /run 'imp' already exists/);
});

test(
  'import with a common budget drops drafts beyond it and marks short unresolved trajectories incomplete',
  { skip: punkt.skip },
  async () => {
    const dir = tempDir();
    const file = writeLines(dir, LINES);
    const s = await importRun({ file: file, store: join(dir, 'runs.db'), runId: 'imp', budget: 1 });
    // a: success at revision 1 (within T = 1): 2 dropped after it. b: 3 drafts, 1 beyond the budget.
    // c: success at once: 1 dropped. d: one unresolved draft where T = 1 needs two → incomplete.
    assert.equal(s.droppedBeyondBudget, 1 + 2);
    assert.equal(s.droppedAfterSuccess, 0 + 1);
    assert.equal(s.incomplete, 1);
    const store = await openStore(join(dir, 'runs.db'), { readonly: true });
    const ts = await store.loadTrajectories(['imp']);
    assert.deepEqual(
      ts.map((t) => t.status),
      ['complete', 'complete', 'complete', 'incomplete'],
    );
    assert.match(ts[3].incompleteReason!, /^import: 1 draft supplied, unresolved, and the budget of 1 revisions needs 2$/);
    assert.ok((await auditRun(store, 'imp', getFamily)).passed);
  },
);

test('import errors name file, line and field, and nothing is written', async () => {
  const dir = tempDir();
  const file = writeLines(dir, [
    LINES[0],
    { ...LINES[1], drafts: [] },
    { ...LINES[2], family: 'c99' },
    { ...LINES[0], id: 'z' },
    { ...LINES[3], target: 'four' },
  ]);
  const storePath = join(dir, 'runs.db');
  await assert.rejects(importRun({ file: file, store: storePath }), (e: Error) => {
    assert.match(e.message, /^4 problems in .*in\.jsonl; nothing was imported:/);
    assert.match(e.message, /in\.jsonl:2: drafts: must be a non-empty list of strings/);
    assert.match(e.message, /in\.jsonl:3: family: unknown family 'c99'/);
    assert.match(e.message, /in\.jsonl:4: case_id: controller "m1" already has case "k1" \(line 1\)/);
    assert.match(e.message, /in\.jsonl:5: target: /);
    return true;
  });
  assert.equal(existsSync(storePath), false);
});

const log = requireShared('collie-logs', 'gpt-3.5-turbo-multi-round-generation-1trial.json');
const collie = requireShared('collie', 'collie_all.jsonl');
test(
  'COLLIE multi-round log: prompts mapped through collie_all (all 13 structures), stop rule applied',
  { skip: log.skip || collie.skip },
  async () => {
    const conv = await convertCollieLog(log.path!, collie.path!);
    assert.equal(conv.prompts, 1435);
    assert.deepEqual(conv.roundKeys, ['1st_round_text', '2nd_round_text', '3rd_round_text']);
    assert.equal(conv.unmatched, 0);
    assert.equal(conv.ambiguous, 0);
    const byFamily: Record<string, number> = {};
    for (const l of conv.lines) byFamily[l.family] = (byFamily[l.family] ?? 0) + 1;
    // All 13 structures have a family: every prompt of the log is imported.
    assert.deepEqual(byFamily, {
      c01: 7,
      c02: 98,
      c03: 7,
      c04: 40,
      c05: 279,
      c06a: 56,
      c07: 267,
      c08: 26,
      c09: 68,
      c10: 103,
      c11: 27,
      c12: 229,
      c14: 228,
    });
    const skipped = Object.values(conv.unsupported).reduce((a, b) => a + b, 0);
    assert.equal(conv.lines.length + skipped, 1435);
    assert.ok(conv.lines.every((l) => l.controller === 'gpt-3.5-turbo' && (l.drafts.length === 2 || l.drafts.length === 3)));

    // The stop-rule counts, recomputed independently from the converted drafts.
    let expectedDropped = 0;
    let expectedSuccess = 0;
    for (const l of conv.lines) {
      const c = { id: l.case_id, family: l.family, source: l.source, targets: l.targets, task: l.task, witness: l.witness };
      const k = l.drafts.findIndex((d) => getFamily(l.family).verify(d.trim(), c).joint_success);
      if (k >= 0) {
        expectedSuccess++;
        expectedDropped += l.drafts.length - 1 - k;
      }
    }
    const dir = tempDir();
    const storePath = join(dir, 'runs.db');
    const s = await importRun({ file: log.path!, store: storePath, from: 'collie-log', collie: collie.path! });
    assert.equal(s.trajectories, conv.lines.length);
    assert.equal(s.droppedAfterSuccess, expectedDropped);
    assert.equal(s.successes, expectedSuccess);
    assert.ok(s.droppedAfterSuccess > 0 && s.successes > 0 && s.successes < s.trajectories);
    const store = await openStore(storePath, { readonly: true });
    const [run] = await store.listRuns();
    assert.equal(run.runId, 'gpt-3.5-turbo-multi-round-generation-1trial');
    assert.equal(run.controller, 'gpt-3.5-turbo');
    assert.equal(run.complete, conv.lines.length);
    assert.ok((await auditRun(store, run.runId, getFamily)).passed);
    await store.close();
  },
);
