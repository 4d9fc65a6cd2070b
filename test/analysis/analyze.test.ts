// analyzeTrajectories end to end on a small hand-built panel whose every number is worked out by
// hand in the comments, plus bootstrap properties that hold exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrajectories } from '../../src/studies/revision/analysis/analyze-trajectories.ts';
import { assertStrictJson } from '../../src/studies/revision/analysis/json.ts';
import type { CellSummary } from '../../src/studies/revision/analysis/analysis-types.ts';
import { traj } from './build.ts';

const A = 'model-a';
const B = 'sim:model-b';
const panel = [
  // exact length (cases e1–e4)
  traj({ controller: A, caseId: 'e1', texts: '*' }),
  traj({ controller: A, caseId: 'e2', texts: 'AB*', source: 'dolly_closed_qa' }),
  traj({ controller: A, caseId: 'e3', texts: 'ABCCCCCCC', source: 'oasst1_train_root_text' }),
  traj({ controller: A, caseId: 'e4', texts: 'AB', status: 'incomplete', reason: 'provider error', source: 'writingprompts_validation' }),
  traj({ controller: B, caseId: 'e1', texts: 'A*', simulated: true }),
  traj({ controller: B, caseId: 'e2', texts: 'ABABABABA', simulated: true, source: 'dolly_closed_qa' }),
  traj({ controller: B, caseId: 'e3', texts: '*', simulated: true, source: 'oasst1_train_root_text' }),
  traj({
    controller: B,
    caseId: 'e4',
    texts: 'ABCDEFGHI',
    errors: [10, 2, 7, 9, 11, 13, 15, 17, 19],
    simulated: true,
    source: 'writingprompts_validation',
  }),
  // lexical: c05 l1, l2; c07 l3
  traj({ controller: A, family: 'c05', caseId: 'l1', texts: '*' }),
  traj({ controller: A, family: 'c05', caseId: 'l2', texts: 'AB' }),
  traj({ controller: A, family: 'c07', caseId: 'l3', texts: 'A*' }),
  traj({ controller: B, family: 'c05', caseId: 'l1', texts: 'AA', simulated: true }),
  traj({ controller: B, family: 'c05', caseId: 'l2', texts: '*', simulated: true }),
  traj({ controller: B, family: 'c07', caseId: 'l3', texts: 'AAA', simulated: true }),
  // compositional: c09 k1; c10 k2
  traj({ controller: A, family: 'c09', caseId: 'k1', texts: '*' }),
  traj({ controller: A, family: 'c10', caseId: 'k2', texts: 'A' }),
  traj({ controller: B, family: 'c09', caseId: 'k1', texts: 'AB', simulated: true }),
  traj({ controller: B, family: 'c10', caseId: 'k2', texts: 'A*', simulated: true }),
];
const result = analyzeTrajectories(panel, { bootstrap: 500, seed: 7 });
const cell = (controller: string, family: string): CellSummary => {
  const c = result.cells.find((x) => x.controller === controller && x.family === family);
  assert.ok(c, `cell ${controller}/${family}`);
  return c;
};
const third = 1 / 3;

test('cells: n excludes protocol-incomplete trajectories, which are counted separately', () => {
  const a = cell(A, 'exact-length');
  assert.equal(a.n, 3);
  assert.equal(a.incomplete, 1);
  assert.deepEqual(result.excluded, [
    { controller: A, family: 'exact-length', status: 'incomplete', count: 1, reasons: { 'provider error': 1 } },
  ]);
  assert.deepEqual(result.trajectories, { total: 18, complete: 17, incomplete: 1, pending: 0 });
  assert.equal(a.initial_success, third);
  assert.equal(a.final_success, 2 / 3);
  assert.equal(a.successes, 2);
  // captures: e1 at 0, e2 at 2, e3 never
  assert.deepEqual(a.cumulative_success, [third, third, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3]);
  assert.deepEqual(a.repeat_classes, { terminal_fixed_point: 1, terminal_cycle: 0, other_repeat: 0, no_repeat: 0 });
  assert.deepEqual(a.exact_categories, {
    anchor_failure: 0,
    recurrence: 1,
    sign_flips: 0,
    repeated_residual: 0,
    near_target: 0,
    net_contraction: 0,
    other_non_contraction: 0,
  });
  // hazards: e2 has 2 transitions (capture at r2), e3 has 4 (C repeats at r3 and r4)
  assert.deepEqual(a.hazards, {
    active_transitions: 6,
    capture_events: 1,
    recurrence_events: 2,
    early_capture_hazard: 1 / 6,
    early_recurrence_hazard: 2 / 6,
    capture_recurrence_ratio: 1.5 / 2.5,
  });

  const b = cell(B, 'exact-length');
  assert.equal(b.simulated, true);
  assert.deepEqual([b.n, b.successes, b.failures], [4, 2, 2]);
  assert.deepEqual(b.cumulative_success.slice(0, 3), [0.25, 0.5, 0.5]);
  assert.deepEqual(b.repeat_classes, { terminal_fixed_point: 0, terminal_cycle: 1, other_repeat: 0, no_repeat: 1 });
  assert.deepEqual(b.cycle_periods, { '2': 1, '3': 0, '4': 0 });
  assert.equal(b.exact_categories!.recurrence, 1);
  assert.equal(b.exact_categories!.near_target, 1);
});

