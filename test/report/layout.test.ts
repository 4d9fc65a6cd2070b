// Issue 14, the report's first-hour rough edges, in Chromium: energies rounded with the exact value
// as a tooltip; a one-family report lays out one larger chart beside its numbers and has no
// "reversing pairs" column (a reversal needs two assays) but says why; the six-family endpoint table
// that scrolls sideways says so above it; drill-down rows mark a simulated controller once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { requirePunkt } from '../helpers.ts';
import { revloop } from '../cli/cli.ts';
import { tempDir } from '../tmp.ts';

const CHROMIUM = process.env.REVLOOP_CHROMIUM ?? '/usr/bin/chromium';
const skip = !existsSync(CHROMIUM)
  ? `browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set REVLOOP_CHROMIUM)`
  : requirePunkt().skip;
if (skip) console.log(`# ${skip}`);

describe('report layout in Chromium', { skip }, () => {
  const dir = skip ? '' : tempDir('revloop-layout-');
  let browser: Browser;
  let six: string;
  let one: string;

  before(async () => {
    // Six families: the demo (three simulated controllers, labels ending in "[simulated]").
    assert.equal(revloop(['demo', '--out-dir', join(dir, 'demo')]).code, 0);
    six = pathToFileURL(join(dir, 'demo', 'demo-report.html')).href;
    // One family: the same three controllers on exact-length cases only.
    const cases = join(dir, 'exact.jsonl');
    await writeCaseSet(cases, exactLengthDemoCases());
    const db = join(dir, 'one.db');
    for (const m of ['sim:steady', 'sim:overshoot', 'sim:stubborn'])
      assert.equal(revloop(['run', '--cases', cases, '--model', m, '--store', db]).code, 0);
    assert.equal(revloop(['report', '--store', db, '-o', join(dir, 'one.html'), '--bootstrap', '200', '--no-progress']).code, 0);
    one = pathToFileURL(join(dir, 'one.html')).href;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  after(() => browser?.close());

  async function open(url: string, width = 1280): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(url);
    await page.waitForSelector('html[data-report-ready="true"]');
    return page;
  }

  test('six families: the endpoint table that scrolls sideways says so above it and takes the keyboard', async () => {
    const page = await open(six);
    const cue = page.locator('#endpoint .scroll-cue').first();
    assert.ok(await cue.isVisible());
    assert.match(await cue.innerText(), /^↔ \d+ more columns? to the right: scroll the table sideways$/);
    const wrap = page.locator('#endpoint .table-wrap').first();
    assert.equal(await wrap.getAttribute('tabindex'), '0');
    assert.match((await wrap.getAttribute('class')) ?? '', /\boverflows\b/);
    // A table that fits gets no cue.
    const fits = await page
      .locator('#endpoint .table-wrap')
      .nth(1)
      .evaluate((w) => w.previousElementSibling?.className ?? '');
    assert.doesNotMatch(fits, /scroll-cue/);
    await page.close();
  });

  test('drill-down: a simulated controller is marked once; energies are rounded, the exact value is the tooltip', async () => {
    const page = await open(six);
    const first = page.locator('#traj-rows tr').first();
    const controller = await first.locator('td').nth(1).innerText();
    assert.match(controller, /^sim:\w+\s+SIMULATED$/);
    const labels = await page.locator('#f-controller option').allInnerTexts();
    assert.ok(labels.includes('sim:steady (SIMULATED)'), labels.join(' | '));
    // The stubborn controller's trajectories end with violations: a non-zero final energy.
    await page.selectOption('#f-controller', { label: 'sim:stubborn (SIMULATED)' });
    const cells = page.locator('#traj-rows tr td:last-child');
    let checked = 0;
    for (let i = 0; i < (await cells.count()); i++) {
      const title = await cells.nth(i).getAttribute('title');
      const text = await cells.nth(i).innerText();
      if (!title) continue;
      const exact = Number(title.replace(/^exact: /, ''));
      assert.equal(text, String(Number(exact.toPrecision(4))), `${text} vs ${title}`);
      assert.ok(text.replace(/^-?0\.0*/, '').replace('.', '').length <= 4, `at most 4 significant digits: ${text}`);
      checked++;
    }
    assert.ok(checked > 0);
    await page.locator('#traj-rows tr').first().click();
    const energy = page.locator('#traj-detail .round-head .muted').first();
    assert.match(await energy.innerText(), /^energy -?\d+(\.\d+)?$/);
    assert.match((await energy.getAttribute('title')) ?? '', /^exact: /);
    assert.doesNotMatch(await page.locator('#traj-detail h3').first().innerText(), /\[simulated\]/);
    await page.close();
  });

  test('one family: one larger chart beside its numbers, no reversal column, and the reason said', async () => {
    const page = await open(one, 1400);
    const chart = await page.locator('#curves .charts.single svg.chart').boundingBox();
    const numbers = await page.locator('#curves .charts.single .numbers').boundingBox();
    assert.ok(chart && numbers);
    assert.ok(chart.width >= 500, `chart width ${chart.width}`);
    assert.ok(Math.abs(numbers.y - chart.y) < 80 && numbers.x > chart.x + chart.width, 'the numbers sit beside the chart');
    assert.equal(await page.locator('#curves .scroll-cue').count(), 0, 'nothing hidden sideways');
    assert.equal(await page.locator('#budget th', { hasText: 'reversing pairs' }).count(), 0);
    assert.match(
      await page.locator('#budget p.note').first().innerText(),
      /a pair of controllers can only reverse across two assays or more, and this report has one \(exact-length\)/,
    );
    await page.close();
  });
});
