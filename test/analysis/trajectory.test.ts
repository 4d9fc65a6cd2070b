// Every failure label, cycle period and exact-length category on hand-built trajectories, with
// the expected label worked out by hand from PROTOCOL §3.2–3.3 and Appendix A.1/G.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trajectoryFacts } from '../../src/studies/revision/analysis/trajectory.ts';
import { landmarkRow } from '../../src/studies/revision/analysis/rescue.ts';
import { traj } from './build.ts';

const facts = (texts: string, extra: Parameters<typeof traj>[0] extends infer S ? Partial<S> : never = {}) =>
  trajectoryFacts(traj({ texts, family: 'c07', ...extra }));

test('repeat classes: fixed point, cycles p = 2, 3, 4, other repeat, no repeat', () => {
  const cases: Array<[string, string, number]> = [
    ['ABCCC', 'terminal_fixed_point', 0],
    ['AAA', 'terminal_fixed_point', 0], // exactly three rounds suffice
    ['AA', 'other_repeat', 0], // two equal rounds are not a fixed point (needs ≥ 3 rounds)
    ['ABAB', 'terminal_cycle', 2],
    ['CABAB', 'terminal_cycle', 2],
    ['ABCABC', 'terminal_cycle', 3],
    ['AABAAB', 'terminal_cycle', 3], // p = 2 fails ([B,A] ≠ [A,B]); block A,A,B has two distinct states
    ['ABCDABCD', 'terminal_cycle', 4],
    ['ABABABAB', 'terminal_cycle', 2], // p = 2 and p = 4 both hold: the first match wins
    ['ABAAB', 'other_repeat', 0], // last two [A,B] vs [B,A]: no cycle; not fixed
    ['ABAC', 'other_repeat', 0], // a repeat, but not terminal
    ['ABCD', 'no_repeat', 0],
    ['A', 'no_repeat', 0], // a budget-0 failure
    ['AAAB', 'other_repeat', 0], // an earlier fixed run does not make a terminal fixed point
  ];
  for (const [texts, cls, period] of cases) {
    const f = facts(texts);
    assert.equal(f.finalSuccess, false, texts);
    assert.equal(f.repeatClass, cls, `${texts} → ${cls}`);
    assert.equal(f.cyclePeriod, period, `${texts} period`);
  }
});

test('successes get no repeat class, and fixed points take priority over cycles', () => {
  const s = facts('AB*');
  assert.equal(s.finalSuccess, true);
  assert.equal(s.repeatClass, null);
  assert.equal(s.capture, 2);
  // A,A,A,A also satisfies "last p equal the p before" for p = 2, but a block needs two distinct states.
  assert.equal(facts('AAAA').repeatClass, 'terminal_fixed_point');
});

test('the seven exact-length categories in priority order', () => {
  const exact = (texts: string, errors: number[], missingAt: number[] = []) =>
    trajectoryFacts(traj({ texts, errors, missingAt })).exactCategory;
  // 1. Exact length at the end with an anchor missing outranks everything (here also a fixed point).
  assert.equal(exact('AAA', [0, 0, 0], [0, 1, 2]), 'anchor_failure');
  // 2. Any repeated text.
  assert.equal(exact('ABA', [5, 3, 5]), 'recurrence');
  // 3. Paper example: errors (3, 0, −2, 1) give two flips (zeros are skipped, not breaks).
  assert.equal(exact('ABCD', [3, 0, -2, 1], [1]), 'sign_flips');
  assert.equal(exact('ABCDE', [4, 0, -4, 0, 4], [1, 3]), 'sign_flips');
  // 4. Equal consecutive errors with different texts.
  assert.equal(exact('ABC', [5, 5, 3]), 'repeated_residual');
  // 5. Best |error| ≤ 2 somewhere (here at revision 1), not at the end.
  assert.equal(exact('ABC', [10, 2, 7]), 'near_target');
  assert.equal(exact('ABC', [10, -2, -7]), 'near_target'); // one sign flip is not enough
  // 6. Final |error| below the initial one.
  assert.equal(exact('ABC', [10, 6, 8]), 'net_contraction');
  // 7. Nothing of the above: |final| ≥ |initial| (equality included).
  assert.equal(exact('ABC', [5, 9, 12]), 'other_non_contraction');
  assert.equal(exact('ABC', [5, 9, 5]), 'other_non_contraction');
  // Structured families get no exact category; successes get none either.
  assert.equal(trajectoryFacts(traj({ texts: 'AB', family: 'c05' })).exactCategory, null);
  assert.equal(trajectoryFacts(traj({ texts: 'A*', errors: [5, 0] })).exactCategory, null);
});

