// The HTTP scoring path (vLLM's prompt_logprobs and /tokenize) against serve-sim's deterministic
// vLLM emulation on loopback: the probe over HTTP gives exactly the toy LM's in-process scores,
// counts tokens through /tokenize for neut_pad, stores and verifies. Backends that cannot score
// are refused with a message that names what to use instead.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createModel } from '../../src/models/index.ts';
import { simScore } from '../../src/models/sim/model.ts';
import { toyTokenize } from '../../src/models/sim/toy-lm.ts';
import { startSimServer, type SimServer } from '../../src/models/sim/server.ts';
import { probeScorerFor } from '../../src/studies/probe/backend.ts';
import { buildConditionMessages } from '../../src/studies/probe/conditions.ts';
import { runProbe } from '../../src/studies/probe/runner.ts';
import { ProbeStore } from '../../src/studies/probe/probe-store.ts';
import { probeItemRecords } from '../../src/studies/probe/probe-analysis.ts';
import { verifyProbeScoring } from '../../src/studies/probe/verify.ts';
import { conditionsOf } from '../../src/studies/probe/probe-types.ts';
import { CapabilityError } from '../../src/core/errors.ts';
import { shortItems } from './fixtures.ts';
import { tempDir } from '../tmp.ts';

let sim: SimServer;
const dir = tempDir('revloop-probe-http-');
before(async () => {
  sim = await startSimServer({ port: 0 });
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const items = shortItems();

test('vllm: scores over HTTP equal the toy LM in process, argmax flags and context length included; /tokenize counts tokens', async () => {
  const model = await createModel(`vllm:${sim.url}#sim:steady`);
  assert.equal(model.capabilities.simulated, true);
  const scorer = await probeScorerFor(model);
  const messages = buildConditionMessages(items[0], 'fail');
  const cands = [items[0].failed_action, items[0].gold_action];
  const got = await scorer.scoreCandidates(messages, cands);
  cands.forEach((c, i) => {
    const want = simScore(messages, c);
    assert.equal(got[i].logprob, want.logprob);
    assert.equal(got[i].nTokens, want.tokens);
    assert.equal(got[i].nArgmaxMatch, want.argmaxMatches);
    assert.equal(got[i].isGreedy, want.isGreedy);
    assert.equal(got[i].ctxTokens, want.contextTokens);
  });
  assert.equal(await scorer.countTokens!(items[0].obs_fail), toyTokenize(items[0].obs_fail).length);
  assert.equal(scorer.counters(), null);
});

test('vllm: a full probe run over HTTP (all conditions incl. neut_pad) is stored, resumable and verifies', async () => {
  const model = await createModel(`vllm:${sim.url}#sim:steady`);
  const scorer = await probeScorerFor(model);
  const store = await ProbeStore.open(join(dir, 'h.db'));
  await store.openRun('h', 'toolshed', {
    spec: model.spec,
    label: model.label,
    capabilities: { simulated: true },
  });
  await store.addItems('h', items, 'fixture');
  const res = await runProbe(scorer, store, items, {
    runId: 'h',
    conditions: conditionsOf('all'),
    itemsSource: 'fixture',
    itemsSha256: 'x',
  });
  assert.equal(res.nScored, 66);
  assert.equal(res.cacheSaving, null, 'no token counters over HTTP');
  for (const r of probeItemRecords('h', model.label, true, items, await store.scores('h'))) {
    assert.ok(Math.abs(-r.measures.G! - (r.measures.copy! + r.measures.sem!)) < 1e-9);
  }
  const pad = (await store.paddings('h')).get(items[0].item_id)!;
  assert.equal(pad.targetTokens, toyTokenize(items[0].obs_fail).length);
  assert.equal(
    (await runProbe(scorer, store, items, { runId: 'h', conditions: conditionsOf('all'), itemsSource: 'fixture', itemsSha256: 'x' }))
      .nScored,
    0,
  );
  await store.close();
  const v = await verifyProbeScoring(scorer, items, { n: 2 });
  assert.ok(v.ok && v.maxAbsDiff === 0);
  assert.match(v.method, /scored twice in separate calls/);
});

test('backends without teacher-forced scoring are refused before any work', async () => {
  const plain = await createModel(`openai-compatible:${sim.url}#sim:steady`);
  await assert.rejects(
    probeScorerFor(plain),
    (e: unknown) =>
      e instanceof CapabilityError &&
      /cannot score/.test((e as Error).message) &&
      /gguf:/.test((e as Error).message) &&
      /vllm:/.test((e as Error).message),
  );
});
