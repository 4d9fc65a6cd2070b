// What a user reads: the report's experiment sections (arm curves, the crossover 2×2, response
// curves with bootstrap bands, persistence curves) rendered from typed blocks, SIMULATED marks, the
// trajectory browser holding the experiment trajectories, and the revision study's §3.8/§3.9
// sections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { runCrossoverExperiment, runHistoryExperiment, runPersistExperiment, runSysidExperiment } from '../../src/app/experiment.ts';
import { buildStoreReport } from '../../src/app/report.ts';
import { analysisDocument, analysisText, analyzeStore } from '../../src/app/analyze.ts';
import { runCases } from '../../src/app/run.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { blockHtml } from '../../src/html/blocks.ts';
import { tempDir } from '../tmp.ts';

test('response-curves block: a band per series, the ideal line, escaped labels, SIMULATED in the legend', () => {
  const html = blockHtml(
    {
      kind: 'response-curves',
      panels: [
        {
          title: 'm <1>: median action',
          xLabel: 'command',
          yLabel: 'action',
          identity: true,
          series: [
            {
              name: 'sim:x [simulated]',
              simulated: true,
              points: [
                { x: -10, y: -8, lo: -9, hi: -6 },
                { x: 10, y: 7, lo: 5, hi: 9 },
              ],
            },
          ],
        },
      ],
    },
    'b',
  );
  assert.match(html, /<path class="band" d="M[^"]+Z">/);
  assert.match(html, /<line class="identity"/);
  assert.match(html, /m &lt;1&gt;: median action/);
  assert.doesNotMatch(html, /m <1>/);
  assert.match(html, /<span class="badge sim">SIMULATED<\/span>/);
  assert.match(blockHtml({ kind: 'response-curves', panels: [] }, 'b'), /No responses to plot/);
});

test('analyze and report show every design, SIMULATED, and the §3.8/§3.9 sections; the browser holds the experiment trajectories', async () => {
  const dir = tempDir('revloop-exp-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, 'runs.db');
  await runCases({ cases, model: 'sim:stubborn', store: db, runId: 'A' });
  await runCases({ cases, model: 'sim:steady', store: db, runId: 'B' });
  await runHistoryExperiment({ store: db, model: 'sim:stubborn', runId: 'h', fromRun: 'A' });
  await runCrossoverExperiment({ store: db, model: 'sim:steady', runId: 'x', plannerRun: 'A' });
  await runPersistExperiment({ store: db, model: 'sim:steady', runId: 'p', fromRun: 'A', maxStates: 4 });
  await runSysidExperiment({ store: db, model: 'sim:steady', runId: 's', cases, errors: [-5, 5] });
  const results = await analyzeStore(db, { bootstrap: 200, seed: 7 });
  const doc = JSON.parse(analysisDocument(results));
  assert.deepEqual(
    doc.experiments.runs.map((r: { run_id: string; design: string }) => [r.run_id, r.design]),
    [
      ['h', 'history'],
      ['x', 'crossover'],
      ['p', 'persist'],
      ['s', 'sysid'],
    ],
  );
  assert.equal(doc.experiments.crossover.pairs[0].cells.length, 2, 'one crossing: the planner row of the 2×2');
  assert.ok(doc.experiments.sysid[0].curves.length >= 1);
  assert.equal(doc.experiments.persist[0].caps[0], 8);
  assert.ok(doc.hazard_association && doc.capture_prediction && doc.three_domain_landmark, 'the §3.8/§3.9 analyses are in --json');
  const text = analysisText(results);
  for (const title of [
    '== History interventions: h ==',
    '== Fixed-draft crossover ==',
    '== Response curves: s ==',
    '== Extended budget: p ==',
  ])
    assert.ok(text.includes(title), title);
  assert.match(text, /SIMULATED: .*sim:stubborn \[simulated\]/);

  const report = await buildStoreReport(db, { bootstrap: 200, seed: 7 });
  for (const id of [
    'experiments-runs',
    'experiments-history-h',
    'experiments-crossover',
    'experiments-sysid-s',
    'experiments-persist-p',
    'hazards',
    'hazard-association',
    'rescue',
    'three-domain',
  ])
    assert.match(report.html, new RegExp(`<section id="${id}"`), id);
  assert.match(report.html, /<svg class="chart response"/);
  // The browser: the revision runs' 20 trajectories and every experiment trajectory.
  const expected = 20 + doc.experiments.runs.reduce((n: number, r: { trajectories: number }) => n + r.trajectories, 0);
  assert.equal(report.trajectories, expected);
});
