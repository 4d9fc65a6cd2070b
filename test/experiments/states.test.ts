// State selection rules (docs/experiments.md): recurrence events (first / all, never the last
// revision), budget-end failures, the stable-hash round-robin over strata; flag parsing; and a
// system identification interrupted mid-discovery that resumes, freezes its spec once and audits;
// experiments from imported trajectories.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { runCrossoverExperiment, runHistoryExperiment, runPersistExperiment, runSysidExperiment } from '../../src/app/experiment.ts';
import { importRun } from '../../src/app/import.ts';
import { errorsFlag } from '../../src/cli/commands/experiment.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { getFamily } from '../../src/core/verify/registry.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import type { TrajectoryRunPlanned } from '../../src/store/events.ts';
import type { TrajectoryRecord } from '../../src/store/types.ts';
import { parseArms } from '../../src/studies/experiments/arms.ts';
import { frozenPrefix } from '../../src/studies/experiments/designs.ts';
import { roundRobin, selectStates, statesJsonl, statesSha256 } from '../../src/studies/experiments/states.ts';
import { experimentsStudy } from '../../src/studies/experiments/study.ts';
import { tempDir } from '../tmp.ts';

const planned = { plan_sha256: 'p' } as TrajectoryRunPlanned;

function trajectory(i: number, texts: string[], source: string, budget = 8): TrajectoryRecord {
  const c = { ...exactLengthDemoCases()[0], id: `c${i}`, source };
  return {
    runId: 'r',
    caseIndex: i,
    caseId: c.id,
    controller: 'm',
    simulated: false,
    family: 'exact-length',
    source,
    case: c,
    rounds: frozenPrefix(getFamily('exact-length'), c, texts, 'baseline'),
    status: 'complete',
    budget,
  };
}

test('recurrence events: first and all, at the repeat (origin = the earlier occurrence), never at the last revision', () => {
  const t = trajectory(0, ['a', 'b', 'a', 'c', 'b', 'd', 'e', 'f', 'c'], 's');
  const first = selectStates(planned, 'r', [t], { design: 'history' });
  assert.deepEqual(
    first.map((s) => [s.revision, s.origin_revision, s.state_id]),
    [[2, 0, 'm__c0__r2']],
  );
  const all = selectStates(planned, 'r', [t], { design: 'history', select: 'all' });
  assert.deepEqual(
    all.map((s) => [s.revision, s.origin_revision]),
    [
      [2, 0],
      [4, 1],
    ],
    'the repeat at the last revision (8) is not a state',
  );
  assert.equal(all[0].selection_rule, 'recurrence:all');
  assert.equal(statesSha256(all), statesSha256(JSON.parse(JSON.stringify(all))), 'the bytes depend only on the fields');
  assert.equal(statesJsonl(all).split('\n').length, 3);
  const persist = selectStates(planned, 'r', [t, trajectory(1, ['x', 'y'], 's')], { design: 'persist' });
  assert.deepEqual(
    persist.map((s) => [s.case_id, s.revision]),
    [['c0', 8]],
    'a trajectory that stopped before its budget is not a budget-end failure',
  );
  assert.match(persist[0].stratum, /^s\|>20$/);
});

test('--max-states: stable-hash order within strata, one stratum after another', () => {
  const items = [
    { stratum: 'b', selection_hash: '03', id: 'b3' },
    { stratum: 'a', selection_hash: '09', id: 'a9' },
    { stratum: 'a', selection_hash: '01', id: 'a1' },
    { stratum: 'b', selection_hash: '02', id: 'b2' },
    { stratum: 'a', selection_hash: '05', id: 'a5' },
  ];
  assert.deepEqual(
    roundRobin(items, 4).map((x) => x.id),
    ['a1', 'b2', 'a5', 'b3'],
  );
  assert.deepEqual(
    roundRobin(items, 10).map((x) => x.id),
    ['a1', 'b2', 'a5', 'b3', 'a9'],
  );
  const ts = Array.from({ length: 12 }, (_, i) => trajectory(i, ['a', 'b', 'a', ...'cdefgh'.split('')], ['x', 'y', 'z'][i % 3]));
  const sampled = selectStates(planned, 'r', ts, { design: 'history', maxStates: 6 });
  assert.equal(sampled.length, 6);
  assert.deepEqual(
    sampled.map((s) => s.source),
    ['x', 'y', 'z', 'x', 'y', 'z'],
  );
  assert.deepEqual(
    sampled.map((s) => s.selection_index),
    [0, 1, 2, 3, 4, 5],
  );
  assert.equal(sampled[0].selection_rule, 'recurrence:first;stable-hash-round-robin:6');
});

