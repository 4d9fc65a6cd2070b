// State ids lost their label's spaces and brackets in issue 40 (`sim:stubborn__case__r3`, no longer
// `sim:stubborn [simulated]__case__r3`). A store written before keeps opening and displaying, and
// its experiment runs resume with the command that made them (which selects its states again).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { runHistoryExperiment, selectExperimentStates } from '../../src/app/experiment.ts';
import { buildStoreReport } from '../../src/app/report.ts';
import { runCases } from '../../src/app/run.ts';
import { viewerBackend } from '../../src/app/view.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { statesJsonl, stateId, withEarlierStateIds } from '../../src/studies/experiments/states.ts';
import { openStore } from '../../src/store/store.ts';
import { tempDir } from '../tmp.ts';

test('state ids are made of [A-Za-z0-9._:-] and carry no simulation mark', () => {
  assert.equal(stateId('sim:stubborn [simulated]', 'demo-exact-bread', 3), 'sim:stubborn__demo-exact-bread__r3');
  assert.equal(stateId('Qwen/Qwen3-8B', 'c1', 0), 'Qwen-Qwen3-8B__c1__r0');
  assert.equal(stateId('llama31_8b', 'c1', 2), 'llama31_8b__c1__r2', "the paper's model names are ids already");
});

test('a history run planned under the earlier state ids opens, displays, and resumes with its command', async () => {
  const dir = tempDir('revloop-earlier-ids-');
  const cases = join(dir, 'cases.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const store = join(dir, 'runs.db');
  await runCases({ cases, model: 'sim:stubborn', store, runId: 'A' });
  // What an earlier version planned: the same selection, under the ids it gave.
  const { states } = await selectExperimentStates({ store, fromRun: 'A', output: null });
  const earlier = withEarlierStateIds(states);
  assert.match(earlier[0].state_id, /^sim:stubborn \[simulated\]__/);
  const file = join(dir, 'earlier-states.jsonl');
  writeFileSync(file, statesJsonl(earlier));
  const arms = [{ kind: 'full' as const }, { kind: 'reset' as const }];
  await runHistoryExperiment({ store, model: 'sim:stubborn', runId: 'h', fromRun: 'A', states: file, arms });
  // The command without a states file selects them again, under today's ids: it resumes the run.
  const again = await runHistoryExperiment({ store, model: 'sim:stubborn', runId: 'h', fromRun: 'A', arms });
  assert.equal(again.summary.status, 'complete');
  assert.equal(again.summary.cases, 2 * states.length);

  const report = await buildStoreReport(store, { bootstrap: 50, seed: 1 });
  assert.match(report.html, /<section id="experiments-history-h"/);
  const visible = report.html.replace(/<(style|script)\b[\s\S]*?<\/\1>/g, '').replace(/<[^>]*>/g, ' ');
  assert.ok(visible.includes('History interventions: h'));
  assert.doesNotMatch(visible, /\[simulated\]/i, 'names shown without their label mark');
  const s = await openStore(store, { readonly: true });
  try {
    const api = viewerBackend(s, { bootstrap: 0 });
    assert.deepEqual(
      (await api.runs()).runs.map((r) => [r.run_id, r.status]),
      [
        ['A', 'complete'],
        ['h', 'complete'],
      ],
    );
    const page = await api.run('h', { html: true });
    assert.ok(page.sections.some((x) => x.id === 'experiments-history-h'));
  } finally {
    await s.close();
  }
});

test("run's default id drops the simulation mark; the run an earlier version named is still resumed", async () => {
  const dir = tempDir('revloop-earlier-run-id-');
  const cases = join(dir, 'cases.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases().slice(0, 3));
  const fresh = await runCases({ cases, model: 'sim:steady', store: join(dir, 'new.db') });
  assert.equal(fresh.runId, 'cases__sim-steady');
  const store = join(dir, 'old.db');
  // What an earlier version created under its default id.
  await runCases({ cases, model: 'sim:steady', store, runId: 'cases__sim-steady-simulated' });
  const again = await runCases({ cases, model: 'sim:steady', store });
  assert.equal(again.runId, 'cases__sim-steady-simulated');
  const s = await openStore(store, { readonly: true });
  assert.deepEqual(await s.runIds(), ['cases__sim-steady-simulated']);
  await s.close();
});
