// The experiments' analyses on runs whose outcomes are counted here independently: the §3.10
// per-arm flags on a hand-built trajectory, the crossover's cells, McNemar counts, Holm and
// integrity on simulated runs, the persistence curve; and the guards around frozen inputs (a
// tampered frozen round fails the audit; a tampered prediction spec stops a resumed sysid run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { runCrossoverExperiment, runSysidExperiment } from '../../src/app/experiment.ts';
import { runCases } from '../../src/app/run.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { mcnemarExact } from '../../src/core/stats/binomial.ts';
import { holmAdjust } from '../../src/core/stats/holm.ts';
import { getFamily } from '../../src/core/verify/registry.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { openStore } from '../../src/store/store.ts';
import type { TrajectoryRecord } from '../../src/store/types.ts';
import { historyOutcome } from '../../src/studies/experiments/analysis/history.ts';
import { frozenPrefix } from '../../src/studies/experiments/designs.ts';
import { experimentsStudy } from '../../src/studies/experiments/study.ts';
import { tempDir } from '../tmp.ts';

test('history outcomes: escape, direction, contraction, later recurrence and finals as §3.10 defines them', () => {
  const c = { ...exactLengthDemoCases()[0], target: 6 };
  const words = (n: number, w = 'word') => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
  // r0 3 words, r1 9, r2 3 (= r0: the trigger, error −3), r3 5 (new, right way, contracts), r4 9 (= r1), r5 5 (= r3).
  const texts = [words(3), words(9), words(3), words(5), words(9), words(5)];
  const rounds = frozenPrefix(getFamily('exact-length'), c, texts, 'baseline');
  const t = { family: 'exact-length', source: 's', rounds, status: 'complete' } as unknown as TrajectoryRecord;
  const o = historyOutcome(t, 'state', 'full', 2);
  assert.equal(o.first_step_escape, true, 'r3 is a new text');
  assert.equal(o.first_step_direction_correct, true, 'asked to add 3, added 2');
  assert.equal(o.first_step_contraction, true, '|−1| < |−3|');
  assert.equal(o.later_recurrence, true, 'r4 repeats r1');
  assert.equal(o.post_trigger_generations, 3);
  assert.equal(o.final_joint, false);
  assert.equal(o.final_error, -1);
  assert.equal(o.final_anchor_retention, false, 'the anchors are missing');
  assert.equal(o.success_revision, null);
  // A first step that overshoots the other way: direction right (added), no contraction (|+3| = |−3|).
  const t2 = {
    ...t,
    rounds: frozenPrefix(getFamily('exact-length'), c, [words(3), words(9), words(3), words(9)], 'baseline'),
  } as TrajectoryRecord;
  const o2 = historyOutcome(t2, 'state', 'reset', 2);
  assert.deepEqual(
    [o2.first_step_escape, o2.first_step_direction_correct, o2.first_step_contraction, o2.later_recurrence],
    [false, true, false, null],
  );
});

