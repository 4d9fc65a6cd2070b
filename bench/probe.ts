// Probe scoring cost on a GGUF (default: the project's tiny random-weight model, so the figures
// are about the pipeline, not about any real model): the runner over N built ToolShed items and
// a condition set, then prints wall time, scores/s, tokens actually pushed through the network vs
// what a cache-free scorer would push (the reference's CacheSaving), and the cached-vs-fresh
// check on a sample.
//
//   npx tsx bench/probe.ts [--items 8] [--conditions core|extended|all] [--model gguf:<path>]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGgufModel, disposeAllGgufRuntimes } from '../src/models/gguf/index.ts';
import { ensureTinyModel } from '../src/test/tiny-model.ts';
import { probeScorerFor } from '../src/studies/probe/backend.ts';
import { buildToolShedProbeItems } from '../src/studies/probe/build.ts';
import { parseConditions } from '../src/app/probe.ts';
import { runProbe } from '../src/studies/probe/runner.ts';
import { ProbeStore } from '../src/studies/probe/probe-store.ts';
import { verifyProbeScoring } from '../src/studies/probe/verify.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const n = Number(arg('items') ?? 8);
const conditions = parseConditions(arg('conditions') ?? 'core');
const spec = arg('model') ?? `gguf:${ensureTinyModel()}?contextSize=4096`;
const items = buildToolShedProbeItems(100).items.slice(0, n);
const model = createGgufModel(spec);
await model.load();
const scorer = await probeScorerFor(model);
const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-probe-'));
try {
  const store = await ProbeStore.open(join(dir, 'b.db'));
  await store.openRun('bench', 'toolshed', { spec: spec, label: model.label, capabilities: { simulated: false } });
  await store.addItems('bench', items, 'bench');
  const t0 = performance.now();
  const r = await runProbe(scorer, store, items, { runId: 'bench', conditions, itemsSource: 'bench', itemsSha256: '-' });
  const s = (performance.now() - t0) / 1000;
  const c = r.counters!;
  const ctx = (await store.scores('bench')).map((x) => x.ctx_tokens ?? 0);
  console.log(`model ${model.label}; ${items.length} items × ${conditions.length} conditions (${conditions.join(', ')})`);
  console.log(
    `scored ${r.nScored} triples in ${s.toFixed(2)} s: ${(r.nScored / s).toFixed(1)} scores/s, ${(s / items.length).toFixed(2)} s/item; mean context ${Math.round(ctx.reduce((a, b) => a + b, 0) / ctx.length)} tokens`,
  );
  console.log(
    `tokens pushed ${c.forwardTokens.toLocaleString('en')} in ${c.forwardCalls} forward calls vs ${c.naiveTokens.toLocaleString('en')} cache-free: prefix reuse saved ${(100 * r.cacheSaving!).toFixed(1)}%`,
  );
  await store.close();
  const t1 = performance.now();
  const v = await verifyProbeScoring(scorer, items, { n: Math.min(3, items.length) });
  console.log(
    `verify: ${v.n} triples cached vs fresh in ${((performance.now() - t1) / 1000).toFixed(2)} s, max |diff| ${v.maxAbsDiff.toExponential(2)} nats → ${v.ok ? 'OK' : 'FAIL'}`,
  );
} finally {
  await model.close();
  await disposeAllGgufRuntimes();
  rmSync(dir, { recursive: true, force: true });
}
