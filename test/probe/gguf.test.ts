// The probe pipeline end to end on the project's tiny random-weight GGUF (in process). Its numbers
// mean nothing; what is tested is the pipeline: every triple scored and stored once, the guards,
// −G = copy + sem item by item, resume, the length-matched neutral, and that prefix-cached scores
// equal fresh ones.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createGgufModel, disposeAllGgufRuntimes } from '../../src/models/gguf/index.ts';
import { ensureTinyModel } from '../../src/test/tiny-model.ts';
import { probeScorerFor } from '../../src/studies/probe/backend.ts';
import { runProbe } from '../../src/studies/probe/runner.ts';
import { ProbeStore } from '../../src/studies/probe/probe-store.ts';
import { probeItemRecords, analyzeProbeStore } from '../../src/studies/probe/probe-analysis.ts';
import { buildConditionMessages } from '../../src/studies/probe/conditions.ts';
import { paddedNeutral } from '../../src/studies/probe/padding.ts';
import { verifyProbeScoring } from '../../src/studies/probe/verify.ts';
import { buildToolShedProbeItems } from '../../src/studies/probe/build.ts';
import { conditionsOf } from '../../src/studies/probe/probe-types.ts';
import { shortItems } from './fixtures.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-probe-gguf-');
const model = createGgufModel(`gguf:${ensureTinyModel()}?contextSize=4096`);
after(async () => {
  await model.close();
  await disposeAllGgufRuntimes();
  rmSync(dir, { recursive: true, force: true });
});

const items = shortItems();
const all = conditionsOf('all');

test('core + extended on two items: every triple scored once, finite and ≤ 0; −G = copy + sem; prefix reuse saves tokens', async () => {
  const scorer = await probeScorerFor(model);
  const store = await ProbeStore.open(join(dir, 'a.db'));
  await store.openRun('r', 'toolshed', {
    spec: model.spec,
    label: model.label,
    capabilities: { simulated: false },
  });
  await store.addItems('r', items, 'fixture');
  const res = await runProbe(scorer, store, items, { runId: 'r', conditions: all, itemsSource: 'fixture', itemsSha256: 'x' });
  // item 1: pre/fail with 2 distractors (4 each) + 13 other conditions × 2 = 34; item 2: 1 distractor: 3 + 3 + 26 = 32
  assert.equal(res.nScored, 34 + 32);
  assert.equal(res.nUnavailable, 0);
  assert.ok(
    res.counters && res.counters.forwardTokens < res.counters.naiveTokens,
    'prefix reuse pushes fewer tokens than a cache-free scorer',
  );
  const scores = await store.scores('r');
  assert.equal(scores.length, 66);
  for (const s of scores) {
    assert.ok(Number.isFinite(s.logprob) && s.logprob <= 0, `${s.item_id}/${s.condition}/${s.candidate}: ${s.logprob}`);
    assert.ok(s.n_tokens > 0 && s.ctx_tokens! > 0 && typeof s.is_greedy === 'boolean');
  }
  const recs = probeItemRecords('r', model.label, false, items, scores);
  for (const r of recs) {
    const { G, copy, sem, copy_pad, sem_pad } = r.measures;
    assert.ok(G !== null && copy !== null && sem !== null && copy_pad !== null && sem_pad !== null);
    assert.ok(Math.abs(-G - (copy + sem)) < 1e-9, `${r.item_id}: −G ${-G} vs copy + sem ${copy + sem}`);
    assert.ok(Math.abs(-G - (copy_pad + sem_pad)) < 1e-9);
    assert.ok(r.measures.p_repeat_pre! > 0 && r.measures.p_repeat_pre! < 1);
  }
  // The padded neutral: the candidate whose token count is closest to obs_fail's, ties to the shorter.
  for (const it of items) {
    const p = (await store.paddings('r')).get(it.item_id)!;
    const target = (await model.tokenize(it.obs_fail, false)).length;
    assert.equal(p.targetTokens, target);
    let bestGap = Infinity;
    for (let k = 0; k <= 23; k++) {
      const n = (await model.tokenize(k ? paddedNeutral(it.failed_action, k) : it.obs_neutral, false)).length;
      bestGap = Math.min(bestGap, Math.abs(n - target));
      if (k && n >= target) break;
    }
    assert.equal(Math.abs(p.tokens - target), bestGap);
    assert.equal(p.observation, p.units ? paddedNeutral(it.failed_action, p.units) : it.obs_neutral);
  }
  // Resume: nothing left to score.
  const again = await runProbe(scorer, store, items, { runId: 'r', conditions: all, itemsSource: 'fixture', itemsSha256: 'x' });
  assert.equal(again.nScored, 0);
  assert.equal(again.nPresent, 66);
  const a = await analyzeProbeStore(store, { resamples: 200 });
  assert.equal(a.runs[0].n_items, 2);
  assert.equal(a.runs[0].published, false);
  await store.close();
});

test('scores through the reused prefix equal one fresh forward pass (revloop probe verify), and equal single-candidate scoring', async () => {
  const scorer = await probeScorerFor(model);
  const report = await verifyProbeScoring(scorer, items, { n: 2 });
  assert.equal(report.n, 2 * 5 * 2);
  assert.ok(report.ok, JSON.stringify(report.triples.filter((t) => !t.ok)));
  assert.ok(report.maxAbsDiff <= 1e-4, `max |cached − fresh| = ${report.maxAbsDiff}`);
  // The runner's stored scores (several candidates per context, trie walk) vs one candidate at a time.
  const store = await ProbeStore.open(join(dir, 'a.db'), { readonly: true });
  const stored = (await store.scores('r')).filter((s) => s.condition === 'fail' || s.condition === 'neut_pad');
  for (const s of stored) {
    const it = items.find((i) => i.item_id === s.item_id)!;
    const text =
      s.candidate === 'failed' ? it.failed_action : s.candidate === 'gold' ? it.gold_action : it.distractors[Number(s.candidate.slice(-1))];
    const pad = (await store.paddings('r')).get(s.item_id)?.observation ?? null;
    const single = await model.score(buildConditionMessages(it, s.condition, { neutralPadded: pad }), text);
    assert.ok(Math.abs(single.logprob - s.logprob) < 1e-4, `${s.item_id}/${s.condition}/${s.candidate}: ${single.logprob} vs ${s.logprob}`);
  }
  await store.close();
});

test('a real ToolShed item (the golden item) through the core conditions', async () => {
  const golden = buildToolShedProbeItems(100).items.filter((i) => i.item_id === 'toolshed-0000-s0-arg_typo-1');
  const scorer = await probeScorerFor(model);
  const store = await ProbeStore.open(join(dir, 'b.db'));
  await store.openRun('g', 'toolshed', {
    spec: model.spec,
    label: model.label,
    capabilities: { simulated: false },
  });
  await store.addItems('g', golden, 'build');
  const res = await runProbe(scorer, store, golden, {
    runId: 'g',
    conditions: conditionsOf('core'),
    itemsSource: 'build',
    itemsSha256: 'x',
  });
  assert.equal(res.nScored, 4 + 4 + 2 + 2 + 2);
  const [r] = probeItemRecords('g', model.label, false, golden, await store.scores('g'));
  assert.ok(Math.abs(-r.measures.G! - (r.measures.copy! + r.measures.sem!)) < 1e-9);
  assert.ok(res.cacheSaving! > 0.5, `cache saving ${res.cacheSaving}`);
  await store.close();
});
