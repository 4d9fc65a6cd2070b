// Numeric guards for teacher-forced scores (docs/harness.md §3.7).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkLogprob,
  probabilityToLogprob,
  checkDistribution,
  NumericGuardError,
  LOGPROB_UNDERFLOW_FLOOR,
} from '../../../src/models/gguf/numeric-guard.ts';

test('checkLogprob accepts finite values <= 0', () => {
  assert.equal(checkLogprob(0, 'x'), 0);
  assert.equal(checkLogprob(-12.5, 'x'), -12.5);
});

test('checkLogprob rejects NaN, infinities and positive values with a message naming the position', () => {
  assert.throws(
    () => checkLogprob(NaN, 'token 3'),
    (e: Error) => e instanceof NumericGuardError && /NaN/.test(e.message) && /token 3/.test(e.message),
  );
  assert.throws(() => checkLogprob(-Infinity, 'p'), NumericGuardError);
  assert.throws(() => checkLogprob(Infinity, 'p'), NumericGuardError);
  assert.throws(() => checkLogprob(1e-9, 'p'), /positive log-probability/);
});

test('probabilityToLogprob: log of a normal probability, clamp on float32 underflow, reject invalid values', () => {
  assert.deepEqual(probabilityToLogprob(1, 'p'), { logprob: 0, clamped: false });
  assert.ok(Math.abs(probabilityToLogprob(0.25, 'p').logprob - Math.log(0.25)) < 1e-15);
  const under = probabilityToLogprob(0, 'p');
  assert.equal(under.clamped, true);
  assert.equal(under.logprob, LOGPROB_UNDERFLOW_FLOOR);
  assert.ok(Number.isFinite(LOGPROB_UNDERFLOW_FLOOR) && LOGPROB_UNDERFLOW_FLOOR < -103);
  assert.throws(() => probabilityToLogprob(NaN, 'p'), NumericGuardError);
  assert.throws(() => probabilityToLogprob(undefined, 'p'), /no probability/);
  assert.throws(() => probabilityToLogprob(-0.1, 'p'), /negative probability/);
  assert.throws(() => probabilityToLogprob(1.5, 'p'), /positive log-probability/);
  assert.throws(() => probabilityToLogprob(Infinity, 'p'), NumericGuardError);
});

test('checkDistribution trips on non-finite or out-of-range leading probabilities and on empty maps', () => {
  checkDistribution(
    new Map([
      [1, 0.7],
      [2, 0.3],
    ]),
    'p',
  );
  assert.throws(() => checkDistribution(new Map([[1, NaN]]), 'p'), /non-finite logits/);
  assert.throws(() => checkDistribution(new Map([[1, 2]]), 'p'), NumericGuardError);
  assert.throws(() => checkDistribution(new Map(), 'p'), /empty/);
});
