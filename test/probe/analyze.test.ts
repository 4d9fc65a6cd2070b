// Probe analysis over a store: Holm's family for G holds the real models only; a simulated run in
// the same store is adjusted on its own and never moves a model's adjusted p.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyzeProbeStore } from '../../src/studies/probe/probe-analysis.ts';
import { renderProbeAnalysis } from '../../src/studies/probe/probe-tables.ts';
import { holmAdjust } from '../../src/core/stats/holm.ts';
import { ProbeStore } from '../../src/studies/probe/probe-store.ts';
import type { ProbeItem } from '../../src/studies/probe/probe-types.ts';
import { shortItems } from './fixtures.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-probe-analyze-');

/** Six items on six tasks, made from our own fixture item. */
function items(): ProbeItem[] {
  const base = shortItems()[0];
  return Array.from({ length: 6 }, (_, i) => ({ ...base, item_id: `mine-${i}`, task_id: `task-${i}` }));
}

/** A run whose G per item is `gains[i]` (lp(failed | pre) − lp(failed | fail)). */
async function addRun(store: ProbeStore, runId: string, simulated: boolean, gains: number[]): Promise<void> {
  const its = items();
  await store.openRun(runId, 'toolshed', { spec: runId, label: runId, capabilities: { simulated } });
  await store.addItems(runId, its, 'test');
  const session = await store.startSession(runId, {
    conditions: ['pre', 'fail'],
    itemsSource: 'test',
    itemsSha256: 'x',
    nItems: its.length,
    backend: {},
  });
  const row = (item_id: string, condition: 'pre' | 'fail', logprob: number) => ({
    item_id,
    condition,
    candidate: 'failed' as const,
    logprob,
    n_tokens: 4,
    n_argmax_match: null,
    is_greedy: null,
    ctx_tokens: null,
  });
  for (const [i, it] of its.entries())
    await store.insertScores(runId, session, [row(it.item_id, 'pre', -10), row(it.item_id, 'fail', -10 - gains[i])]);
}

test('Holm for G: real models form one family, simulated runs another', async () => {
  const store = await ProbeStore.open(join(dir, 'holm.db'));
  await addRun(store, 'model-a', false, [-1.0, -1.2, -0.8, -1.1, -0.9, -1.3]);
  await addRun(store, 'model-b', false, [0.2, -0.4, 0.5, -0.1, 0.3, -0.2]);
  const before = await analyzeProbeStore(store, { resamples: 400 });
  await addRun(store, 'sim-x', true, [-2.0, -2.2, -1.8, -2.1, -1.9, -2.3]);
  const after = await analyzeProbeStore(store, { resamples: 400 });
  await store.close();

  const p = (a: typeof after, run: string, key: 'p' | 'holm'): number => {
    const r = a.runs.find((x) => x.run_id === run)!;
    return key === 'holm' ? r.p_holm_G! : r.measures.find((m) => m.measure === 'G')!.p!;
  };
  const real = holmAdjust([p(after, 'model-a', 'p'), p(after, 'model-b', 'p')]);
  assert.equal(p(after, 'model-a', 'holm'), real[0]);
  assert.equal(p(after, 'model-b', 'holm'), real[1]);
  assert.equal(p(after, 'model-a', 'holm'), p(before, 'model-a', 'holm'), "adding a simulated run leaves a model's adjusted p alone");
  assert.equal(p(after, 'sim-x', 'holm'), p(after, 'sim-x', 'p'), 'a lone simulated run is its own family');
  const text = renderProbeAnalysis(after);
  assert.match(text, /G: Holm-adjusted p across the 2 run\(s\)/);
  assert.match(text, /G: Holm-adjusted p across the 1 simulated run\(s\)/);
});
