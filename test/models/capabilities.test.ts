// Typed capabilities: the guards read the declared flags (never the shape of an object), each
// backend implements what it declares, and the require… helpers refuse with structured errors.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createModel } from '../../src/models/index.ts';
import {
  canBan,
  canDecodeTokens,
  canScore,
  canStopOnTokens,
  canTokenize,
  hasBackendInfo,
  hasScoringCounters,
  modelCapabilities,
  recordedCapabilities,
  requireBan,
  requireScore,
  requireTokenize,
  type ScoringModel,
} from '../../src/models/capabilities.ts';
import type { ChatMessage, Model, ScoreResult } from '../../src/models/types.ts';
import { startSimServer, type SimServer } from '../../src/models/sim/server.ts';
import { toyTokenize } from '../../src/models/sim/toy-lm.ts';
import { CapabilityError, RevloopError } from '../../src/core/errors.ts';

let sim: SimServer;
before(async () => {
  sim = await startSimServer({ port: 0 });
});
after(async () => {
  await sim.close();
});

const ctx: ChatMessage[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Goal: read the notes.' },
];

test('guards read the declared flags, not method shapes', () => {
  const shaped = {
    spec: 'fake:',
    label: 'fake',
    capabilities: modelCapabilities(),
    generate: async () => ({ text: null, attempts: [] }),
    score: async () => ({ logprob: -1, tokenLogprobs: [-1], tokens: 1, argmaxMatches: 0, isGreedy: false, contextTokens: 1 }),
    scoreMany: async () => [],
    tokenize: async () => [1],
    countTokens: async () => 1,
    backendInfo: async () => ({}),
    stats: () => ({ forwardTokens: 0, forwardCalls: 0, naiveTokens: 0, nScored: 0 }),
  } satisfies Model & Record<string, unknown>;
  for (const guard of [canScore, canBan, canTokenize, canDecodeTokens, canStopOnTokens, hasScoringCounters, hasBackendInfo]) {
    assert.equal(guard(shaped), false, guard.name);
  }
  const declared: Model = { ...shaped, capabilities: modelCapabilities({ score: true, tokenize: true }) };
  assert.equal(canScore(declared), true);
  assert.equal(canTokenize(declared), true);
  assert.equal(canBan(declared), false);
  // decode promises the tokenizer too: a flag alone is not enough.
  assert.equal(canDecodeTokens({ ...shaped, capabilities: modelCapabilities({ decode: true }) }), false);
  assert.deepEqual(modelCapabilities({ ban: true }), {
    score: false,
    ban: true,
    banAnswers: false,
    tokenize: false,
    decode: false,
    stopTokens: false,
    counters: false,
    info: false,
    sizeContext: false,
    simulated: false,
  });
  assert.deepEqual(recordedCapabilities(modelCapabilities({ score: true, tokenize: true, info: true })), {
    score: true,
    ban: false,
    simulated: false,
  });
});

test('plain OpenAI-compatible: no scoring, bans or tokenizer; refusals carry code, capability and model', async () => {
  const plain = await createModel(`openai-compatible:${sim.url}#sim:steady`);
  for (const [fn, capability] of [
    [() => requireScore(plain, 'the probe'), 'score'],
    [() => requireBan(plain), 'ban'],
    [() => requireTokenize(plain, 'the context-window check'), 'tokenize'],
  ] as const) {
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof CapabilityError && RevloopError.isInstance(e));
      assert.equal(e.code, 'E_CAPABILITY');
      assert.equal(e.capability, capability);
      assert.equal(e.model, plain.label);
      return true;
    });
  }
  assert.match(
    String(
      (() => {
        try {
          requireTokenize(plain, 'the context-window check');
        } catch (e) {
          return (e as Error).message;
        }
      })(),
    ),
    /does not expose its tokenizer, which the context-window check needs/,
  );
  assert.equal(hasBackendInfo(plain), true);
  assert.equal(canStopOnTokens(plain), false);
  if (!hasBackendInfo(plain)) throw new Error('unreachable');
  assert.deepEqual(await plain.backendInfo(), {
    backend: 'openai-compatible (HTTP chat completions)',
    baseUrl: `${sim.url}`,
    model: 'sim:steady',
  });
  // Extra stop tokens are a vLLM extension: a plain server never receives them.
  const r = await plain.generate(ctx, { maxTokens: 8, stopTokenIds: [7] });
  assert.equal(r.attempts[0].request!.stop_token_ids, undefined);
});

