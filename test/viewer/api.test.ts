// The viewer's JSON API as typed functions (src/app/view.ts) on a store built by the real import and
// engine: the run list, a run's sections, trajectory filters and paging, one trajectory's story
// (rounds, exact reports, diffs, recurrence, attempts), the paired comparison with exact McNemar,
// the event feed, and the errors people get for bad requests. Live updates are checked by writing
// a new run while the same backend keeps reading.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { viewerBackend } from '../../src/app/view.ts';
import { mcnemarExact } from '../../src/core/stats/binomial.ts';
import { NotFoundError, UsageError, UserError } from '../../src/core/errors.ts';
import { decodeWordDiff } from '../../src/html/word-diff.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import { openStore, type RunStore } from '../../src/store/store.ts';
import { openStudyRun } from '../../src/store/study-runs.ts';
import { canonicalJson, sha256Hex } from '../../src/core/util/hash.ts';
import type { ViewerBackend } from '../../src/viewer/api.ts';
import { CYCLE, HOSTILE, alphaLines, importLines, viewerFixture, type ViewerFixture } from './fixtures.ts';

describe('viewer API', () => {
  let fx: ViewerFixture;
  let store: RunStore;
  let api: ViewerBackend;

  before(async () => {
    fx = await viewerFixture();
    store = await openStore(fx.store, { readonly: true });
    api = viewerBackend(store, { bootstrap: 50 });
  });
  after(async () => {
    await store?.close();
    fx?.cleanup();
  });

  test('GET /api/runs: every run with kind, model, status, planned/done, successes and the SIMULATED flag', async () => {
    const r = await api.runs();
    assert.deepEqual(
      r.runs.map((x) => [x.run_id, x.kind, x.model, x.status, x.planned, x.done, x.successes, x.simulated, x.has_trajectories]),
      [
        ['alpha', 'import', 'alpha-model', 'incomplete', 5, 5, 1, false, true],
        ['beta', 'import', 'beta-sim', 'complete', 6, 6, 4, true, true],
        ['faulty', 'run', 'faulty-model', 'complete', 3, 3, 0, true, true],
      ],
    );
    assert.equal(r.cursor, Math.max(...r.runs.map((x) => x.last_event_id)));
    assert.deepEqual(
      r.studies.map((s) => s.id),
      ['revision'],
    );
    assert.equal(r.runs[0].cells.length, r.studies[0].columns.length, "the study's own columns");
    assert.ok(r.runs[2].failed_attempts > 0);
  });

  test('GET /api/runs/:id: the analysis as sections, and escaped HTML on request', async () => {
    const plain = await api.run('beta', { html: false });
    assert.equal(plain.html, undefined);
    assert.ok(plain.sections.some((s) => s.id === 'endpoint'));
    assert.equal(plain.simulated, 'all');
    assert.equal(plain.bootstrap, 50);
    const alpha = await api.run('alpha', { html: true });
    assert.equal(alpha.simulated, 'none');
    assert.match(alpha.html!, /<section id="endpoint"/);
    assert.doesNotMatch(alpha.html!, /<script|onerror=|<img/i, 'no markup from any text');
    await assert.rejects(api.run('nope', { html: false }), NotFoundError);
  });

  test('trajectory listing: facets, filters by family/source/outcome/label, text search, paging', async () => {
    const all = await api.trajectories('alpha', {});
    assert.equal(all.total, 5);
    assert.deepEqual(all.facets.outcome, { success: 1, failure: 3, incomplete: 1 });
    assert.deepEqual(all.facets.source, { own: 3, other: 2 });
    assert.equal(all.facets.label.terminal_cycle, 1);
    assert.equal(all.facets.label.terminal_fixed_point, 1);
    assert.equal(all.labels.repeat.terminal_cycle, 'terminal cycle');
    const ids = (r: { rows: Array<{ case_id: string }> }) => r.rows.map((x) => x.case_id);
    assert.deepEqual(ids(await api.trajectories('alpha', { outcome: 'failure' })), ['rain-02', 'snow-03', 'bread-04']);
    assert.deepEqual(ids(await api.trajectories('alpha', { label: 'terminal_cycle' })), ['rain-02']);
    assert.deepEqual(ids(await api.trajectories('alpha', { label: 'recurrence' })), ['rain-02', 'snow-03'], 'a category label');
    assert.deepEqual(ids(await api.trajectories('alpha', { source: 'other', outcome: 'failure' })), ['snow-03', 'bread-04']);
    assert.deepEqual(ids(await api.trajectories('alpha', { family: 'c07' })), []);
    assert.deepEqual(ids(await api.trajectories('alpha', { q: 'ONERROR' })), ['bread-04']);
    assert.deepEqual(ids(await api.trajectories('alpha', { q: 'falls', outcome: 'failure' })), ['rain-02', 'snow-03']);
    const page = await api.trajectories('alpha', { offset: 1, limit: 2 });
    assert.deepEqual([page.total, page.offset, page.limit, ...ids(page)], [5, 1, 2, 'rain-02', 'snow-03']);
    const filteredPage = await api.trajectories('alpha', { outcome: 'failure', offset: 2, limit: 5 });
    assert.deepEqual([filteredPage.total, ...ids(filteredPage)], [3, 'bread-04']);
    const row = (await api.trajectories('alpha', { label: 'terminal_cycle' })).rows[0];
    assert.deepEqual(
      [row.outcome, row.repeat_class, row.category, row.rounds, row.final_joint, row.status],
      ['failure', 'terminal_cycle', 'recurrence', 4, false, 'complete'],
    );
    await assert.rejects(api.trajectories('alpha', { outcome: 'won' }), UsageError);
  });

  test('one trajectory: every round, the exact reports, word diffs, cycle markers', async () => {
    const t = await api.trajectory('alpha', 'rain-02');
    assert.equal(t.case_index, 1);
    assert.deepEqual(
      t.rounds.map((r) => r.text),
      [CYCLE[0], CYCLE[1], CYCLE[0], CYCLE[1]],
    );
    assert.deepEqual(t.recurrence, { repeat_class: 'terminal_cycle', cycle_period: 2, capture: null, states: [0, 1, 0, 1] });
    assert.deepEqual(
      t.rounds.map((r) => [r.state_id, r.repeat_of, r.in_terminal_repeat]),
      [
        [0, null, true],
        [1, null, true],
        [0, 0, true],
        [1, 1, true],
      ],
    );
    assert.deepEqual(t.label, { outcome: 'failure', repeat_class: 'terminal_cycle', category: 'recurrence' });
    // The report: what the import recorded as sent, byte for byte the family's feedback.
    const family = getFamily('exact-length');
    t.rounds.forEach((r, i) => {
      assert.equal(r.report, family.feedback(family.verify(r.text, t.case as never), t.case as never));
      assert.equal(r.report_sent, i < 3);
    });
    // Diffs rebuild the new draft from the old one.
    for (let i = 1; i < t.rounds.length; i++) {
      const segs = decodeWordDiff(t.rounds[i - 1].text, t.rounds[i].text, t.rounds[i].diff!);
      assert.equal(
        segs
          .filter((s) => s.op !== -1)
          .map((s) => s.text)
          .join(''),
        t.rounds[i].text,
      );
    }
    assert.equal(t.rounds[0].diff, null);
    assert.match(t.prompt!, /exactly 6 words/);
    const fixed = await api.trajectory('alpha', 'snow-03');
    assert.deepEqual(
      fixed.rounds.map((r) => r.in_terminal_repeat),
      [false, true, true, true],
    );
    assert.deepEqual(
      fixed.rounds.map((r) => r.repeat_of),
      [null, null, 1, 1],
    );
    const success = await api.trajectory('alpha', 'tea-01');
    assert.deepEqual(
      success.rounds.map((r) => [r.joint, r.report === null]),
      [
        [false, false],
        [true, true],
      ],
    );
    assert.equal(success.recurrence.capture, 1);
  });

  test('a hostile draft comes back as the exact text (the app shows it as text)', async () => {
    const t = await api.trajectory('alpha', 'bread-04');
    assert.ok(t.rounds[0].text.includes(HOSTILE));
  });

  test('failed provider attempts with kind, latency, status; index disambiguates; errors name what to do', async () => {
    const list = await api.trajectories('faulty', {});
    const withFailures = list.rows.find((r) => r.attempts.failed > 0)!;
    const t = await api.trajectory('faulty', withFailures.case_id, withFailures.case_index);
    const failed = t.attempts.filter((a) => !a.ok);
    assert.ok(failed.length > 0);
    for (const a of failed) {
      assert.equal(a.error_kind, 'http');
      assert.equal(a.status, 503);
      assert.equal(a.error, 'HTTP 503 from fake');
      assert.equal(typeof a.latency_ms, 'number');
    }
    assert.equal(t.attempts.length, withFailures.attempts.finished);
    // Reports the engine sent are recorded; the last one (the budget ran out) was never sent and is rendered.
    assert.deepEqual(
      t.rounds.map((r) => [r.report_source, r.report_sent]),
      [...t.rounds.slice(0, -1).map(() => ['recorded', true]), ['rendered', false]],
    );
    await assert.rejects(api.trajectory('faulty', 'nope'), NotFoundError);
    await assert.rejects(api.trajectory('faulty', 'rain-02', 2), /case index 2 of run 'faulty' is 'sun-05', not 'rain-02'/);
    await assert.rejects(api.trajectory('faulty', 'rain-02', 7), NotFoundError);
  });

  test('compare: pairs by case id, the four cells, exact McNemar, per family, per-case rows', async () => {
    const c = await api.compare({ a: 'alpha', b: 'beta' });
    // alpha: tea ok, rain/snow/bread fail, sun incomplete; beta: tea/bread fail, rain/snow/sun/wind ok.
    assert.deepEqual(c.cells, { both_success: 0, a_only: 1, b_only: 2, both_failure: 1 });
    assert.deepEqual([c.paired, c.only_a, c.only_b, c.excluded], [5, 0, 1, 1]);
    assert.equal(c.mcnemar.discordant, 3);
    assert.equal(c.mcnemar.p, mcnemarExact(1, 2));
    assert.equal(c.simulated, 'some');
    assert.deepEqual(
      c.families.map((f) => [f.family, f.cells.a_only, f.cells.b_only, f.excluded]),
      [['exact-length', 1, 2, 1]],
    );
    assert.deepEqual(
      c.rows.map((r) => [r.case_id, r.cell, r.a.outcome, r.b.outcome]),
      [
        ['tea-01', 'a_only', 'success', 'failure'],
        ['rain-02', 'b_only', 'failure', 'success'],
        ['snow-03', 'b_only', 'failure', 'success'],
        ['bread-04', 'both_failure', 'failure', 'failure'],
        ['sun-05', 'excluded', 'incomplete', 'success'],
      ],
    );
    const only = await api.compare({ a: 'alpha', b: 'beta', cell: 'b_only', limit: 1 });
    assert.deepEqual(
      [only.total, only.rows.length, only.rows[0].case_id, only.rows[0].a.repeat_class],
      [2, 1, 'rain-02', 'terminal_cycle'],
    );
    assert.equal(only.rows[0].a.rounds, 4);
    const reversed = await api.compare({ a: 'beta', b: 'alpha' });
    assert.deepEqual(reversed.cells, { both_success: 0, a_only: 2, b_only: 1, both_failure: 1 });
    assert.equal(reversed.mcnemar.p, c.mcnemar.p, 'McNemar is symmetric');
    await assert.rejects(api.compare({ a: 'alpha', b: 'alpha' }), UsageError);
    await assert.rejects(api.compare({ a: 'alpha', b: 'beta', cell: 'maybe' }), UsageError);
    await assert.rejects(api.compare({ a: 'alpha', b: 'zzz' }), NotFoundError);
  });

  test('live: a run written meanwhile shows up in the list, its events after the cursor, and its trajectories', async () => {
    const before = await api.runs();
    const lines = alphaLines().map((l) => ({ ...l, controller: 'gamma-model', id: 'g' + l.id }));
    await importLines(fx.dir, fx.store, 'gamma', lines);
    const afterList = await api.runs();
    assert.deepEqual(
      afterList.runs.map((r) => r.run_id),
      ['alpha', 'beta', 'faulty', 'gamma'],
    );
    const events = await api.eventsAfter(before.cursor, 10_000);
    assert.ok(events.length > 0 && events.every((e) => e.run_id === 'gamma' && e.id > before.cursor));
    assert.equal(events[0].type, 'run_planned');
    assert.ok(events.some((e) => e.type === 'draft_accepted' && typeof e.joint === 'boolean'));
    assert.ok(!JSON.stringify(events).includes('umbrella'), 'no texts in the live feed');
    assert.equal(await api.head(), afterList.cursor);
    assert.equal((await api.trajectories('gamma', { outcome: 'failure' })).total, 3);
    const cmp = await api.compare({ a: 'alpha', b: 'gamma' });
    assert.deepEqual(cmp.cells, { both_success: 1, a_only: 0, b_only: 0, both_failure: 3 });
  });

  test('studies without trajectories and duplicate case ids are refused with a reason', async () => {
    const w = await openStore(fx.store);
    try {
      await openStudyRun(w, {
        runId: 'probe-1',
        kind: 'probe',
        controller: { label: 'p', spec: 'sim:x', simulated: true },
        settings: { env: 'toolshed' },
      });
      // A run of a kind no study here registered (written by a newer revloop, say): its plan event
      // appended as such, since createRun refuses an unregistered kind.
      const plan = { format: 'revloop.plan/1', kind: 'custom-kind', controller: { label: 'o', spec: 'o', simulated: false }, settings: {} };
      const plan_sha256 = sha256Hex(canonicalJson({ plan, cases: [], per_case: null }));
      await w.append('odd-1', [{ type: 'run_planned', payload: { plan, cases: [], per_case: null, plan_sha256 } }]);
    } finally {
      await w.close();
    }
    const runs = (await api.runs()).runs;
    assert.deepEqual(
      runs.filter((r) => !r.has_trajectories).map((r) => [r.run_id, r.kind, r.study, r.planned]),
      [
        ['probe-1', 'probe', 'probe', 0],
        ['odd-1', 'custom-kind', null, 0],
      ],
    );
    await assert.rejects(api.trajectories('probe-1', {}), /run 'probe-1' \(kind probe\) has no trajectories/);
    await assert.rejects(api.compare({ a: 'alpha', b: 'probe-1' }), /has no trajectories/);
    assert.deepEqual((await api.run('odd-1', { html: true })).notes, ['no registered study owns runs of kind custom-kind']);
    const probe = await api.run('probe-1', { html: true });
    assert.ok(Array.isArray(probe.sections), "a study run's page: its study's sections");
    const dup = [
      ...alphaLines().slice(0, 2),
      ...alphaLines()
        .slice(0, 2)
        .map((l) => ({ ...l, controller: 'other', id: 'o' + l.id })),
    ];
    await importLines(fx.dir, fx.store, 'two-controllers', dup);
    await assert.rejects(api.trajectory('two-controllers', 'tea-01'), /names 2 trajectories.*add \?index= one of 0, 2/);
    assert.equal((await api.trajectory('two-controllers', 'tea-01', 2)).controller, 'other');
    const both = await api.trajectories('two-controllers', {});
    assert.deepEqual(both.facets.controller, { 'alpha-model': 2, other: 2 });
    const other = await api.trajectories('two-controllers', { controller: 'other' });
    assert.deepEqual(
      other.rows.map((r) => [r.case_index, r.case_id, r.controller]),
      [
        [2, 'tea-01', 'other'],
        [3, 'rain-02', 'other'],
      ],
    );
    await assert.rejects(api.compare({ a: 'alpha', b: 'two-controllers' }), UserError);
  });

  test('every key is snake_case; the sections keep their old camelCase keys beside the new ones for one release', async () => {
    const alias = { tocLabel: 'toc_label', intervalNote: 'interval_note', runId: 'run_id', medianCell: 'median_cell' };
    const seen = new Map<string, number>();
    const camel: string[] = [];
    // Data maps (names as keys: facet values, label names, run details, the frozen case, the verifier state) are not fields.
    const DATA = new Set(['facets', 'labels', 'details', 'case', 'state']);
    const walk = (v: unknown, path: string, inSections: boolean): void => {
      if (Array.isArray(v)) return v.forEach((x) => walk(x, path + '[]', inSections));
      if (v === null || typeof v !== 'object') return;
      const o = v as Record<string, unknown>;
      for (const [k, x] of Object.entries(o)) {
        if (/[A-Z]/.test(k)) {
          if (inSections && k in alias) {
            seen.set(k, (seen.get(k) ?? 0) + 1);
            assert.deepEqual(x, o[alias[k as keyof typeof alias]], `${path}.${k} is an alias of ${alias[k as keyof typeof alias]}`);
          } else if (!(inSections && k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase()) in o)) camel.push(`${path}.${k}`);
        }
        if (!DATA.has(k) || Array.isArray(x)) walk(x, `${path}.${k}`, inSections || k === 'sections');
      }
    };
    const alpha = await api.trajectories('alpha', {});
    walk(await api.runs(), 'runs', false);
    walk(await api.run('alpha', { html: true }), 'run', false);
    walk(alpha, 'trajectories', false);
    walk(await api.trajectory('alpha', alpha.rows[1].case_id), 'trajectory', false);
    walk(await api.trajectory('faulty', 'snow-03'), 'trajectory', false);
    walk(await api.compare({ a: 'alpha', b: 'beta' }), 'compare', false);
    assert.deepEqual(camel, [], 'no camelCase key but the deprecated aliases');
    for (const k of ['tocLabel', 'intervalNote', 'runId', 'medianCell']) assert.ok(seen.get(k), `the old key ${k} is still there`);
    const run = await api.run('alpha', { html: false });
    const endpoint = run.sections.find((x) => x.id === 'endpoint')!;
    const block = endpoint.blocks.find((b) => b.kind === 'endpoint') as { endpoint: { interval_note: string } };
    assert.match(block.endpoint.interval_note, /bootstrap/);
  });

  test('an imported trajectory says so; a generated one does not', async () => {
    const imported = await api.trajectory('alpha', 'rain-02');
    assert.equal(imported.imported, true);
    assert.equal(imported.import_format, 'import-jsonl');
    const generated = await api.trajectory('faulty', 'snow-03');
    assert.equal(generated.imported, false);
    assert.equal(generated.import_format, null);
  });
});