test('crossover: cells, McNemar counts, Holm and integrity equal an independent count; a tampered frozen round fails the audit', async () => {
  const dir = tempDir('revloop-exp-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, 'runs.db');
  await runCases({ cases, model: 'sim:stubborn', store: db, runId: 'A' });
  await runCases({ cases, model: 'sim:overshoot', store: db, runId: 'B' });
  await runCrossoverExperiment({ store: db, model: 'sim:overshoot', runId: 'AB', plannerRun: 'A' });
  await runCrossoverExperiment({ store: db, model: 'sim:stubborn', runId: 'BA', plannerRun: 'B' });
  const store = await openStore(db);
  try {
    const final = async (id: string) => new Map((await store.loadTrajectories([id])).map((t) => [t.caseId, !!t.rounds.at(-1)!.joint]));
    const [a, b, ab, ba] = await Promise.all(['A', 'B', 'AB', 'BA'].map(final));
    const count = (x: Map<string, boolean>, y: Map<string, boolean>) => {
      let first = 0;
      let second = 0;
      for (const [id, v] of x) {
        if (v && !y.get(id)) first++;
        if (!v && y.get(id)) second++;
      }
      return [first, second];
    };
    const { result } = await experimentsStudy.analyze(store, ['AB', 'BA'], { bootstrap: 0, seed: 1 });
    assert.equal(result.crossover.pairs.length, 1);
    const pair = result.crossover.pairs[0];
    assert.equal(pair.cells.length, 4);
    assert.deepEqual(pair.integrity.round0_mismatches, 0);
    assert.equal(pair.integrity.identical_case_sets, true);
    const stubborn = 'sim:stubborn [simulated]';
    const overshoot = 'sim:overshoot [simulated]';
    const ctl = pair.tests.filter((t) => t.kind === 'controller_effect');
    const byFixed = new Map(ctl.map((t) => [t.fixed, t]));
    assert.deepEqual([byFixed.get(stubborn)!.b, byFixed.get(stubborn)!.c], count(a, ab));
    assert.deepEqual([byFixed.get(overshoot)!.b, byFixed.get(overshoot)!.c], count(b, ba));
    const raw = ctl.map((t) => mcnemarExact(t.b, t.c));
    assert.deepEqual(
      ctl.map((t) => t.p_mcnemar),
      raw,
    );
    assert.deepEqual(
      ctl.map((t) => t.p_holm),
      holmAdjust(raw),
    );
    const controls = pair.tests.filter((t) => t.kind === 'planner_control');
    assert.equal(controls.length, 2);
    assert.ok(
      controls.every((t) => t.p_holm === null),
      'planner controls are not adjusted',
    );
    const cell = pair.cells.find((c) => c.planner === stubborn && c.controller === overshoot)!;
    assert.equal(cell.final_joint.k, [...ab.values()].filter(Boolean).length);

    assert.deepEqual((await auditRun(store, 'AB', getFamily, { replay: (p) => experimentsStudy.replay!(p) })).discrepancies, []);
  } finally {
    await store.close();
  }
  // Tamper with a frozen round's text: the audit names the frozen prefix.
  const raw = new Database(db);
  raw.exec('DROP TRIGGER events_append_only_update');
  const row = raw
    .prepare("SELECT id, payload FROM events WHERE run_id = 'AB' AND type = 'draft_accepted' AND revision = 0 LIMIT 1")
    .get() as {
    id: number;
    payload: string;
  };
  const p = JSON.parse(row.payload);
  p.text += ' Tampered.';
  raw.prepare('UPDATE events SET payload = ? WHERE id = ?').run(JSON.stringify(p), row.id);
  raw.close();
  const s2 = await openStore(db, { readonly: true });
  const report = await auditRun(s2, 'AB', getFamily, { replay: (pl) => experimentsStudy.replay!(pl) });
  await s2.close();
  const lines = report.discrepancies.map(formatDiscrepancy);
  assert.ok(
    lines.some((l) => /frozen: the frozen rounds' texts differ from the ones the plan hashed/.test(l)),
    lines.join('\n'),
  );
});

test('sysid: the prediction spec is frozen after discovery, and a resumed run whose spec no longer matches is refused', async () => {
  const dir = tempDir('revloop-exp-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, 'runs.db');
  const o = { store: db, model: 'sim:steady', runId: 's', cases, errors: [-10, -2, 2, 10] };
  const first = await runSysidExperiment(o);
  assert.equal(first.summary.complete, first.summary.cases);
  const store = await openStore(db, { readonly: true });
  const [spec] = await store.readEvents('s', { types: ['record'] });
  assert.ok(spec.type === 'record' && spec.payload.kind === 'prediction-spec');
  const events = await store.readEvents('s');
  const specSeq = spec.seq;
  // Every confirmation generation comes after the freeze.
  const planned = (await store.getPlanned('s'))!;
  const experiment = (planned.plan as unknown as { experiment: { trajectories: Array<{ facts: { split: string } }> } }).experiment;
  for (const e of events)
    if (e.type === 'attempt_started' && experiment.trajectories[e.caseIndex!].facts.split === 'confirmation')
      assert.ok(e.seq > specSeq, 'confirmation generated after the spec was frozen');
  const { result } = await experimentsStudy.analyze(store, ['s'], { bootstrap: 100, seed: 1 });
  await store.close();
  const pred = result.sysid[0].prediction!;
  assert.ok(pred.rows > 0);
  assert.equal(pred.spec_sha256, (spec.payload.data as { sha256: string }).sha256);
  assert.equal(
    pred.predictors.find((x) => x.name === 'checkpoint')!.mae,
    pred.predictors.find((x) => x.name === 'pooled')!.mae,
    'one model: pooled = checkpoint',
  );

  const again = await runSysidExperiment(o);
  assert.equal(again.result.resumed, true);
  const raw = new Database(db);
  raw.exec('DROP TRIGGER events_append_only_update');
  const data = JSON.parse((raw.prepare('SELECT payload FROM events WHERE id = ?').get(spec.id) as { payload: string }).payload);
  data.data.spec.checkpoint[0] += 1;
  raw.prepare('UPDATE events SET payload = ? WHERE id = ?').run(JSON.stringify(data), spec.id);
  raw.close();
  await assert.rejects(runSysidExperiment(o), /the frozen prediction spec \(SHA-256 [0-9a-f]{12}…\) no longer matches its discovery rows/);
});