async function checkScoring(m: ScoringModel, label: string): Promise<void> {
  const conts = ["read_file(path='notes.md')", 'x', ''];
  const many = await m.scoreMany(ctx, conts);
  // Only the score fields: an HTTP score also carries its provider attempts (timings differ).
  const fields = ({ logprob, tokenLogprobs, tokens, argmaxMatches, isGreedy, contextTokens }: ScoreResult) => ({
    logprob,
    tokenLogprobs,
    tokens,
    argmaxMatches,
    isGreedy,
    contextTokens,
  });
  for (const [i, c] of conts.entries()) {
    assert.deepEqual(fields(many[i]), fields(await m.score(ctx, c)), `${label}: scoreMany = score, ${JSON.stringify(c)}`);
  }
  const sample = conts.map((continuation) => ({ context: ctx, continuation }));
  const ok = await m.verifyScoring(sample);
  assert.equal(ok.ok, true, label);
  assert.equal(ok.n, 3);
  assert.equal(ok.tolerance, 1e-3);
  assert.equal(ok.maxAbsDiff, 0);
  assert.match(ok.method, /scored twice in separate calls/);
  const strict = await m.verifyScoring(sample.slice(0, 1), { tolerance: -1 });
  assert.equal(strict.ok, false);
  assert.match(strict.rows[0].problem!, /two scorings differ by 0\.000e\+0 nats \(> -1\)/);
}

test('sim in process: scoring, verification, the toy tokenizer and backend facts', async () => {
  const m = await createModel('sim:steady');
  requireScore(m);
  requireTokenize(m);
  await checkScoring(m, 'sim');
  assert.deepEqual(await m.tokenize('the quick fox'), toyTokenize('the quick fox'));
  assert.equal(await m.countTokens('the quick fox'), toyTokenize('the quick fox').length);
  assert.equal(canDecodeTokens(m), false);
  assert.equal(hasScoringCounters(m), false);
  assert.ok(hasBackendInfo(m));
  assert.match(String((await m.backendInfo()).backend), /simulated toy LM/);
});

test('vllm: scoring, verification and the server tokenizer (/tokenize) through the emulation', async () => {
  const m = await createModel(`vllm:${sim.url}#sim:steady`);
  requireScore(m);
  requireTokenize(m);
  await checkScoring(m, 'vllm');
  const before = sim.stats.byPath['/tokenize'] ?? 0;
  assert.deepEqual(await m.tokenize('the quick fox'), toyTokenize('the quick fox'));
  assert.equal(await m.countTokens('alpha beta'), toyTokenize('alpha beta').length);
  assert.equal(sim.stats.byPath['/tokenize'], before + 2, 'each count is one /tokenize call');
  assert.ok(canStopOnTokens(m) && canBan(m));
  const r = await m.generate(ctx, { maxTokens: 8, stopTokenIds: [7, 9] });
  assert.deepEqual(r.attempts[0].request!.stop_token_ids, [7, 9]);
});

test('vllm: a server without /tokenize is a provider error naming the attempts', async () => {
  const m = await createModel('vllm:http://127.0.0.1:9/v1#m?max_retries=0&timeout=2');
  requireTokenize(m);
  await assert.rejects(m.countTokens('x'), (e: unknown) => {
    assert.ok(RevloopError.isInstance(e));
    assert.equal(e.code, 'E_PROVIDER');
    assert.equal((e as { attempts?: unknown[] }).attempts?.length, 1);
    assert.equal((e as { url?: string }).url, 'http://127.0.0.1:9/tokenize');
    return true;
  });
});
