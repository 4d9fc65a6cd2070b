// Numeric guards (docs/harness.md §3.7): a non-finite or positive log-probability is never recorded; the
// run stops with a clear error, the session is marked failed, and nothing of that context is kept.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { guardScore, type CandidateScore, type ProbeScorer } from '../../src/studies/probe/backend.ts';
import { runProbe } from '../../src/studies/probe/runner.ts';
import { ProbeStore } from '../../src/studies/probe/probe-store.ts';
import { NumericGuardError } from '../../src/models/gguf/numeric-guard.ts';
import { modelCapabilities } from '../../src/models/capabilities.ts';
import { shortItems } from './fixtures.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-probe-guard-');
const s = (logprob: number): CandidateScore => ({ logprob, nTokens: 3, nArgmaxMatch: 0, isGreedy: false, ctxTokens: 10 });

test('guardScore rejects NaN, ±Infinity and positive values, accepts 0 and negatives', () => {
  for (const bad of [NaN, Infinity, -Infinity, 1e-9, 3]) assert.throws(() => guardScore(s(bad), 'here'), NumericGuardError, String(bad));
  assert.equal(guardScore(s(0), 'here').logprob, 0);
  assert.equal(guardScore(s(-12.5), 'here').logprob, -12.5);
  assert.throws(() => guardScore({ ...s(-1), nTokens: -1 }, 'here'), /invalid token count/);
});

test('a bad value from the backend stops the run before it is written', async () => {
  let calls = 0;
  const scorer: ProbeScorer = {
    model: {
      spec: 'fake:',
      label: 'fake',
      capabilities: modelCapabilities({ score: true }),
      generate: async () => ({ text: null, attempts: [] }),
    },
    // The third context returns NaN for its second candidate.
    scoreCandidates: async (_m, cands) => {
      calls++;
      return cands.map((_, i) => s(calls === 3 && i === 1 ? NaN : -1 - i));
    },
    countTokens: null,
    counters: () => null,
    verify: async () => {
      throw new Error('unused');
    },
    info: async () => ({}),
    contextWindow: null,
  };
  const store = await ProbeStore.open(join(dir, 'g.db'));
  const items = shortItems().slice(0, 1);
  await store.openRun('g', 'toolshed', { spec: 'fake:', label: 'fake', capabilities: { simulated: false } });
  await store.addItems('g', items, 'fixture');
  await assert.rejects(
    runProbe(scorer, store, items, { runId: 'g', conditions: ['pre', 'fail', 'succ'], itemsSource: 'fixture', itemsSha256: '-' }),
    /non-finite log-probability \(NaN\).*item mine-0001-s1-a, condition succ, candidate gold/,
  );
  assert.deepEqual(
    [...new Set((await store.scores('g')).map((r) => r.condition))].sort(),
    ['fail', 'pre'],
    'nothing of the failing context is stored',
  );
  assert.equal((await store.sessions('g'))[0].finished?.status, 'failed');
  await store.close();
});
