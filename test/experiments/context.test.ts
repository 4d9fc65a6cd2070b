// The extended budget's context window (docs/protocol.md §3.13) and experiments over HTTP. A
// trajectory whose next prompt plus max new tokens would exceed --context-window ends complete with
// termination context_limit; prompt tokens are counted with the backend's own tokenizer: the sim's
// toy tokenizer in process and through serve-sim's /tokenize over HTTP (vllm:), and the tiny GGUF's
// template and tokenizer in process. Every generated request fitted, every termination did not.
// Over HTTP (history, crossover, sysid, persist), the simulator being a pure function of the messages, the experiments store exactly
// the trajectories of the same profile in process.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { runCrossoverExperiment, runHistoryExperiment, runPersistExperiment, runSysidExperiment } from '../../src/app/experiment.ts';
import { runCases } from '../../src/app/run.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { getFamily } from '../../src/core/verify/registry.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import { buildHistoryMessages } from '../../src/remedy/history-window.ts';
import { createModel, startSimServer } from '../../src/models/index.ts';
import { canTokenize } from '../../src/models/capabilities.ts';
import { disposeAllGgufRuntimes } from '../../src/models/gguf/index.ts';
import { ensureTinyModel } from '../../src/test/tiny-model.ts';
import { openStore, type RunStore } from '../../src/store/store.ts';
import type { TrajectoryRecord } from '../../src/store/types.ts';
import { experimentsStudy } from '../../src/studies/experiments/study.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-exp-ctx-');
after(async () => {
  await disposeAllGgufRuntimes();
});

async function setup(name: string): Promise<string> {
  const cases = join(dir, `${name}.jsonl`);
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, `${name}.db`);
  await runCases({ cases, model: 'sim:stubborn', store: db, runId: 'src' });
  return db;
}

/** The request of revision n: the initial prompt and every earlier round (the persistence design's full history). */
function requestAt(t: TrajectoryRecord, n: number) {
  const f = getFamily(t.family);
  return buildHistoryMessages(
    f.initialPrompt(t.case, 'baseline'),
    t.rounds.slice(0, n).map((r) => ({ revision: r.revision, draft: r.text, feedback: r.feedback! })),
    { kind: 'full' },
  );
}

async function auditClean(store: RunStore, runId: string): Promise<void> {
  const report = await auditRun(store, runId, getFamily, { replay: (p) => experimentsStudy.replay!(p) });
  assert.deepEqual(report.discrepancies.map(formatDiscrepancy), [], `${runId} audits clean`);
}

test('persist with --context-window: sim in process and over HTTP (vllm: /tokenize) end at the same context_limit, counted by the backend', async () => {
  const db = await setup('ctx');
  const sim = await createModel('sim:stubborn');
  assert.ok(canTokenize(sim));
  // A window that fits every state's first continuation, and not many more.
  let store = await openStore(db, { readonly: true });
  const source = await store.loadTrajectories(['src']);
  await store.close();
  const failures = source.filter((t) => !t.rounds[t.rounds.length - 1].joint);
  assert.ok(failures.length >= 4, 'budget-end failures to continue');
  let window = 0;
  for (const t of failures) {
    const need = (await sim.countPromptTokens(requestAt(t, t.rounds.length))) + getFamily(t.family).maxNewTokens(t.case);
    window = Math.max(window, need + 150);
  }

  const server = await startSimServer({ port: 0 });
  try {
    for (const [runId, spec] of [
      ['p-sim', 'sim:stubborn'],
      ['p-http', `vllm:${server.url}#sim:stubborn`],
    ]) {
      const o = await runPersistExperiment({
        store: db,
        model: spec,
        runId,
        fromRun: 'src',
        budget: 32,
        maxStates: 6,
        contextWindow: window,
      });
      assert.equal(o.result.stopped, null);
    }
  } finally {
    await server.close();
  }

  store = await openStore(db, { readonly: true });
  try {
    const inProcess = await store.loadTrajectories(['p-sim']);
    const overHttp = await store.loadTrajectories(['p-http']);
    assert.deepEqual(
      overHttp.map((t) => [t.caseId, t.rounds.map((r) => r.text), t.termination ?? null]),
      inProcess.map((t) => [t.caseId, t.rounds.map((r) => r.text), t.termination ?? null]),
      'the same trajectories and terminations over HTTP',
    );
    const limited = inProcess.filter((t) => t.termination === 'context_limit');
    assert.ok(limited.length >= 1, 'some trajectories reached the context window');
    const completions = await store.readEvents('p-sim', { types: ['trajectory_completed'] });
    for (const t of inProcess) {
      const maxTokens = getFamily(t.family).maxNewTokens(t.case);
      // Every generated request fitted the window …
      for (let n = 9; n < t.rounds.length; n++)
        assert.ok((await sim.countPromptTokens(requestAt(t, n))) + maxTokens <= window, `${t.caseId} revision ${n} fitted`);
      if (t.termination !== 'context_limit') continue;
      // … and the one that ended the trajectory did not, as recorded.
      const n = t.rounds.length;
      const tokens = await sim.countPromptTokens(requestAt(t, n));
      assert.ok(tokens + maxTokens > window);
      const done = completions.find((e) => e.caseIndex === t.caseIndex);
      assert.ok(done && done.type === 'trajectory_completed');
      assert.equal(done.payload.stop, 'context_limit');
      assert.equal(done.payload.detail, `revision ${n}: ${tokens} prompt tokens + ${maxTokens} max new tokens > context window ${window}`);
      assert.equal(t.rounds[n - 1].joint, false);
    }
    await auditClean(store, 'p-sim');
    await auditClean(store, 'p-http');
    const { result } = await (async () => {
      const a = await experimentsStudy.analyze(store, ['p-sim'], { bootstrap: 0, seed: 1 });
      return a;
    })();
    assert.equal(result.persist[0].context_limit, limited.length);
    assert.equal(result.persist[0].context_window, window);
  } finally {
    await store.close();
  }
});

