// The report in headless Chromium (Debian's /usr/bin/chromium through playwright-core, which never
// downloads a browser): no console or page errors, no network request of any kind, working
// filters and drill-down, lazy rendering on thousands of trajectories, and a screenshot that is
// checked for substance (size, not blank, key elements visible) rather than against a golden image.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { analyzeTrajectories } from '../../src/studies/revision/index.ts';
import { renderReport } from '../../src/report/index.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import type { Family } from '../../src/core/verify/types.ts';
import { requirePunkt } from '../helpers.ts';
import { CASES, HOSTILE, largeSet, minCharsFamily, smallSet, trajectory } from './build.ts';
import { chromiumMissing, launchChromium, type Chromium } from '../chromium.ts';

// The fixtures include a c07 case, whose verifier needs NLTK's Punkt parameters.
const skip = chromiumMissing ?? requirePunkt().skip;
if (skip) console.log(`# ${skip}`);

const OUT = new URL('../.tmp/report/', import.meta.url).pathname;
const families = (name: string): Family => (name === 'min-chars' ? minCharsFamily : getFamily(name));

interface Opened {
  page: Page;
  problems: string[];
  requests: string[];
  dialogs: string[];
}

describe('report in Chromium', { skip }, () => {
  let browser: Chromium | undefined;
  let context: BrowserContext;
  let smallUrl: string;
  let largeUrl: string;
  const small = smallSet();

  before(async () => {
    mkdirSync(OUT, { recursive: true });
    const smallFile = join(OUT, 'small.html');
    writeFileSync(
      smallFile,
      renderReport(small, analyzeTrajectories(small, { bootstrap: 200, seed: 3 }), { getFamily: families, title: 'Browser test report' }),
    );
    const large = [...small, ...largeSet(3000)];
    const largeFile = join(OUT, 'large.html');
    writeFileSync(largeFile, renderReport(large, analyzeTrajectories(large, { bootstrap: 0 }), { getFamily: families }));
    smallUrl = pathToFileURL(smallFile).href;
    largeUrl = pathToFileURL(largeFile).href;
    browser = await launchChromium({ width: 1280, height: 900 });
    context = browser.context;
    // Any request other than the report file itself is recorded and refused.
    await context.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
  });

  after(async () => {
    await browser?.close();
  });

  async function open(url: string): Promise<Opened> {
    const page = await context.newPage();
    const o: Opened = { page, problems: [], requests: [], dialogs: [] };
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') o.problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => o.problems.push(`page error: ${e.message}`));
    page.on('request', (r) => o.requests.push(r.url()));
    page.on('dialog', (d) => {
      o.dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(url);
    await page.waitForSelector('html[data-report-ready="true"]');
    return o;
  }

  function assertClean(o: Opened, url: string): void {
    assert.deepEqual(o.problems, [], 'no console or page errors');
    assert.deepEqual(o.dialogs, [], 'no script from a draft ran');
    assert.deepEqual(
      o.requests.map((u) => u.split('#')[0]),
      [url],
      'the page requested nothing but itself',
    );
  }

  const rowCount = (p: Page) => p.locator('#traj-rows tr').count();
  // Page functions run in the browser; they reach its globals through globalThis (the tsconfig has no DOM lib).
  const waitRows = (p: Page, n: number) =>
    p.waitForFunction((k) => (globalThis as any).document.querySelectorAll('#traj-rows tr').length === k, n);

  test('renders with no errors and no network requests; sections and SIMULATED banner visible', async () => {
    const o = await open(smallUrl);
    const { page } = o;
    assert.match(await page.locator('header .banner').innerText(), /SIMULATED/);
    for (const sel of [
      '#endpoint table.endpoint',
      '#endpoint table.summary-table',
      '#curves svg.chart',
      '#failures svg.bar',
      '#budget table.budget',
      '#traj-rows tr',
    ]) {
      assert.ok(await page.locator(sel).first().isVisible(), sel);
    }
    assert.equal(await rowCount(page), small.length);
    assert.match(await page.locator('#f-count').innerText(), /Showing 8 of 8/);
    await page.close();
    assertClean(o, smallUrl);
  });

  test('filters: controller, outcome, repeat class, search in drafts, reset', async () => {
    const o = await open(smallUrl);
    const { page } = o;
    await page.selectOption('#f-controller', { label: 'sim:steady (SIMULATED)' });
    assert.equal(await rowCount(page), 4);
    for (const text of await page.locator('#traj-rows tr').allInnerTexts()) assert.match(text, /sim:steady\s+SIMULATED/);
    await page.selectOption('#f-outcome', 'failure');
    assert.equal(await rowCount(page), 3);
    await page.selectOption('#f-controller', '');
    await page.selectOption('#f-repeat', 'terminal_fixed_point');
    assert.equal(await rowCount(page), 1);
    assert.match(await page.locator('#traj-rows tr').innerText(), /rain-02\s+alpha/);
    await page.click('#f-reset');
    assert.equal(await rowCount(page), 8);
    await page.fill('#f-search', 'UMBRELLA is wet');
    await waitRows(page, 1);
    assert.match(await page.locator('#traj-rows tr').innerText(), /rain-02\s+sim:steady/);
    await page.uncheck('#f-drafts');
    await waitRows(page, 0);
    await page.fill('#f-search', 'bread');
    await waitRows(page, 2);
    await page.selectOption('#f-family', 'c07');
    assert.equal(await rowCount(page), 0);
    await page.close();
    assertClean(o, smallUrl);
  });

  test('drill-down: drafts, word diff, exact verifier reports; hostile drafts stay text', async () => {
    const o = await open(smallUrl);
    const { page } = o;
    assert.equal(await page.locator('#traj-detail .round').count(), 0, 'details are built only on demand');
    await page.locator('#traj-rows tr', { hasText: 'rain-02' }).filter({ hasText: 'alpha' }).click();
    const detail = page.locator('#traj-detail');
    assert.ok(await detail.isVisible());
    assert.equal(await detail.locator('.round').count(), 5);
    const src = small.find((t) => t.runId === 'run-alpha' && t.caseId === CASES.rain.id)!;
    const family = getFamily('exact-length');
    const reports = await detail.locator('pre.feedback').allTextContents();
    assert.deepEqual(
      reports,
      src.rounds.map((r) => family.feedback(r.state, src.case)),
    );
    assert.match(await detail.locator('.round').nth(4).innerText(), /not sent/i);
    // Revision 1 inserts the hostile words: shown as an insertion, as text.
    const r1 = detail.locator('.round').nth(1);
    assert.equal(await r1.locator('ins.add').first().textContent(), `${HOSTILE} `);
    await r1.getByRole('button', { name: 'text' }).click();
    assert.equal(await r1.locator('pre.text').textContent(), src.rounds[1].text);
    assert.match(await detail.locator('.round').nth(2).innerText(), /identical to revision 1/);
    await detail.locator('summary', { hasText: 'Initial prompt' }).click();
    assert.equal(await detail.locator('pre.prompt').textContent(), family.initialPrompt(src.case));
    // The cycle with an <img> tag in a draft: rendered as text, nothing requested.
    await page.locator('#traj-rows tr', { hasText: 'bread-03' }).filter({ hasText: 'alpha' }).click();
    assert.match(await detail.locator('.round').nth(1).locator('pre.text').innerText(), /<img src="http:\/\/example\.invalid\/x\.png">/);
    assert.equal(await detail.locator('img').count(), 0);
    assert.match(page.url(), /#t=run-alpha%232$/);
    await page.close();
    assertClean(o, smallUrl);
  });

  test('word diff: a whitespace-only change is outlined (.ws), as in the viewer: one renderer for both', async () => {
    const trajs = [trajectory('run-ws', 'alpha', false, 0, CASES.tea, ['Green tea is nice.', 'Green tea  is nice.'])];
    const file = join(OUT, 'whitespace.html');
    writeFileSync(file, renderReport(trajs, analyzeTrajectories(trajs, { bootstrap: 0 }), { getFamily: families }));
    const url = pathToFileURL(file).href;
    const o = await open(url);
    const { page } = o;
    await page.locator('#traj-rows tr').first().click();
    const pre = page.locator('#traj-detail .round[data-revision="1"] pre.text');
    const marked = await pre.locator('.ws').evaluateAll((nodes: any[]) => nodes.map((n) => [n.tagName, n.className, n.textContent]));
    assert.ok(marked.length > 0, 'the changed space is marked');
    for (const [tag, cls, text] of marked) {
      assert.match(`${tag} ${cls}`, /^(?:INS add|DEL rem) ws$/);
      assert.match(String(text), /^\s+$/);
    }
    // Kept and inserted segments read as the new draft.
    const shownNew = await pre.evaluate((el: any) =>
      [...el.childNodes]
        .filter((n: any) => n.nodeName !== 'DEL')
        .map((n: any) => n.textContent)
        .join(''),
    );
    assert.equal(shownNew, 'Green tea  is nice.');
    await page.close();
    assertClean(o, url);
  });

  test('deep link #t=… opens that trajectory', async () => {
    const url = `${smallUrl}#t=${encodeURIComponent('run-sim#3')}`;
    const o = await open(url);
    const detail = o.page.locator('#traj-detail');
    assert.ok(await detail.isVisible());
    assert.match(await detail.locator('h3').innerText(), /apple-04.*sim:steady.*SIMULATED/s);
    assert.match(
      (await detail.locator('pre.feedback').first().textContent()) ?? '',
      /^DETERMINISTIC VERIFIER REPORT\n- required word 'apple': present=false/,
    );
    await o.page.close();
    assertClean(o, smallUrl);
  });

  test('thousands of trajectories: one page of rows at a time, details only when opened', async () => {
    const o = await open(largeUrl);
    const { page } = o;
    assert.equal(await rowCount(page), 100);
    assert.match(await page.locator('#f-count').innerText(), /Showing 100 of 3,008/);
    await page.click('#traj-more');
    assert.equal(await rowCount(page), 200);
    assert.equal(await page.locator('#traj-detail .round').count(), 0);
    await page.selectOption('#f-controller', { label: 'sim:big (SIMULATED)' });
    assert.match(await page.locator('#f-count').innerText(), /of 1,000 matching/);
    await page.selectOption('#f-repeat', 'terminal_cycle');
    await page.locator('#traj-rows tr').first().click();
    assert.equal(await page.locator('#traj-detail .round').count(), 5);
    assert.match(await page.locator('#traj-detail .round').nth(2).innerText(), /identical to revision 0/);
    await page.close();
    assertClean(o, largeUrl);
  });

  test('control: the harness does catch a page that reaches for the network', async () => {
    const { readFileSync } = await import('node:fs');
    const original = readFileSync(new URL(smallUrl), 'utf8');
    const leak = (html: string) => html.replace('<main>', '<main><img src="http://example.invalid/leak.png" alt="">');
    // Without the CSP the request is attempted: it is recorded (and refused by the route).
    const bare = join(OUT, 'control-no-csp.html');
    writeFileSync(bare, leak(original.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '')));
    const o1 = await open(pathToFileURL(bare).href);
    await o1.page.close();
    assert.ok(o1.requests.includes('http://example.invalid/leak.png'), 'the request was recorded');
    assert.throws(() => assertClean(o1, pathToFileURL(bare).href));
    // With the CSP the browser blocks the load and says so on the console.
    const guarded = join(OUT, 'control-csp.html');
    writeFileSync(guarded, leak(original));
    const o2 = await open(pathToFileURL(guarded).href);
    await o2.page.close();
    assert.ok(
      o2.problems.some((p) => /leak\.png.*Content Security Policy/i.test(p)),
      o2.problems.join('\n'),
    );
    assert.throws(() => assertClean(o2, pathToFileURL(guarded).href));
  });

  test('screenshot: non-trivial PNG with the key elements visible; dark and print styles apply', async () => {
    const o = await open(smallUrl);
    const { page } = o;
    await page.locator('#traj-rows tr').first().click();
    const png = join(OUT, 'report.png');
    await page.screenshot({ path: png, fullPage: true });
    assert.ok(statSync(png).size > 50_000, `screenshot has substance (${statSync(png).size} bytes)`);
    for (const sel of [
      'header h1',
      '#endpoint table.endpoint',
      '#curves svg.chart',
      '#failures .bar-row',
      '#budget table.budget',
      '#drilldown .filters',
      '#traj-detail .round',
    ]) {
      const box = await page.locator(sel).first().boundingBox();
      assert.ok(box && box.width > 20 && box.height > 8, `${sel} has a visible box`);
    }
    // Not blank: decode the PNG in a scratch page and look at its pixels.
    const scratch = await context.newPage();
    const { distinct, inked } = await scratch.evaluate(
      async (b64) => {
        const w = globalThis as any;
        const document = w.document;
        const img = new w.Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const g = canvas.getContext('2d');
        g.drawImage(img, 0, 0);
        const px: Uint8ClampedArray = g.getImageData(0, 0, img.width, img.height).data;
        const colours = new Set<number>();
        let ink = 0;
        for (let i = 0; i < px.length; i += 4 * 7) {
          colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
          if (px[i] + px[i + 1] + px[i + 2] < 600) ink++;
        }
        return { distinct: colours.size, inked: ink / (px.length / 28) };
      },
      (await import('node:fs')).readFileSync(png).toString('base64'),
    );
    await scratch.close();
    assert.ok(distinct > 100, `many colours (${distinct})`);
    assert.ok(inked > 0.02 && inked < 0.9, `some but not all pixels inked (${inked.toFixed(3)})`);

    const bg = () =>
      page.evaluate(() => {
        const w = globalThis as any;
        return String(w.getComputedStyle(w.document.body).backgroundColor);
      });
    const light = await bg();
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.notEqual(await bg(), light, 'dark colour scheme applies');
    await page.screenshot({ path: join(OUT, 'report-dark.png') });
    await page.emulateMedia({ colorScheme: 'light', media: 'print' });
    assert.equal(await page.locator('#drilldown .filters').isVisible(), false, 'print hides the filters');
    assert.ok(await page.locator('#endpoint table.endpoint').isVisible());
    await page.close();
    assertClean(o, smallUrl);
  });
});
