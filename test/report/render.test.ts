// The HTML generator without a browser: structure, self-containment, escaping of hostile drafts,
// SIMULATED labelling, the embedded drill-down data and its feedback texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { analyzeTrajectories } from '../../src/studies/revision/index.ts';
import { renderReport, revisionReportPage } from '../../src/report/index.ts';
import { buildReportModel } from '../../src/studies/revision/report-model.ts';
import type { DrilldownPayload } from '../../src/report/payload.ts';
import { decodeWordDiff } from '../../src/html/word-diff.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import { CASES, HOSTILE, LINE_SEP, minCharsFamily, smallSet, trajectory } from './build.ts';
import type { ConstraintCase } from '../../src/core/verify/types.ts';
import { requirePunkt } from '../helpers.ts';
import { browserScript } from '../../src/html/bundle.ts';

const punkt = requirePunkt();

// The fixtures include a c07 case, whose verifier needs Punkt; without it these tests skip visibly.
const trajectories = requirePunkt().skip ? [] : smallSet();
const analysis = analyzeTrajectories(trajectories, { bootstrap: 200, seed: 11 });
const options = { getFamily, title: 'Report <under> test' };
const html = renderReport(trajectories, analysis, options);

function dataBlock(page: string): { json: string; outside: string } {
  const m = /<script type="application\/json" id="revloop-data">([\s\S]*?)<\/script>/.exec(page);
  assert.ok(m, 'the data block exists');
  return { json: m[1], outside: page.slice(0, m.index) + page.slice(m.index + m[0].length) };
}

test('report: one document, data embedded once, one inline script, sections present', { skip: punkt.skip }, () => {
  assert.ok(html.startsWith('<!doctype html>'));
  assert.equal(html.match(/<script\b/g)?.length, 2, 'the JSON data block and the client script');
  assert.equal(html.match(/id="revloop-data"/g)?.length, 1);
  for (const id of ['runs', 'endpoint', 'curves', 'failures', 'budget', 'drilldown']) assert.ok(html.includes(`<section id="${id}"`), id);
  assert.ok(html.includes('<title>Report &lt;under&gt; test</title>'));
  assert.equal(renderReport(trajectories, analysis, options), html, 'same inputs, same bytes');
});

