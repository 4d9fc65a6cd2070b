// Issue 40's report items, in Chromium at 1400 and 900 px, on a store with real-length case ids
// (test/long-ids.ts): the header counts the runs its tables list; history arms with equal curves
// are all visible; no literal backticks; one SIMULATED mark per name, never "[simulated]" inside
// one; ids made only of [A-Za-z0-9._:-]; an imported trajectory never says revloop sent it; and
// an unclosed U+202E in one draft leaves the next draft's diff reading left to right (issue 36).
// Each of these fails on the code before issue 40.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { buildStoreReport } from '../../src/app/report.ts';
import { openStore } from '../../src/store/store.ts';
import { isTrajectoryPlan } from '../../src/store/plan.ts';
import { chromiumMissing, launchChromium, type Chromium } from '../chromium.ts';
import { buildLongIdStore, ID_CHARS, type LongIdStore } from '../long-ids.ts';
import { tempDir } from '../tmp.ts';
import { experimentOf } from '../../src/studies/experiments/plan.ts';

const skip = chromiumMissing;
if (skip) console.log(`# ${skip}`);

const WIDTHS = [1400, 900];

describe('report readability with real-length case ids', { skip }, () => {
  const dir = skip ? '' : tempDir('revloop-readable-');
  let fx: LongIdStore;
  let url: string;
  let browser: Chromium | undefined;

  before(async () => {
    fx = await buildLongIdStore(dir);
    const report = await buildStoreReport(fx.store, { bootstrap: 100, seed: 1 });
    const file = join(dir, 'report.html');
    writeFileSync(file, report.html);
    url = pathToFileURL(file).href;
    browser = await launchChromium({ width: 1400, height: 1000 });
    await browser.context.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
  });
  // Pages a failed test left open are closed (their event streams too) before the next test.
  const pages: Page[] = [];
  afterEach(async () => {
    for (const p of pages.splice(0)) if (!p.isClosed()) await p.close();
  });
  after(async () => {
    await browser?.close();
  });

  async function open(width: number, hash = ''): Promise<{ page: Page; problems: string[] }> {
    const page = await browser!.context.newPage();
    pages.push(page);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.setViewportSize({ width, height: 1000 });
    await page.goto(url + hash);
    await page.waitForSelector('html[data-report-ready="true"]');
    return { page, problems };
  }

  /** The visible text of the report's sections (not the drafts of the trajectory browser). */
  const sectionsText = (page: Page) =>
    page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('main > section:not(#drilldown)')].map((s: any) => s.innerText).join('\n'),
    );

  for (const width of WIDTHS) {
    test(`${width} px: the header counts each kind of run as its table lists them`, async () => {
      const { page, problems } = await open(width);
      const meta = await page.locator('header .meta').innerText();
      const count = (noun: string) => Number(new RegExp(`(\\d+) ${noun}s?\\b`).exec(meta)?.[1] ?? NaN);
      const rows = (sel: string) => page.locator(sel).count();
      assert.equal(count('run'), await rows('#runs table tbody tr'), `revision runs in "${meta}"`);
      assert.equal(count('run'), 4);
      assert.equal(count('experiment run'), await rows('#experiments-runs table tbody tr'));
      assert.equal(count('experiment run'), 3);
      assert.equal(count('probe run'), await rows('#probe table.data >> nth=0 >> tbody tr'));
      assert.doesNotMatch(meta, /\b8 runs\b/);
      assert.deepEqual(problems, []);
      await page.close();
    });

    test(`${width} px: history arms with equal curves are all visible (drawn side by side)`, async () => {
      const { page } = await open(width);
      const chart = page.locator('#experiments-history-hist svg.chart').first();
      await chart.scrollIntoViewIfNeeded();
      // The fixture's arms full, last:1 and last:2 have identical curves (the table beside says so).
      const rates = await page.locator('#experiments-history-hist .numbers tbody tr').evaluateAll((trs) =>
        trs.map((tr: any) =>
          [...tr.querySelectorAll('td')]
            .slice(1)
            .map((td: any) => td.innerText)
            .join(' '),
        ),
      );
      assert.ok(rates.length > new Set(rates).size, `some arms share a curve: ${JSON.stringify(rates)}`);
      const hidden = await chart.evaluate((svg: any) => {
        const out: string[] = [];
        for (const g of svg.querySelectorAll('g.series')) {
          const marks = [...g.querySelectorAll('path.mark')];
          const seen = marks.filter((m: any) => {
            const r = m.getBoundingClientRect();
            const hit = (globalThis as any).document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return hit && g.contains(hit);
          });
          if (seen.length < marks.length)
            out.push(`${g.getAttribute('data-controller')}: ${marks.length - seen.length} of ${marks.length} points hidden`);
        }
        return out;
      });
      assert.deepEqual(hidden, [], 'no series hides behind another');
      assert.match(await page.locator('#experiments-history-hist .chart-note').innerText(), /drawn side by side/);
      await page.close();
    });

    test(`${width} px: no literal backticks in any section`, async () => {
      const { page } = await open(width);
      const text = await sectionsText(page);
      assert.ok(text.includes('Response curves: sysid'), 'the sysid section is there');
      assert.deepEqual(text.match(/.{0,40}`.{0,40}/g) ?? [], []);
      await page.close();
    });

    test(`${width} px: one SIMULATED mark per simulated name, never "[simulated]" inside a name`, async () => {
      const { page } = await open(width);
      const text = await sectionsText(page);
      assert.deepEqual(text.match(/.{0,40}\[simulated\].{0,40}/gi) ?? [], []);
      const marks = await page
        .locator('main > section:not(#drilldown) tr.simulated')
        .evaluateAll((trs) => trs.map((tr: any) => tr.querySelectorAll('.badge.sim').length));
      assert.ok(marks.length > 20);
      assert.ok(
        marks.every((n) => n === 1),
        `each simulated row marked once: ${JSON.stringify(marks)}`,
      );
      const tests = await page
        .locator('#experiments-crossover table.data')
        .filter({ hasText: 'first − second' })
        .locator('tbody tr')
        .first()
        .locator('td')
        .allInnerTexts();
      assert.equal(tests[1], 'sim:stubborn');
      assert.equal(tests[2], 'sim:stubborn → sim:stubborn − sim:stubborn → sim:steady');
      const grid = await page.locator('#experiments-crossover table.data').first().locator('thead th').allInnerTexts();
      assert.deepEqual(grid.slice(1), ['sim:steady', 'sim:stubborn']);
      await page.close();
    });

    test(`${width} px: every run id and trajectory id is made of [A-Za-z0-9._:-]`, async () => {
      const { page } = await open(width);
      const data = JSON.parse(await page.locator('#revloop-data').evaluate((n: any) => n.textContent));
      const ids = new Set<string>();
      for (const t of data.trajectories) ids.add(t.run).add(t.caseId);
      const runCells = await page
        .locator('#runs table tbody tr td:first-child, #experiments-runs tbody tr td:nth-child(2)')
        .allInnerTexts();
      for (const id of runCells) ids.add(id.trim());
      assert.ok(ids.size > 50);
      assert.deepEqual(
        [...ids].filter((id) => !ID_CHARS.test(id)),
        [],
      );
      await page.close();
    });

    test(`${width} px: an imported trajectory says what it is; a generated one says what was sent`, async () => {
      const { page } = await open(width, '#t=imported%230');
      const detail = page.locator('#traj-detail');
      await detail.waitFor();
      const text = await detail.innerText();
      assert.match(text, /Imported trajectory \(import-jsonl\): its drafts are as logged by its source/);
      assert.match(text, /DRAFT \(IMPORTED, AS LOGGED BY ITS SOURCE\)/i);
      assert.match(text, /Initial prompt \(revloop’s rendering of this case; imported run: not sent by revloop\)/);
      assert.doesNotMatch(text, /exactly as sent/i);
      assert.doesNotMatch(text, /sent to the model/i);
      await page.close();
      const generated = await open(width, '#t=stubborn%230');
      const other = await generated.page.locator('#traj-detail').innerText();
      assert.match(other, /Initial prompt \(exactly as sent\)/);
      assert.match(other, /sent to the model/i);
      assert.doesNotMatch(other, /imported/i);
      await generated.page.close();
    });

    test(`${width} px: an unclosed U+202E in one draft does not reverse the next draft in its diff`, async () => {
      const { page } = await open(width, '#t=imported%230');
      const pre = page.locator('#traj-detail .round[data-revision="1"] pre.text');
      await pre.waitFor();
      assert.equal(
        await pre
          .locator('del')
          .first()
          .evaluate((n: any) => n.textContent),
        '\u202e',
        'the removed U+202E is in the diff',
      );
      const order = await pre.evaluate((el: any) => {
        const out: Array<[string, number, number]> = [];
        for (const ins of el.querySelectorAll('ins')) {
          const t = ins.firstChild;
          if (!t || t.data.length < 2) continue;
          // (No helper function here: page functions are serialised, and a named one would not survive.)
          const first = (globalThis as any).document.createRange();
          first.setStart(t, 0);
          first.setEnd(t, 1);
          const last = (globalThis as any).document.createRange();
          last.setStart(t, t.data.length - 1);
          last.setEnd(t, t.data.length);
          out.push([t.data, first.getBoundingClientRect().left, last.getBoundingClientRect().left]);
        }
        return out;
      });
      assert.ok(order.length >= 2);
      for (const [word, first, last] of order) assert.ok(first < last, `"${word}" reads left to right (${first} < ${last})`);
      await page.close();
    });
  }

  test('the store: experiment state ids and the probe run id carry no label mark, space or bracket', async () => {
    const store = await openStore(fx.store, { readonly: true });
    try {
      const ids = await store.runIds();
      assert.ok(ids.includes('probe-toolshed-sim-steady'), ids.join(', '));
      assert.deepEqual(
        ids.filter((id) => !ID_CHARS.test(id)),
        [],
      );
      const planned = await store.getPlanned('hist');
      const experiment = planned && isTrajectoryPlan(planned.plan) ? experimentOf(planned.plan) : null;
      assert.ok(experiment);
      const states = experiment.trajectories.map((t) => t.state_id);
      assert.ok(states.length > 0);
      assert.deepEqual(
        states.filter((s) => !ID_CHARS.test(s) || /simulated/.test(s)),
        [],
      );
      assert.match(states[0], /^sim:stubborn__[a-z0-9_]+__r\d+$/);
    } finally {
      await store.close();
    }
  });
});
