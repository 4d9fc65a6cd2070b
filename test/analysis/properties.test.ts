// Invariants that must hold on any input, checked on a seeded simulated panel (three controllers,
// the paper's case allocation, a few protocol-incomplete trajectories).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTrajectories } from '../../src/studies/revision/analysis/analyze-trajectories.ts';
import { assertStrictJson } from '../../src/studies/revision/analysis/json.ts';
import { paperShapedControllers, syntheticTrajectories } from '../../src/studies/revision/synthetic.ts';

const trajectories = syntheticTrajectories({ controllers: paperShapedControllers().slice(0, 3), seed: 11, incompleteRate: 0.01 });
const result = analyzeTrajectories(trajectories, { bootstrap: 300, seed: 2 });
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

test('every cell partitions its failures and its trajectories', () => {
  assert.equal(result.cells.length, 3 * 8);
  for (const c of result.cells) {
    const where = `${c.controller}/${c.family}`;
    assert.equal(sum(c.repeat_classes), c.failures, where);
    assert.equal(sum(c.cycle_periods), c.repeat_classes.terminal_cycle, where);
    if (c.family === 'exact-length') assert.equal(sum(c.exact_categories!), c.failures, where);
    assert.equal(c.failures + c.successes, c.n, where);
    for (let k = 1; k < c.cumulative_success.length; k++) assert.ok(c.cumulative_success[k]! >= c.cumulative_success[k - 1]!, where);
    assert.equal(c.cumulative_success.at(-1), c.final_success, where);
    assert.ok(c.hazards.active_transitions <= 4 * c.n, where);
    const { estimate, ci95 } = c.endpoint.final;
    assert.ok(ci95.low! <= estimate! && estimate! <= ci95.high!, where);
  }
  const members = ['exact-length', 'c05', 'c07', 'c12', 'c09', 'c10'];
  const base = result.cells.filter((c) => members.includes(c.family));
  assert.equal(
    base.reduce((a, c) => a + c.n + c.incomplete + c.pending, 0),
    trajectories.length,
  );
  for (const agg of result.cells.filter((c) => c.aggregate)) {
    const parts = result.cells.filter((c) => c.controller === agg.controller && agg.members.includes(c.family) && !c.aggregate);
    assert.equal(
      agg.n,
      parts.reduce((a, c) => a + c.n, 0),
    );
    assert.equal(
      agg.failures,
      parts.reduce((a, c) => a + c.failures, 0),
    );
    assert.equal(
      agg.repeat_classes.other_repeat,
      parts.reduce((a, c) => a + c.repeat_classes.other_repeat, 0),
    );
  }
  assertStrictJson(result);
});

test('pairwise tests: one per controller pair and family, Holm never below the raw p', () => {
  assert.equal(result.pairwise.length, 3 * 8);
  for (const p of result.pairwise) {
    assert.ok(p.p_holm >= p.p_mcnemar && p.p_holm <= 1);
    assert.ok(p.ci95.low! <= p.delta + 1e-12 && p.delta - 1e-12 <= p.ci95.high!);
  }
  const replay = result.budget_replay;
  assert.equal(replay.cells.length, 3 * 3);
  assert.ok(replay.by_cap.every((c) => c.reversals[0].pairs === 3 && c.reversals[0].reversing_pairs <= 3));
});
