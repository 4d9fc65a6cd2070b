// Agent-study analysis: per-rollout means (repeat rates only over rollouts with a failure), the
// loop indicator, paired contrasts against verbatim on common tasks, and the report sections.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyzeAgentStore, pairedContrasts, summariseRollouts } from '../../src/studies/agent/agent-analysis.ts';
import { renderAgentAnalysis } from '../../src/studies/agent/agent-tables.ts';
import { AgentStore } from '../../src/studies/agent/agent-store.ts';
import type { RolloutRecord } from '../../src/studies/agent/engine.ts';
import type { AgentHarnessName as HarnessName } from '../../src/remedy/agent-harness.ts';
import { analyzeStore, analysisDocument, analysisText } from '../../src/app/analyze.ts';
import { sectionHtml } from '../../src/html/blocks.ts';
import { assertStrictJson } from '../../src/studies/revision/analysis/json.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-agent-an-');

function rollout(task: number, harness: HarnessName, solved: boolean, nFailed: number, exact: number): RolloutRecord {
  return {
    task_id: `agent-${String(task).padStart(4, '0')}`,
    task_index: task,
    template: 'lookup',
    harness,
    model: 'm',
    simulated: false,
    env: 'toolshed',
    solved,
    n_steps: 3,
    stop_reason: solved ? 'solved' : 'step_limit',
    gen_tokens: 30,
    prompt_tokens: 900,
    n_banned_masked: 0,
    seconds: 1,
    actions: [],
    ok: [],
    error_types: [],
    observations: [],
    tools: [],
    raw_outputs: [],
    n_failed_actions: nFailed,
    n_exact_repeats: exact,
    n_canonical_repeats: exact,
    n_consecutive_repeats: 0,
    exact_repeat_rate: nFailed ? exact / nFailed : null,
    canonical_repeat_rate: nFailed ? exact / nFailed : null,
    stuck: !solved && exact >= 2,
    ok_call_rate: 0.5,
    prompt_tokens_per_step: 300,
    truncated_rate: 0,
    prose_rate: 0,
    temperature: 0,
    seed: 20260808,
    max_steps: 6,
    max_new_tokens: 32,
    model_params: null,
  };
}

const verbatim = [
  rollout(0, 'verbatim', false, 4, 3),
  rollout(1, 'verbatim', true, 0, 0),
  rollout(2, 'verbatim', false, 3, 2),
  rollout(3, 'verbatim', true, 1, 0),
  rollout(4, 'verbatim', false, 2, 1),
  rollout(5, 'verbatim', true, 0, 0),
];
const ban = [
  rollout(0, 'verbatim+ban', true, 1, 0),
  rollout(1, 'verbatim+ban', true, 0, 0),
  rollout(2, 'verbatim+ban', false, 3, 0),
  rollout(3, 'verbatim+ban', true, 1, 0),
  rollout(4, 'verbatim+ban', false, 2, 0),
  rollout(5, 'verbatim+ban', true, 1, 0),
];

test('repeat rates average only over rollouts with a failure; success and loops over all', () => {
  const s = summariseRollouts(verbatim, { resamples: 500 });
  const get = (k: string) => s.find((m) => m.metric === k)!;
  assert.equal(get('solved').mean, 0.5);
  assert.equal(get('exact_repeat_rate').n, 4);
  assert.ok(Math.abs(get('exact_repeat_rate').mean! - (3 / 4 + 2 / 3 + 0 + 1 / 2) / 4) < 1e-12);
  assert.equal(get('stuck').mean, 2 / 6);
  assert.equal(get('n_banned_masked').mean, 0);
});

test('paired contrasts: inner join on task, finite differences only, at least 5', () => {
  const cs = pairedContrasts(
    { run_id: 'v', rollouts: verbatim },
    { run_id: 'b', model: 'm', env: 'toolshed', harness: 'verbatim+ban', rollouts: ban },
    { resamples: 500 },
  );
  const solved = cs.find((c) => c.metric === 'solved')!;
  assert.equal(solved.n_paired, 6);
  assert.ok(Math.abs(solved.mean! - 1 / 6) < 1e-12);
  const rep = cs.find((c) => c.metric === 'exact_repeat_rate')!;
  assert.equal(rep.n_paired, 4, 'tasks where both harnesses had a failure');
  assert.match(rep.reason!, /only 4 task\(s\) where both harnesses have a value/);
  assert.equal(cs.find((c) => c.metric === 'n_steps')!.mean, 0);
  const few = pairedContrasts(
    { run_id: 'v', rollouts: verbatim.slice(0, 4) },
    { run_id: 'b', model: 'm', env: 'toolshed', harness: 'verbatim+ban', rollouts: ban },
    { resamples: 500 },
  );
  assert.match(few[0].reason!, /only 4 task\(s\) in common/);
});

test('from the store: runs, contrasts against the verbatim run of the same settings, strict JSON, text and HTML sections', async () => {
  const path = join(dir, 'a.db');
  const store = await AgentStore.open(path);
  const settings = { max_steps: 6, max_new_tokens: 32, temperature: 0, seed: 20260808, task_seed: 20260808 };
  for (const [id, h, rs] of [
    ['v', 'verbatim', verbatim],
    ['b', 'verbatim+ban', ban],
  ] as const) {
    await store.openRun(id, { env: 'toolshed', harness: h, settings }, { spec: 'gguf:m', label: 'm', capabilities: { simulated: false } });
    for (const r of rs) await store.insertRollout(id, 1, r);
  }
  const a = await analyzeAgentStore(store, { resamples: 300 });
  await store.close();
  assert.deepEqual(
    a.runs.map((r) => r.harness),
    ['verbatim', 'verbatim+ban'],
  );
  assert.ok(a.contrasts.length > 0 && a.contrasts.every((c) => c.baseline_run === 'v' && c.run_id === 'b'));
  const text = renderAgentAnalysis(a);
  assert.match(text, /verbatim\+ban\s+6/);
  assert.match(text, /paired vs verbatim/);
  // Through the study registry, as `analyze` and `report` see it.
  const results = await analyzeStore(path, { bootstrap: 300, seed: 1 });
  assert.deepEqual(
    results.map((r) => r.study.id),
    ['agent'],
  );
  assertStrictJson(JSON.parse(analysisDocument(results)));
  assert.match(analysisText(results), /Agent rollouts on ToolShed/);
  const sections = results[0].study.sections(results[0].analysis);
  assert.deepEqual(
    sections.map((s) => s.id),
    ['agent'],
  );
  const html = sections.map(sectionHtml).join('');
  assert.ok(!/<script|style=/.test(html), 'no inline script or style (the report has a strict CSP)');
});