test('report: self-contained — no external URLs, and a CSP that allows only its own inline style and script', { skip: punkt.skip }, () => {
  const { outside } = dataBlock(html);
  assert.ok(!/\b(?:src|href|action|poster|data)\s*=\s*["']?(?!#)[^"'\s>]*:/i.test(outside), 'no attribute points at a URL');
  assert.ok(!/https?:\/\//i.test(outside.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '')), 'no http(s) URL outside the data');
  assert.ok(!/@import|url\(/i.test(outside), 'no CSS imports or url()');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.ok(csp);
  assert.match(csp, /default-src 'none'/);
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
  const b64 = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64');
  assert.ok(csp.includes(`style-src 'sha256-${b64(style)}'`));
  assert.ok(csp.includes(`script-src 'sha256-${b64(script)}'`));
  // The script is src/report/client/report.ts bundled with the shared browser code: nothing left to load.
  assert.equal(script, browserScript(new URL('../../src/report/client/report.js', import.meta.url)));
  assert.match(script, /^ {2}\/\/ src\/html\/client\/word-diff\.ts$/m);
  assert.doesNotMatch(script, /^\s*(?:import|export)\s|\bimport\(|\brequire\(/m);
});

test('report: hostile drafts are escaped — no raw </script>, no raw U+2028, exact round trip', { skip: punkt.skip }, () => {
  assert.ok(!html.includes(HOSTILE), 'the hostile string never appears raw');
  assert.ok(!html.includes('<img'), "the draft's image tag never appears as markup");
  const { json } = dataBlock(html);
  assert.ok(!json.includes(LINE_SEP) && !json.includes('\u2029'));
  assert.ok(!/<\/script/i.test(json));
  const payload = JSON.parse(json) as DrilldownPayload;
  assert.ok(payload.strings.includes(`Rain ${HOSTILE} falls.`));
  assert.ok(payload.strings.some((s) => s.includes(LINE_SEP)));
});

test('report: a very long draft is embedded once and every repeated draft shares one string', { skip: punkt.skip }, () => {
  const { json } = dataBlock(html);
  assert.equal(json.split('word3999').length - 1, 1);
  const payload = JSON.parse(json) as DrilldownPayload;
  assert.equal(new Set(payload.strings).size, payload.strings.length, 'strings are interned');
  const rain = payload.trajectories.find((t) => t.caseId === CASES.rain.id && t.run === 'run-alpha')!;
  assert.equal(new Set(rain.rounds.slice(1).map((r) => r.t)).size, 1, 'the fixed point is one string');
});

test('report: simulated controllers are labelled SIMULATED wherever their numbers appear', { skip: punkt.skip }, () => {
  const { outside } = dataBlock(html);
  assert.match(outside, /class="banner"[^>]*>.*SIMULATED/);
  const rows = outside.match(/<tr\b[^>]*>[\s\S]*?<\/tr>/g) ?? [];
  const simRows = rows.filter((r) => r.includes('sim:steady'));
  assert.ok(simRows.length >= 4, 'runs, endpoint, summary and cumulative tables');
  for (const r of simRows) assert.ok(r.includes('SIMULATED'), r.slice(0, 200));
  const bars = outside
    .split('<div class="bar-row" ')
    .slice(1)
    .map((b) => b.slice(0, b.indexOf('class="bar-n"')));
  const simBars = bars.filter((b) => b.startsWith('data-controller="sim:steady"'));
  assert.ok(simBars.length >= 4, 'repeat classes for three families and the exact-length categories');
  for (const b of simBars) assert.ok(b.includes('SIMULATED'), b);
  assert.match(outside, /median cell success <span class="badge sim"[^>]*>includes SIMULATED/);
  const series = outside.match(/<g class="series [^"]*" data-controller="sim:steady">/g) ?? [];
  assert.ok(series.length >= 2);
  for (const s of series) assert.ok(s.includes(' simulated"'));
  assert.ok(/Highlight sim:steady[\s\S]{0,400}SIMULATED/.test(outside), 'the legend says SIMULATED');
  const payload = JSON.parse(dataBlock(html).json) as DrilldownPayload;
  assert.deepEqual(payload.controllers, [
    { name: 'alpha', simulated: false },
    { name: 'sim:steady', simulated: true },
  ]);
});

test('report: endpoint numbers are the analysis numbers', { skip: punkt.skip }, () => {
  const model = buildReportModel(trajectories, analysis);
  const cell = analysis.cells.find((c) => c.controller === 'alpha' && c.family === 'exact-length')!;
  const row = model.endpoint.rows.find((r) => r.controller === 'alpha')!;
  const shown = row.cells[model.endpoint.families.indexOf('exact-length')]!;
  assert.equal(shown.n, cell.n);
  assert.equal(shown.final.rate, cell.final_success);
  assert.equal(shown.final.lo, cell.endpoint.final.ci95.low);
  assert.equal(shown.initial.k, cell.initial_successes);
  assert.deepEqual(model.curves.find((p) => p.family === 'exact-length')!.series[0].rates, cell.cumulative_success);
  assert.deepEqual(model.endpoint.families, ['exact-length', 'lexical', 'c07']);
  assert.equal(model.budget.rows.length, analysis.budget_replay.by_cap.length);
});

test('drill-down data: labels, verifier reports, sent flags and diffs', { skip: punkt.skip }, () => {
  const progress: Array<[number, number]> = [];
  const payload = revisionReportPage(trajectories, analysis, { ...options, onRenderProgress: (d, n) => progress.push([d, n]) }).drilldown!;
  assert.deepEqual(progress, [[trajectories.length, trajectories.length]]);
  const by = (run: string, id: string) => payload.trajectories.find((t) => t.run === run && t.caseId === id)!;
  assert.equal(by('run-alpha', 'rain-02').rc, 'terminal_fixed_point');
  assert.equal(by('run-alpha', 'rain-02').cat, 'recurrence');
  assert.equal(by('run-alpha', 'bread-03').rc, 'terminal_cycle');
  assert.equal(by('run-sim', 'rain-02').rc, 'other_repeat');
  assert.equal(by('run-sim', 'tea-01').rc, 'no_repeat');
  assert.equal(by('run-alpha', 'tea-01').outcome, 'success');
  assert.equal(by('run-sim', 'bread-03').outcome, 'incomplete');
  assert.equal(by('run-sim', 'bread-03').why, 'provider attempts exhausted (HTTP 503)');

  // Stored reports are shown verbatim; the last failed report is marked as never sent.
  const src = trajectories.find((t) => t.runId === 'run-alpha' && t.caseId === 'rain-02')!;
  const rain = by('run-alpha', 'rain-02');
  rain.rounds.forEach((r, i) => {
    const expected = getFamily('exact-length').feedback(src.rounds[i].state, src.case);
    assert.equal(payload.strings[r.fb], expected);
    assert.equal(r.sent, i < rain.rounds.length - 1 ? 1 : 0);
  });
  // No stored reports (c07 here): the family renders them from the stored states.
  const applesSrc = trajectories.find((t) => t.runId === 'run-sim' && t.caseId === 'apple-04')!;
  const apples = by('run-sim', 'apple-04');
  assert.equal(payload.strings[apples.rounds[0].fb], getFamily('c07').feedback(applesSrc.rounds[0].state, applesSrc.case));
  assert.match(payload.strings[apples.rounds[0].fb], /^DETERMINISTIC VERIFIER REPORT\n- required word 'apple': present=false\n/);
  // A success round has no report; the initial prompt is the family's, exactly.
  const tea = by('run-alpha', 'tea-01');
  assert.equal(tea.rounds.at(-1)!.fb, -1);
  assert.equal(payload.strings[tea.p], getFamily('exact-length').initialPrompt(CASES.tea));
  // Diffs rebuild the drafts.
  const teaSrc = trajectories.find((t) => t.runId === 'run-alpha' && t.caseId === 'tea-01')!;
  for (let i = 1; i < tea.rounds.length; i++) {
    const segs = decodeWordDiff(teaSrc.rounds[i - 1].text, teaSrc.rounds[i].text, tea.rounds[i].d!);
    assert.equal(
      segs
        .filter((s) => s.op !== -1)
        .map((s) => s.text)
        .join(''),
      teaSrc.rounds[i].text,
    );
  }
  assert.equal(rain.rounds[2].d, undefined, 'identical drafts carry no diff');
});

test('drill-down data: a family that cannot be found leaves a note instead of failing the report', { skip: punkt.skip }, () => {
  const broken = (name: string) => {
    if (name === 'c07') throw new Error('unknown family "c07"');
    return getFamily(name);
  };
  const page = renderReport(trajectories, analysis, { getFamily: broken });
  const payload = JSON.parse(dataBlock(page).json) as DrilldownPayload;
  const apples = payload.trajectories.find((t) => t.run === 'run-sim' && t.caseId === 'apple-04')!;
  assert.match(apples.err ?? '', /unknown family "c07"/);
  assert.equal(apples.p, -1);
  assert.ok(apples.rounds.every((r) => r.fb === -1));
  // Stored feedback of other families is unaffected.
  assert.ok(payload.trajectories.find((t) => t.caseId === 'rain-02')!.rounds[0].fb >= 0);
});

test('an empty revision report still renders every section', () => {
  const empty = analyzeTrajectories([], { bootstrap: 0 });
  const page = renderReport([], empty, {});
  for (const id of ['runs', 'endpoint', 'curves', 'failures', 'budget', 'drilldown']) assert.ok(page.includes(`<section id="${id}"`), id);
  assert.ok(!page.includes('class="banner"'));
});

test('an empty report labels nothing SIMULATED and says there is no budget replay', () => {
  const page = renderReport([], analyzeTrajectories([], { bootstrap: 0 }), {});
  const budget = /<section id="budget"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
  assert.match(budget, /No budget replay/);
  assert.doesNotMatch(budget, /SIMULATED/);
  assert.doesNotMatch(budget, /\(\)/);
});

test('a sim label that already says "[simulated]" shows one SIMULATED mark, not two', () => {
  const label = 'sim:steady [simulated]';
  const c: ConstraintCase = { id: 'm-1', family: 'min-chars', source: 's', target: 60 };
  const trajs = [trajectory('run-sim', label, true, 0, c, ['too short', 'still too short'], { family: minCharsFamily })];
  const page = renderReport(trajs, analyzeTrajectories(trajs, { bootstrap: 0 }), { getFamily: () => minCharsFamily });
  // Tables, charts and legend (the footer notes name controllers by their full label, as data).
  const visible = page
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<footer>[\s\S]*?<\/footer>/g, '')
    .replace(/ (?:title|data-controller|data-focus-controller|aria-label)="[^"]*"/g, '');
  assert.ok(visible.includes('sim:steady'), 'the controller is shown');
  assert.doesNotMatch(visible, /\[simulated\]/i, 'the lower-case tag is replaced by the SIMULATED mark');
  assert.match(visible, /sim:steady<\/span> <span class="badge sim"/);
});