test('flags: --errors and --arms refuse what they cannot run', () => {
  assert.deepEqual(errorsFlag('-5, 5,10'), [-5, 5, 10]);
  assert.throws(() => errorsFlag('-5,0'), /--errors: '0' is not a nonzero whole number/);
  assert.throws(() => errorsFlag('2,2'), /--errors: 2 is listed twice/);
  assert.throws(() => errorsFlag('1.5'), /not a nonzero whole number/);
  assert.deepEqual(
    parseArms('full,last:2,ban').map((a) => a.kind),
    ['full', 'last', 'ban'],
  );
  assert.throws(() => parseArms('full,full'), /'full' is listed twice/);
  assert.throws(() => parseArms(''), /no arm given/);
});

test('sysid interrupted mid-discovery resumes, freezes its spec once after discovery, and audits clean', async () => {
  const dir = tempDir('revloop-exp-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, 'runs.db');
  const ac = new AbortController();
  const o = { store: db, model: 'sim:steady?latency_ms=5', runId: 's', cases, concurrency: 2 };
  const first = await runSysidExperiment({ ...o, signal: ac.signal }, { onProgress: (p) => p.done >= 5 && ac.abort() });
  assert.equal(first.result.stopped?.reason, 'interrupted');
  let store = await openStore(db, { readonly: true });
  assert.equal((await store.readEvents('s', { types: ['record'] })).length, 0, 'no spec before discovery is complete');
  await store.close();
  const second = await runSysidExperiment(o);
  assert.equal(second.result.stopped, null);
  assert.equal(second.summary.complete, second.summary.cases);
  store = await openStore(db, { readonly: true });
  assert.equal((await store.readEvents('s', { types: ['record'] })).length, 1);
  const report = await auditRun(store, 's', getFamily, { replay: (p) => experimentsStudy.replay!(p) });
  assert.deepEqual(report.discrepancies.map(formatDiscrepancy), []);
  await store.close();
});

test('imported trajectories: every design starts from them; a crossover refuses an import of several controllers', async () => {
  const dir = tempDir('revloop-exp-');
  const cases = exactLengthDemoCases().slice(0, 6);
  // Our own drafts: each trajectory repeats its first draft at revision 2 and never succeeds.
  const lines = cases.map((c, i) => ({
    id: c.id,
    controller: i < 3 ? 'model-a' : 'model-b',
    family: c.family,
    case_id: c.id,
    source: c.source,
    instruction: c.instruction,
    target: c.target,
    anchors: c.anchors,
    drafts: ['One short draft.', 'Another short draft here.', 'One short draft.', ...'defghi'.split('').map((x) => `Draft ${x} again.`)],
  }));
  const file = join(dir, 'imp.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const db = join(dir, 'runs.db');
  await importRun({ file, store: db, runId: 'imp', budget: 8 });
  const h = await runHistoryExperiment({ store: db, model: 'sim:stubborn', runId: 'h', fromRun: 'imp', arms: parseArms('full,reset') });
  assert.equal(h.summary.cases, 12);
  const p = await runPersistExperiment({ store: db, model: 'sim:steady', runId: 'p', fromRun: 'imp' });
  assert.equal(p.summary.cases, 6);
  await assert.rejects(
    runCrossoverExperiment({ store: db, model: 'sim:steady', runId: 'x', plannerRun: 'imp' }),
    /run 'imp' holds first drafts of 2 controllers \(model-a, model-b\); a crossover cell has one planner/,
  );
  const store = await openStore(db, { readonly: true });
  for (const id of ['h', 'p']) {
    const report = await auditRun(store, id, getFamily, { replay: (pl) => experimentsStudy.replay!(pl) });
    assert.deepEqual(report.discrepancies.map(formatDiscrepancy), [], id);
  }
  assert.deepEqual(
    (await store.listRuns()).map((r) => r.runId),
    ['imp', 'h', 'p'],
  );
  await store.close();
});