test('history, crossover and sysid over HTTP (serve-sim) store exactly the in-process trajectories', async () => {
  const db = await setup('http');
  const cases = join(dir, 'http.jsonl');
  const server = await startSimServer({ port: 0 });
  try {
    for (const [suffix, spec] of [
      ['sim', 'sim:stubborn'],
      ['http', `openai-compatible:${server.url}#sim:stubborn`],
    ]) {
      await runHistoryExperiment({
        store: db,
        model: spec,
        runId: `h-${suffix}`,
        fromRun: 'src',
        arms: [{ kind: 'full' }, { kind: 'reset' }, { kind: 'abstract' }],
      });
      await runSysidExperiment({ store: db, model: spec, runId: `s-${suffix}`, cases, errors: [-10, -2, 2, 10] });
    }
    await runCases({ cases, model: 'sim:steady', store: db, runId: 'planner' });
    await runCrossoverExperiment({ store: db, model: 'sim:stubborn', runId: 'x-sim', plannerRun: 'planner' });
    await runCrossoverExperiment({
      store: db,
      model: `openai-compatible:${server.url}#sim:stubborn`,
      runId: 'x-http',
      plannerRun: 'planner',
    });
  } finally {
    await server.close();
  }
  const store = await openStore(db, { readonly: true });
  try {
    const texts = async (id: string) => (await store.loadTrajectories([id])).map((t) => [t.caseId, t.rounds.map((r) => r.text)]);
    for (const design of ['h', 's', 'x']) {
      assert.deepEqual(await texts(`${design}-http`), await texts(`${design}-sim`), design);
      await auditClean(store, `${design}-http`);
    }
  } finally {
    await store.close();
  }
});

test('persist on the tiny GGUF: a window below the first prompt ends every trajectory at once; a wide one lets it generate', async () => {
  const db = await setup('gguf');
  const spec = `gguf:${ensureTinyModel()}?contextSize=16384`;
  const narrow = await runPersistExperiment({
    store: db,
    model: spec,
    runId: 'g-narrow',
    fromRun: 'src',
    budget: 9,
    maxStates: 2,
    contextWindow: 64,
  });
  assert.equal(narrow.summary.complete, 2);
  const wide = await runPersistExperiment({
    store: db,
    model: spec,
    runId: 'g-wide',
    fromRun: 'src',
    budget: 9,
    maxStates: 1,
    contextWindow: 16384,
  });
  assert.equal(wide.summary.complete, 1);
  const store = await openStore(db, { readonly: true });
  try {
    const model = await createModel(spec);
    assert.ok(canTokenize(model));
    for (const t of await store.loadTrajectories(['g-narrow'])) {
      assert.equal(t.termination, 'context_limit');
      assert.equal(t.rounds.length, 9, 'no generation');
      const [done] = (await store.readEvents('g-narrow', { types: ['trajectory_completed'] })).filter((e) => e.caseIndex === t.caseIndex);
      const tokens = await model.countPromptTokens(requestAt(t, 9));
      assert.ok(done.type === 'trajectory_completed' && done.payload.detail?.startsWith(`revision 9: ${tokens} prompt tokens + `));
    }
    const [g] = await store.loadTrajectories(['g-wide']);
    assert.equal(g.termination, undefined);
    assert.equal(g.rounds.length, 10, 'one generation after revision 8');
    await model.close?.();
    await auditClean(store, 'g-narrow');
    await auditClean(store, 'g-wide');
  } finally {
    await store.close();
  }
});
