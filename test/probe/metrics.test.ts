// Item-level measures (docs/harness.md §0, §4.6, §4.7) from score records.
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { groupScores, itemMeasures, pRepeat } from '../../src/studies/probe/metrics.ts';
import type { CandidateName, Condition, ScoreRecord } from '../../src/studies/probe/probe-types.ts';

function rec(condition: Condition, candidate: CandidateName, logprob: number, extra: Partial<ScoreRecord> = {}): ScoreRecord {
  return { item_id: 'i', condition, candidate, logprob, n_tokens: 10, n_argmax_match: 0, is_greedy: false, ctx_tokens: 100, ...extra };
}

test('G, copy, sem, polarity, margins and per-token values from hand-made scores', () => {
  const m = itemMeasures(
    groupScores([
      rec('pre', 'failed', -30),
      rec('pre', 'gold', -20),
      rec('fail', 'failed', -12, { n_tokens: 8, is_greedy: true }),
      rec('fail', 'gold', -18),
      rec('neut', 'failed', -10),
      rec('succ', 'failed', -11),
      rec('abstract', 'failed', -25),
      rec('abstract', 'gold', -19),
      rec('neut_pad', 'failed', -9),
      rec('fail_echo', 'failed', -11.5),
      rec('fail_other', 'failed', -29),
    ]).get('i')!,
  );
  assert.equal(m.G, -18);
  assert.equal(m.copy, 20);
  assert.equal(m.sem, -2);
  assert.equal(m.copy_pad, 21);
  assert.equal(m.sem_pad, -3);
  assert.equal(m.polarity, -1);
  assert.equal(m.copy_succ, 19);
  assert.equal(m.G_abstract, -5);
  assert.equal(m.delta_abstract, -13);
  assert.equal(m.repair, 2);
  assert.equal(m.margin_shift, -6 - 10);
  assert.equal(m.G_per_token, -18 / 8);
  assert.equal(m.G_negative, 1);
  assert.equal(m.delta_fail_echo, 0.5);
  assert.equal(m.G_fail_other, -1);
  assert.equal(m.greedy_repeat_fail, 1);
  assert.equal(m.greedy_repeat_pre, 0);
  assert.equal(m.greedy_repeat_abstract, 0);
  assert.ok(Number.isNaN(m.delta_fail_k2), 'missing conditions give NaN, never 0');
});

test('-G = copy + sem item by item (to float64 rounding of the subtractions), for any scores', () => {
  fc.assert(
    fc.property(
      fc.double({ min: -200, max: -1e-6, noNaN: true }),
      fc.double({ min: -200, max: -1e-6, noNaN: true }),
      fc.double({ min: -200, max: -1e-6, noNaN: true }),
      (pre, fail, neut) => {
        const m = itemMeasures(
          groupScores([rec('pre', 'failed', pre), rec('fail', 'failed', fail), rec('neut', 'failed', neut)]).get('i')!,
        );
        return Math.abs(-m.G - (m.copy + m.sem)) <= 1e-12 * Math.max(1, Math.abs(pre), Math.abs(fail), Math.abs(neut));
      },
    ),
  );
});

test('p_rep: normalised over the candidates scored under the condition, stable for very negative log-probs', () => {
  const scores = groupScores([
    rec('pre', 'failed', -1000),
    rec('pre', 'gold', -1000 + Math.log(3)),
    rec('pre', 'distractor0', -1000),
    rec('pre', 'distractor1', -1000 + Math.log(5)),
  ]).get('i')!;
  assert.ok(Math.abs(pRepeat(scores.get('pre')) - 1 / 10) < 1e-12);
  const two = groupScores([rec('abstract', 'failed', -2), rec('abstract', 'gold', -2)]).get('i')!;
  assert.equal(pRepeat(two.get('abstract')), 0.5);
  assert.ok(Number.isNaN(pRepeat(undefined)));
  assert.ok(
    Number.isNaN(
      pRepeat(
        groupScores([rec('fail', 'gold', -1), rec('fail', 'distractor0', -2)])
          .get('i')!
          .get('fail'),
      ),
    ),
    'no failed score: NaN',
  );
  const m = itemMeasures(
    groupScores([rec('pre', 'failed', -3), rec('pre', 'gold', -3), rec('fail', 'failed', -1), rec('fail', 'gold', -1 - Math.log(3))]).get(
      'i',
    )!,
  );
  assert.ok(Math.abs(m.p_repeat_shift - (0.75 - 0.5)) < 1e-12);
});

test('the last record of a key wins (a resumed run can write a key twice)', () => {
  const m = itemMeasures(groupScores([rec('pre', 'failed', -5), rec('fail', 'failed', -5), rec('fail', 'failed', -7)]).get('i')!);
  assert.equal(m.G, 2);
});
