// `revloop view` in headless Chromium (Debian's /usr/bin/chromium through playwright-core, which
// never downloads a browser): a run started by another process while the page is open appears and
// advances without a reload; filters and the open trajectory live in the URL and a fresh page
// reproduces them; keyboard navigation; the timeline of a trajectory with a terminal cycle; a
// hostile draft rendered inert; compare with its paired cells and two timelines; SIMULATED marks;
// a non-loopback viewer refused without its token. No request may leave the viewer's origin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startViewer, type ViewerHandle } from '../../src/app/view.ts';
import { mcnemarExact } from '../../src/core/stats/binomial.ts';
import { chromiumMissing, launchChromium, type Chromium } from '../chromium.ts';
import { CYCLE, HOSTILE, viewerFixture, writeCaseFile, type ViewerFixture } from './fixtures.ts';

const skip = chromiumMissing;
if (skip) console.log(`# ${skip}`);
const BIN = new URL('../../bin/revloop.mjs', import.meta.url).pathname;

interface Opened {
  page: Page;
  problems: string[];
  dialogs: string[];
  /** Paths the page requested (all on the viewer's origin, or `foreign` says otherwise). */
  requests: string[];
}

// Page functions run in the browser (serialised, so they cannot call helpers from here); they reach
// its globals through globalThis, as the tsconfig has no DOM lib.