test('aggregates pool their member structures; structured cells have no exact categories', () => {
  const lexA = cell(A, 'lexical');
  assert.equal(lexA.aggregate, true);
  assert.deepEqual(lexA.members, ['c05', 'c07']);
  assert.deepEqual([lexA.n, lexA.successes], [3, 2]);
  assert.deepEqual(lexA.cumulative_success.slice(0, 2), [third, 2 / 3]);
  assert.equal(lexA.exact_categories, undefined);
  const lexB = cell(B, 'lexical');
  assert.deepEqual(lexB.repeat_classes, { terminal_fixed_point: 1, terminal_cycle: 0, other_repeat: 1, no_repeat: 0 });
  const compB = cell(B, 'compositional');
  assert.deepEqual(compB.cumulative_success.slice(0, 2), [0, 0.5]);
  assert.deepEqual(
    result.cells.map((c) => `${c.controller}/${c.family}`),
    [A, B].flatMap((m) => ['exact-length', 'lexical', 'c05', 'c07', 'compositional', 'c09', 'c10'].map((f) => `${m}/${f}`)),
  );
});

test("paired endpoint and McNemar use the panel's common case set", () => {
  const a = cell(A, 'exact-length');
  // A's e4 is incomplete, so the common set is {e1, e2, e3}: A succeeds on e1, e2; B on e1, e3.
  assert.equal(a.endpoint.n_common, 3);
  assert.equal(a.endpoint.final.estimate, 2 / 3);
  assert.equal(cell(B, 'exact-length').endpoint.final.estimate, 2 / 3);
  const pair = result.pairwise.find((p) => p.family === 'exact-length')!;
  assert.deepEqual(
    {
      a: pair.controller_a,
      b: pair.controller_b,
      n: pair.n_common,
      aOnly: pair.a_only,
      bOnly: pair.b_only,
      p: pair.p_mcnemar,
      holm: pair.p_holm,
      delta: pair.delta,
    },
    { a: A, b: B, n: 3, aOnly: 1, bOnly: 1, p: 1, holm: 1, delta: 0 },
  );
  for (const c of result.cells) {
    const { estimate, ci95 } = c.endpoint.final;
    assert.ok(ci95.low! <= estimate! && estimate! <= ci95.high!, `${c.controller}/${c.family}: CI contains the estimate`);
  }
});

test('budget replay: rates on common sets and one reversal at cap 1', () => {
  const replay = result.budget_replay;
  const exactA = replay.cells.find((c) => c.controller === A && c.assay === 'exact-length')!;
  assert.deepEqual(exactA.cumulative_successes, [1, 1, 2, 2, 2, 2, 2, 2, 2]);
  assert.equal(exactA.evaluable, 3);
  // cap 0: exact 1/3 vs 1/3 (tie), lexical 1/3 vs 1/3 (tie), compositional 1/2 vs 0 → no reversal
  // cap 1: exact 1/3 < 2/3, lexical 2/3 > 1/3 → reversal; cap ≥ 2: exact ties again → none
  assert.deepEqual(
    replay.by_cap.map((c) => c.reversals[0].reversing_pairs),
    [0, 1, 0, 0, 0, 0, 0, 0, 0],
  );
  assert.equal(replay.by_cap[0].reversals[0].pairs, 1);
  // cap 0 cells: 1/3, 1/3, 1/2 (A) and 1/3, 1/3, 0 (B) → median (1/3 + 1/3)/2
  assert.equal(replay.by_cap[0].cell_min, 0);
  assert.equal(replay.by_cap[0].cell_median, third);
  assert.equal(replay.by_cap[0].cell_max, 0.5);
});

test('endpoint table: per-assay rates, mean ± sample SD, simulated controllers flagged', () => {
  const rowA = result.endpoint_table.rows.find((r) => r.controller === A)!;
  assert.deepEqual(rowA.final, { 'exact-length': 2 / 3, lexical: 2 / 3, compositional: 0.5 });
  const mean = (2 / 3 + 2 / 3 + 0.5) / 3;
  assert.ok(Math.abs(rowA.mean! - mean) < 1e-15);
  const sd = Math.sqrt(((2 / 3 - mean) ** 2 * 2 + (0.5 - mean) ** 2) / 2);
  assert.ok(Math.abs(rowA.sd! - sd) < 1e-15);
  assert.deepEqual(result.simulated_controllers, [B]);
  assert.match(result.notes.join('\n'), /SIMULATED controllers \(sim:model-b\)/);
  assert.equal(result.endpoint_table.panels.length, 1);
});