test('early hazards count transitions into revisions 1–4 only', () => {
  const ok = facts('AB*');
  assert.deepEqual([ok.transitions, ok.captureEvents, ok.recurrenceEvents], [2, 1, 0]);
  const stuck = facts('AABACDDDD');
  // r1 A (seen), r2 B, r3 A (seen), r4 C; r5+ are outside the window.
  assert.deepEqual([stuck.transitions, stuck.captureEvents, stuck.recurrenceEvents], [4, 0, 2]);
  const oneShot = facts('*');
  assert.deepEqual([oneShot.transitions, oneShot.capture, oneShot.initialSuccess], [0, 0, true]);
});

test('landmark features: risk set, repeat fraction and the chain-breaking sign-flip count', () => {
  // Errors (4, 0, −4, 0, 4, 7): §3.3 counts two flips over the nonzero errors, §3.9 counts none
  // (a zero breaks the chain). Anchors are missing whenever the error is 0.
  const t = traj({ texts: 'ABCDEF', errors: [4, 0, -4, 0, 4, 7], missingAt: [1, 3], target: 80, lengthBand: '51-100' });
  const row = landmarkRow(t, 4)!;
  assert.equal(row.covariates.sign_flip_count, 0);
  assert.equal(trajectoryFacts(t).exactCategory, 'sign_flips');
  assert.deepEqual(row.covariates, {
    current_error: 4,
    current_abs_error: 4,
    log_current_abs_error: Math.log1p(4),
    target: 80,
    current_missing_count: 0,
    min_abs_error: 0,
    initial_to_current_abs_improvement: 0,
    contraction_count: 2,
    sign_flip_count: 0,
    length_noop_count: 0,
    largest_abs_action: 4,
    escape_by_landmark: 0,
  });
  assert.equal(row.late_rescue, 0);
  assert.equal(row.repeat_fraction, 0);
  assert.equal(row.source_family, 'dolly');
  assert.equal(row.length_band, '51-100');

  // Revisions 1…4 = A, B, A, A after A: three of four already seen; rescued at revision 6.
  const rescued = landmarkRow(traj({ texts: 'AABAAC*', errors: [30, 30, 2, 30, 30, 60, 0] }), 4)!;
  assert.equal(rescued.repeat_fraction, 0.75);
  assert.equal(rescued.late_rescue, 1);
  assert.equal(rescued.covariates.length_noop_count, 2); // 30→30 twice (A→A, A→A)
  assert.equal(rescued.covariates.sign_flip_count, 0);
  assert.equal(rescued.covariates.escape_by_landmark, 0);
  assert.equal(rescued.covariates.largest_abs_action, 28);
  // Escape: 0 < |e| ≤ 20 followed by |e′| > 50, within r0…r4.
  assert.equal(landmarkRow(traj({ texts: 'ABCDEF', errors: [10, 60, 5, 4, 3, 2] }), 4)!.covariates.escape_by_landmark, 1);
  // Outside the risk set: fewer than L+2 rounds, or resolved by L.
  assert.equal(landmarkRow(traj({ texts: 'ABCDE' }), 4), null);
  assert.equal(landmarkRow(traj({ texts: 'ABC*' }), 4), null);
  assert.equal(landmarkRow(traj({ texts: 'ABCDE*' }), 4)!.late_rescue, 1);
});