describe('viewer in Chromium', { skip }, () => {
  let fx: ViewerFixture;
  let viewer: ViewerHandle;
  let context: BrowserContext;
  let browser: Chromium | undefined;
  let base: string;
  const foreign: string[] = [];
  const allowed = new Set<string>();
  const children: ChildProcess[] = [];

  before(async () => {
    fx = await viewerFixture();
    viewer = await startViewer({ store: fx.store, port: 0, bootstrap: 20, pollMs: 100 });
    base = `http://127.0.0.1:${viewer.port}`;
    allowed.add(base);
    browser = await launchChromium({ width: 1400, height: 1000 });
    context = browser.context;
    // Anything but a viewer under test is recorded and refused.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if ([...allowed].some((o) => url.startsWith(o + '/'))) return route.continue();
      foreign.push(url);
      return route.abort();
    });
  });

  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await browser?.close();
    await viewer?.close();
    fx?.cleanup();
  });

  async function open(path: string): Promise<Opened> {
    const page = await context.newPage();
    const o: Opened = { page, problems: [], dialogs: [], requests: [] };
    page.on('request', (r) => o.requests.push(new URL(r.url()).pathname));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') o.problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => o.problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      o.dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(base + path);
    await page.waitForSelector('html[data-ready="true"]');
    return o;
  }

  function clean(o: Opened): void {
    assert.deepEqual(o.problems, [], 'no console or page errors');
    assert.deepEqual(o.dialogs, [], 'no script from a draft ran');
    assert.deepEqual(foreign, [], 'no request left the viewer');
    // Only the app's files and the API: a draft's <img src=x> would show up here as …/x.
    const unexpected = o.requests.filter((p) => !/^\/(?:app\/[a-z-]+\.(?:js|css)|api\/.+|runs\/(?:alpha|beta|faulty)|compare)?$/.test(p));
    assert.deepEqual(unexpected, [], 'no request but the app and the API');
  }

  const params = (p: Page) => Object.fromEntries(new URL(p.url()).searchParams);
  const rowIds = (p: Page, sel = '#traj-rows tr[data-case]') =>
    p.locator(sel).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-case')));

  test('a run started while the viewer is open appears and advances without a reload', async () => {
    const o = await open('/');
    const { page } = o;
    await page.waitForSelector('#run-rows tr[data-run="alpha"]');
    assert.equal(await page.locator('#run-rows tr').count(), 3);
    await page.waitForFunction(() => (globalThis as any).document.documentElement.getAttribute('data-live') === 'live');
    await page.evaluate(() => ((globalThis as any).__noReload = true));
    const cases = join(fx.dir, 'live-cases.jsonl');
    writeCaseFile(cases, 12);
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--cases',
        cases,
        '--model',
        'sim:steady?latency_ms=120',
        '--store',
        fx.store,
        '--run-id',
        'live-run',
        '--budget',
        '3',
        '--concurrency',
        '2',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const row = '#run-rows tr[data-run="live-run"]';
    await page.waitForSelector(row, { timeout: 60_000 });
    const seen = new Set<string>();
    // Progress advances while the other process writes: record the distinct counts the row shows.
    while (child.exitCode === null) {
      const text = await page
        .locator(`${row} .progress-text`)
        .textContent()
        .catch(() => null);
      if (text) seen.add(text);
      await page.waitForTimeout(100);
    }
    assert.equal(await exited, 0, stderr);
    await page.waitForFunction((sel) => (globalThis as any).document.querySelector(sel + ' .progress-text')?.textContent === '12/12', row, {
      timeout: 15_000,
    });
    await page.waitForFunction((sel) => (globalThis as any).document.querySelector(sel + ' .status')?.textContent === 'complete', row, {
      timeout: 15_000,
    });
    const counts = [...seen].map((s) => Number(s.split('/')[0]));
    assert.ok(
      counts.some((n) => n > 0 && n < 12),
      `intermediate progress was shown live: ${[...seen].join(', ')}`,
    );
    assert.ok(await page.locator(row + ' .badge.sim').count(), 'a sim run is marked SIMULATED');
    assert.equal(await page.evaluate(() => (globalThis as any).__noReload), true, 'the page never reloaded');
    clean(o);
    await page.close();
  });

  test('filters, the open trajectory and the page live in the URL; a fresh page reproduces them; keyboard navigation', async () => {
    const o = await open('/runs/alpha');
    const { page } = o;
    await page.waitForSelector('#traj-rows tr[data-case]');
    assert.deepEqual(await rowIds(page), ['tea-01', 'rain-02', 'snow-03', 'bread-04', 'sun-05']);
    await page.selectOption('#f-outcome', 'failure');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 3);
    assert.equal(params(page).outcome, 'failure');
    await page.selectOption('#f-label', 'terminal_fixed_point');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 1);
    assert.deepEqual(await rowIds(page), ['snow-03']);
    await page.click('#f-reset');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 5);
    await page.fill('#f-search', 'ONERROR');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 1);
    assert.equal(params(page).q, 'ONERROR');
    await page.fill('#f-search', '');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 5);
    await page.selectOption('#f-outcome', 'failure');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 3);
    // Keyboard: j opens the first match, j the next, k back, Esc closes.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('#traj-detail .timeline')?.getAttribute('data-case') === 'rain-02',
    );
    await page.keyboard.press('j');
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('#traj-detail .timeline')?.getAttribute('data-case') === 'snow-03',
    );
    assert.deepEqual([params(page).case, params(page).ix], ['snow-03', '2']);
    assert.equal(await page.locator('#traj-rows tr[aria-selected="true"]').getAttribute('data-case'), 'snow-03');
    await page.keyboard.press('k');
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('#traj-detail .timeline')?.getAttribute('data-case') === 'rain-02',
    );
    const link = page.url();
    // The link reproduces the view in a fresh page.
    const o2 = await open(new URL(link).pathname + new URL(link).search);
    await o2.page.waitForSelector('#traj-detail .timeline[data-case="rain-02"]');
    assert.equal(await o2.page.locator('#f-outcome').inputValue(), 'failure');
    assert.deepEqual(await rowIds(o2.page), ['rain-02', 'snow-03', 'bread-04']);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('#traj-detail .timeline'));
    assert.equal(params(page).case, undefined);
    // Back and forward through views.
    await page.click('header nav a[data-view="runs"]');
    await page.waitForSelector('#run-rows tr[data-run="alpha"]');
    await page.goBack();
    await page.waitForSelector('#traj-rows tr[data-case="bread-04"]');
    clean(o);
    clean(o2);
    await page.close();
    await o2.page.close();
  });

  test('the timeline of a trajectory with a terminal cycle: markers, state strip, word diffs, exact reports', async () => {
    const o = await open('/runs/alpha?case=rain-02&ix=1');
    const { page } = o;
    const tl = page.locator('#traj-detail .timeline[data-case="rain-02"]');
    await tl.waitFor();
    assert.match((await tl.locator('.recurrence').textContent())!, /Terminal cycle of period 2/);
    assert.deepEqual(await tl.locator('ol.states .state').allTextContents(), ['A', 'B', 'A', 'B']);
    assert.equal(await tl.locator('ol.states li.terminal').count(), 4);
    assert.equal(await tl.locator('.round.terminal').count(), 4);
    assert.deepEqual(await tl.locator('.badge.repeat').allTextContents(), ['repeats revision 0', 'repeats revision 1']);
    assert.ok((await tl.locator('.round[data-revision="1"] pre.text del.rem').count()) > 0, 'deleted words marked');
    const r1 = await tl.locator('.round[data-revision="1"] pre.text').textContent();
    assert.ok(r1!.includes('Rain.'));
    await tl.locator('.round[data-revision="1"] .tabs button[data-mode="text"]').click();
    assert.equal(await tl.locator('.round[data-revision="1"] pre.text').textContent(), CYCLE[1]);
    const reports = await tl.locator('pre.feedback').allTextContents();
    assert.equal(reports.length, 4);
    assert.ok(
      reports.every((r) => /6/.test(r)),
      'the verifier report names the target',
    );
    // alpha is an import: revloop sent none of these reports (they are its renderings of the states).
    assert.equal(await tl.locator('pre.feedback.unsent').count(), 4, 'an import: no report was sent by revloop');
    assert.doesNotMatch(await tl.innerText(), /sent to the model/i);
    clean(o);
    await page.close();
    // A run revloop generated: every report but the last reached the model.
    const g = await open('/runs/faulty?case=snow-03&ix=1');
    const gl = g.page.locator('#traj-detail .timeline[data-case="snow-03"]');
    await gl.waitFor();
    const n = await gl.locator('pre.feedback').count();
    assert.ok(n >= 2);
    assert.equal(await gl.locator('pre.feedback.unsent').count(), 1, 'the last report was never sent');
    assert.equal((await gl.innerText()).match(/sent to the model/gi)?.length, n - 1);
    clean(g);
    await g.page.close();
  });

  test('a hostile draft is shown as text: no element, no script, no request', async () => {
    const o = await open('/runs/alpha?case=bread-04&ix=3');
    const { page } = o;
    const tl = page.locator('#traj-detail .timeline[data-case="bread-04"]');
    await tl.waitFor();
    assert.equal(await tl.locator('.round[data-revision="0"] pre.text').textContent(), `Bread ${HOSTILE}`);
    assert.equal(
      await page.locator('#traj-detail img, #traj-detail script, #traj-detail svg[onload], #traj-detail b, #traj-detail i').count(),
      0,
    );
    await page.fill('#f-search', 'onerror');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 1);
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => (globalThis as any).document.querySelectorAll('img').length), 0);
    clean(o);
    await page.close();
  });

  test('compare two runs: the paired cells, exact McNemar, filtering by cell, two timelines side by side', async () => {
    const o = await open('/compare?a=alpha&b=beta');
    const { page } = o;
    await page.waitForSelector('#cmp-rows tr[data-case]');
    const cell = (k: string) => page.locator(`button.cell-link[data-cell="${k}"]`).textContent();
    assert.deepEqual(
      [await cell('both_success'), await cell('a_only'), await cell('b_only'), await cell('both_failure')],
      ['0', '1', '2', '1'],
    );
    assert.equal(await page.locator('#cmp-p').textContent(), mcnemarExact(1, 2).toFixed(4));
    assert.match((await page.locator('#cmp-summary .banner').textContent())!, /SIMULATED/);
    assert.equal((await page.locator('#cmp-summary .badge.sim').count()) >= 2, true, 'the simulated run is marked');
    await page.click('button.cell-link[data-cell="b_only"]');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#cmp-rows tr[data-case]').length === 2);
    assert.equal(params(page).cell, 'b_only');
    assert.deepEqual(await rowIds(page, '#cmp-rows tr[data-case]'), ['rain-02', 'snow-03']);
    await page.click('#cmp-rows tr[data-case="rain-02"]');
    await page.waitForSelector('#cmp-detail .pair-side .timeline');
    const sides = page.locator('#cmp-detail .pair-side .timeline');
    assert.equal(await sides.count(), 2);
    assert.equal(await sides.nth(0).getAttribute('data-run'), 'alpha');
    assert.equal(await sides.nth(1).getAttribute('data-run'), 'beta');
    assert.match((await sides.nth(0).locator('.recurrence').textContent())!, /Terminal cycle/);
    assert.ok(await sides.nth(1).locator('.badge.sim').count(), 'the simulated side says so');
    await page.keyboard.press('j');
    await page.waitForFunction(() => new URL((globalThis as any).document.location.href).searchParams.get('case') === 'snow-03');
    clean(o);
    await page.close();
  });

  test('SIMULATED on the run page and its analysis', async () => {
    const o = await open('/runs/beta?tab=analysis');
    const { page } = o;
    await page.waitForSelector('#run-status');
    assert.match((await page.locator('.run-head .banner').textContent())!, /SIMULATED/);
    await page.waitForSelector('html #analysis section#endpoint', { timeout: 30_000 });
    assert.ok((await page.locator('#analysis .badge.sim').count()) > 0);
    clean(o);
    await page.close();
  });

  test('a viewer on a non-loopback host refuses the page without its token, and serves it with the token', async () => {
    const open2 = await startViewer({ store: fx.store, port: 0, host: '0.0.0.0', pollMs: 100 });
    const origin = `http://127.0.0.1:${open2.port}`;
    allowed.add(origin);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      const refused = await page.goto(origin + '/runs/alpha');
      assert.equal(refused!.status(), 401);
      assert.match((await page.locator('h1').textContent()) ?? '', /Access token required/);
      assert.equal(await page.locator('#view').count(), 0, 'no app without the token');
      const api = await page.goto(origin + '/api/runs');
      assert.equal(api!.status(), 401);
      const url = new URL(open2.url);
      await page.goto(`${origin}/${url.search}`);
      await page.waitForSelector('#run-rows tr[data-run="alpha"]');
      assert.equal(new URL(page.url()).search, '', 'the token left the address bar (kept in an HttpOnly cookie)');
      await page.goto(origin + '/runs/alpha?outcome=failure');
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-case]').length === 3);
      assert.deepEqual(problems, []);
      assert.deepEqual(foreign, []);
    } finally {
      await page.close();
      await context.clearCookies();
      await open2.close();
    }
  });
});