test('rescue: too few risk-set rows is "not estimable" with a reason, never NaN', () => {
  const fit = result.rescue.fits.find((f) => f.subset === 'combined' && f.landmark === 4)!;
  // Risk set at L = 4: A/e3, B/e2 and B/e4 (nine rounds, unresolved at revision 4).
  assert.equal(fit.rows, 3);
  assert.equal(fit.estimable, false);
  assert.equal(fit.odds_ratio, null);
  assert.ok(fit.null_reasons?.odds_ratio);
  assert.deepEqual(
    result.rescue.fits.map((f) => f.landmark),
    [4, 3, 5],
  );
  assertStrictJson(result);
});

test('the bootstrap is seeded: same seed, same intervals; B = 0 gives nulls with a reason', () => {
  const again = analyzeTrajectories(panel, { bootstrap: 500, seed: 7 });
  assert.deepEqual(again, result);
  const varied = Array.from({ length: 60 }, (_, i) => traj({ controller: A, family: 'c07', caseId: `v${i}`, texts: i % 3 ? '*' : 'A' }));
  const seven = analyzeTrajectories(varied, { bootstrap: 500, seed: 7 }).cells[0].endpoint;
  assert.deepEqual(analyzeTrajectories(varied, { bootstrap: 500, seed: 7 }).cells[0].endpoint, seven);
  assert.notDeepEqual(analyzeTrajectories(varied, { bootstrap: 500, seed: 8 }).cells[0].endpoint, seven);
  const none = analyzeTrajectories(panel, { bootstrap: 0 });
  const a = none.cells[0];
  assert.deepEqual(a.endpoint.final.ci95, { low: null, high: null });
  assert.match(a.endpoint.null_reasons!.ci95, /B = 0/);
  assertStrictJson(none);
});

test('stratified bootstrap: no variance when outcomes are constant within strata; binomial spread otherwise', () => {
  const strata = Array.from({ length: 200 }, (_, i) =>
    traj({ controller: A, family: 'c07', caseId: `s${i}`, source: i < 80 ? 'wiki' : 'guten', texts: i < 80 ? '*' : 'A' }),
  );
  const fixed = analyzeTrajectories(strata, { bootstrap: 300, seed: 1 }).cells[0].endpoint.final;
  assert.deepEqual(fixed, { estimate: 0.4, ci95: { low: 0.4, high: 0.4 } });
  const mixed = Array.from({ length: 400 }, (_, i) =>
    traj({ controller: A, family: 'c07', caseId: `m${i}`, source: 'wiki', texts: i % 2 ? '*' : 'A' }),
  );
  const ci = analyzeTrajectories(mixed, { bootstrap: 4000, seed: 3 }).cells[0].endpoint.final.ci95;
  const half = 1.96 * Math.sqrt(0.25 / 400); // ≈ 0.049
  assert.ok(Math.abs(0.5 - ci.low! - half) < 0.006 && Math.abs(ci.high! - 0.5 - half) < 0.006, `${ci.low}..${ci.high}`);
});

test('user mistakes are reported plainly', () => {
  const dup = [traj({ caseId: 'x', texts: '*' }), { ...traj({ caseId: 'x', texts: 'A*' }), runId: 'run-2' }];
  assert.throws(() => analyzeTrajectories(dup, { bootstrap: 0 }), /two complete trajectories for case x .*\(select runs with runIds\)/);
  assert.throws(() => analyzeTrajectories(panel, { budget: -1 }), /budget must be an integer ≥ 0/);
  const broken = traj({ texts: 'AB' });
  delete (broken.rounds[1].state as Record<string, unknown>).error;
  assert.throws(() => analyzeTrajectories([broken], { bootstrap: 0 }), /revision 1: exact-length state lacks error/);
});

test('panels: reversals, pairs and rescue subsets are per panel', () => {
  const res = analyzeTrajectories(panel, { bootstrap: 0, panels: { [A]: 'local', [B]: 'api' } });
  assert.deepEqual(
    res.controllers.map((c) => c.panel),
    ['api', 'local'],
  );
  assert.equal(res.pairwise.length, 0, 'no pairs within one-controller panels');
  assert.deepEqual(
    res.endpoint_table.panels.map((p) => p.panel),
    ['api', 'local', 'overall'],
  );
  assert.deepEqual(
    res.rescue.fits.filter((f) => f.landmark === 4).map((f) => f.subset),
    ['api', 'local', 'combined'],
  );
  // Each one-controller panel's common set is that controller's own complete cases.
  assert.equal(res.cells.find((c) => c.controller === B && c.family === 'exact-length')!.endpoint.n_common, 4);
});
