// Issue 40's viewer items, in Chromium at 1400 and 900 px, on a store with real-length case ids
// (test/long-ids.ts): the outcome and failure-label columns stay in view beside ids such as
// dolly_creative_writing__0349f472e484d1632540cdbd (a finished run and one being written by
// another process), and a table that scrolls sideways says how many columns are out of sight
// (the trajectory list and the Analysis tab's tables); energies are rounded as the report rounds
// them, the exact value on hover; an imported trajectory never says revloop sent it; an unclosed
// U+202E in one draft leaves the next draft's diff reading left to right (issue 36). Each fails on
// the code before issue 40.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startViewer, type ViewerHandle } from '../../src/app/view.ts';
import { chromiumMissing, launchChromium, type Chromium } from '../chromium.ts';
import { requirePunkt } from '../helpers.ts';
import { BIN, userEnv } from '../cli/cli.ts';
import { buildLongIdStore, ID_CHARS, longId, type LongIdStore } from '../long-ids.ts';
import { tempDir } from '../tmp.ts';

// Six families (the Analysis tab's wide endpoint table) need the structured verifiers' Punkt data.
const skip = chromiumMissing ?? requirePunkt().skip;
if (skip) console.log(`# ${skip}`);

const WIDTHS = [1400, 900];

interface Columns {
  /** Header cells cut off at the list's right edge. */
  cut: string[];
  cue: string | null;
  overflow: boolean;
  /** The outcome and failure-label headers and the first row's cells, wholly inside the list's box and the window. */
  inView: Record<string, boolean>;
  /** The first row's case id as shown (whole). */
  caseId: string;
}

/** What a reader of the trajectory list sees of its columns. */
function listColumns(page: Page): Promise<Columns> {
  return page.evaluate(() => {
    const d = (globalThis as any).document;
    const w = (globalThis as any).window;
    const wrap = d.querySelector('#traj-rows').closest('.table-wrap');
    const box = wrap.getBoundingClientRect();
    const ths = [...wrap.querySelectorAll('thead th')];
    const cut = ths.filter((th: any) => th.getBoundingClientRect().right > box.right + 1).map((th: any) => th.textContent);
    const prev = wrap.previousElementSibling;
    const cue = prev && prev.classList.contains('scroll-cue') ? prev.textContent : null;
    const row = d.querySelector('#traj-rows tr[data-case]');
    const inView: Record<string, boolean> = {};
    ths.forEach((th: any, i: number) => {
      const name = th.textContent;
      if (name !== 'outcome' && name !== 'failure label') return;
      for (const [key, el] of [
        [name, th],
        [`${name} (first row)`, row.children[i]],
      ]) {
        const b = el.getBoundingClientRect();
        inView[key] = b.width > 0 && b.left >= box.left - 1 && b.right <= box.right + 1 && b.right <= w.innerWidth;
      }
    });
    return { cut, cue, overflow: wrap.scrollWidth > wrap.clientWidth + 1, inView, caseId: row.querySelector('td code').textContent };
  });
}

function assertColumns(c: Columns, where: string): void {
  assert.deepEqual(
    c.inView,
    { outcome: true, 'outcome (first row)': true, 'failure label': true, 'failure label (first row)': true },
    `${where}: outcome and failure label in view (cut off: ${c.cut.join(', ') || 'nothing'})`,
  );
  assert.match(c.caseId, /^[a-z0-9_]+__[0-9a-f]{24}$/, `${where}: the whole case id is shown`);
  if (c.overflow)
    assert.equal(
      c.cue,
      `↔ ${c.cut.length} more column${c.cut.length === 1 ? '' : 's'} to the right: scroll the table sideways`,
      `${where}: the cue names the columns out of sight (${c.cut.join(', ')})`,
    );
  else assert.equal(c.cue, null, `${where}: no cue when the table fits`);
}

describe('viewer readability with real-length case ids', { skip }, () => {
  const dir = skip ? '' : tempDir('revloop-view-readable-');
  let fx: LongIdStore;
  let viewer: ViewerHandle;
  let browser: Chromium | undefined;
  let base: string;
  const children: ChildProcess[] = [];

  before(async () => {
    fx = await buildLongIdStore(dir, { experiments: false });
    viewer = await startViewer({ store: fx.store, port: 0, bootstrap: 20, pollMs: 100 });
    base = `http://127.0.0.1:${viewer.port}`;
    browser = await launchChromium({ width: 1400, height: 1000 });
    await browser.context.route('**/*', (route) =>
      route
        .request()
        .url()
        .startsWith(base + '/')
        ? route.continue()
        : route.abort(),
    );
  });
  // Pages a failed test left open are closed (their event streams too) before the next test.
  const pages: Page[] = [];
  afterEach(async () => {
    for (const p of pages.splice(0)) if (!p.isClosed()) await p.close();
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await browser?.close();
    await viewer?.close();
  });

  async function open(path: string, width: number): Promise<{ page: Page; problems: string[] }> {
    const page = await browser!.context.newPage();
    pages.push(page);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.setViewportSize({ width, height: 1000 });
    await page.goto(base + path);
    await page.waitForSelector('html[data-ready="true"]');
    return { page, problems };
  }

  /** The timeline of one trajectory of a run, opened from the URL. */
  async function timeline(runId: string, caseIndex: number, width: number): Promise<Page> {
    const rows = (await (await fetch(`${base}/api/runs/${runId}/trajectories`)).json()) as {
      rows: Array<{ case_index: number; case_id: string }>;
    };
    const row = rows.rows.find((r) => r.case_index === caseIndex)!;
    const { page } = await open(`/runs/${runId}?case=${encodeURIComponent(row.case_id)}&ix=${caseIndex}`, width);
    await page.waitForSelector('#traj-detail .timeline');
    return page;
  }

  for (const width of WIDTHS) {
    test(`${width} px: a finished run's list keeps outcome and failure label in view; a cue names what scrolls`, async () => {
      const { page, problems } = await open('/runs/stubborn', width);
      await page.waitForSelector('#traj-rows tr[data-case]');
      assertColumns(await listColumns(page), `stubborn at ${width} px`);
      // With a trajectory open beside the list, too.
      await page.locator('#traj-rows tr[data-case]').first().click();
      await page.waitForSelector('#traj-detail .timeline');
      assertColumns(await listColumns(page), `stubborn with a timeline open at ${width} px`);
      assert.deepEqual(problems, []);
      await page.close();
    });

    test(`${width} px: the run list's ids are made of [A-Za-z0-9._:-] and carry no simulation mark`, async () => {
      const { page } = await open('/', width);
      await page.waitForSelector('#run-rows tr[data-run]');
      const ids = await page.locator('#run-rows tr[data-run] td:first-child').allInnerTexts();
      assert.ok(ids.includes('probe-toolshed-sim-steady'), ids.join(', '));
      assert.deepEqual(
        ids.filter((id) => !ID_CHARS.test(id) || /simulated|-sim$/.test(id)),
        [],
      );
      // The models beside them: each name once, its SIMULATED badge once, never "[simulated]".
      const models = await page.locator('#run-rows tr[data-run] td:nth-child(3)').allInnerTexts();
      assert.ok(
        models.some((m) => /^sim:stubborn\s+SIMULATED$/.test(m.trim())),
        models.join(' | '),
      );
      assert.deepEqual(
        models.filter((m) => /\[simulated\]/i.test(m)),
        [],
      );
    });

    test(`${width} px: a run being written by another process keeps them in view too`, async () => {
      const cases = join(dir, `live-${width}.jsonl`);
      const rows = Array.from({ length: 100 }, (_, i) => ({
        id: longId(1000 + i),
        family: 'exact-length',
        source: 'dolly_creative_writing',
        instruction: `Describe object number ${i} in a short paragraph.`,
        target: 20 + (i % 7),
        anchors: ['object'],
      }));
      writeFileSync(cases, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const runId = `live-${width}`;
      const { page } = await open(`/runs/${runId}`, width);
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
          runId,
          '--concurrency',
          '2',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], env: userEnv() },
      );
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      // The page was opened before the run existed: reload until it has advanced a fifth of the way.
      let done = 0;
      for (let i = 0; i < 600 && child.exitCode === null; i++) {
        await page.reload();
        await page.waitForSelector('html[data-ready="true"]');
        const text =
          (await page
            .locator('#run-progress')
            .textContent({ timeout: 500 })
            .catch(() => null)) ?? '';
        done = Number(/^(\d+) of 100/.exec(text)?.[1] ?? 0);
        if (done >= 20 && (await page.locator('#traj-rows tr[data-case]').count()) > 0) break;
        await page.waitForTimeout(200);
      }
      assert.ok(done >= 20 && done < 100, `caught the run part way (${done} of 100 finished): ${stderr}`);
      assertColumns(await listColumns(page), `${runId} at ${done}/100`);
      await new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(null)));
      assert.equal(child.exitCode, 0, stderr);
      await page.close();
    });

    test(`${width} px: the Analysis tab's tables that scroll sideways say how many columns are out of sight`, async () => {
      const { page } = await open('/runs/steady?tab=analysis', width);
      await page.waitForSelector('[data-analysis="ready"]', { timeout: 120_000 });
      const tables = await page.evaluate(() => {
        const d = (globalThis as any).document;
        return [...d.querySelectorAll('#analysis .table-wrap')].map((wrap: any) => {
          const box = wrap.getBoundingClientRect();
          const row = wrap.querySelector('thead tr:last-child') || wrap.querySelector('tr');
          const cut = [...row.children].filter((c: any) => c.getBoundingClientRect().right > box.right + 1).length;
          const prev = wrap.previousElementSibling;
          return {
            overflow: wrap.scrollWidth > wrap.clientWidth + 1,
            cut,
            cue: prev && prev.classList.contains('scroll-cue') ? prev.textContent : null,
            keyboard: wrap.getAttribute('tabindex'),
          };
        });
      });
      const over = tables.filter((t) => t.overflow);
      if (width === 900) assert.ok(over.length > 0, 'the six-family endpoint table is wider than 900 px');
      for (const t of over) {
        assert.equal(t.cue, `↔ ${t.cut} more column${t.cut === 1 ? '' : 's'} to the right: scroll the table sideways`);
        assert.equal(t.keyboard, '0', 'it scrolls with the keyboard');
      }
      for (const t of tables.filter((x) => !x.overflow)) assert.equal(t.cue, null);
      // Scrolled to its end, the endpoint table's cue says what is left of it.
      if (over.length) {
        await page
          .locator('#analysis .table-wrap.overflows')
          .first()
          .evaluate((w: any) => (w.scrollLeft = w.scrollWidth));
        await page.waitForFunction(() =>
          /to the left: scroll the table back$/.test(
            (globalThis as any).document.querySelector('#analysis .scroll-cue')?.textContent ?? '',
          ),
        );
      }
      await page.close();
    });

    test(`${width} px: energies read as the report shows them, the exact value on hover`, async () => {
      const { page } = await open('/runs/imported', width);
      await page.waitForSelector('#traj-rows tr[data-case]');
      const cells = await page.locator('#traj-rows tr[data-case]').evaluateAll((trs) =>
        trs.map((tr: any) => {
          const i = [...tr.closest('table').querySelectorAll('thead th')].findIndex((th: any) => th.textContent === 'final energy');
          const td = tr.children[i];
          return [td.textContent, td.getAttribute('title')];
        }),
      );
      const t = await timeline('imported', 1, width);
      const rounds = await t
        .locator('.round-head .muted')
        .evaluateAll((els) =>
          els.filter((e: any) => /^energy /.test(e.textContent)).map((e: any) => [e.textContent.slice(7), e.getAttribute('title')]),
        );
      const shown = [...cells, ...rounds];
      assert.ok(shown.length >= 6, JSON.stringify(shown));
      for (const [text, title] of shown) {
        const exact = Number(/^exact: (.+)$/.exec(title ?? '')?.[1]);
        assert.ok(Number.isFinite(exact), `${text}: the exact value on hover (${title})`);
        assert.equal(text, String(Number(exact.toPrecision(4))), `${exact} shown with 4 significant digits`);
      }
      assert.ok(
        shown.some(([, title]) => title!.length > 'exact: '.length + 8),
        'the fixture has energies longer than what is shown',
      );
      await t.close();
      await page.close();
    });

    test(`${width} px: an imported trajectory says what it is; a generated one says what was sent`, async () => {
      const page = await timeline('imported', 0, width);
      const text = await page.locator('#traj-detail').innerText();
      assert.match(text, /IMPORTED Imported trajectory \(import-jsonl\): its drafts are as logged by its source/);
      assert.match(text, /DRAFT \(IMPORTED, AS LOGGED BY ITS SOURCE\)/i);
      assert.match(text, /Initial prompt \(revloop’s rendering of this case; imported run: not sent by revloop\)/);
      assert.match(text, /VERIFIER REPORT — REVLOOP’S RENDERING OF THIS STATE \(IMPORTED: NOT SENT BY REVLOOP\)/i);
      assert.doesNotMatch(text, /exactly as sent/i);
      assert.doesNotMatch(text, /sent to the model/i);
      await page.close();
      const generated = await timeline('stubborn', 0, width);
      const other = await generated.locator('#traj-detail').innerText();
      assert.match(other, /Initial prompt \(exactly as sent\)/);
      assert.match(other, /sent to the model/i);
      assert.doesNotMatch(other, /imported/i);
      await generated.close();
    });

    test(`${width} px: an unclosed U+202E in one draft does not reverse the next draft in its diff`, async () => {
      const page = await timeline('imported', 0, width);
      const pre = page.locator('#traj-detail .round[data-revision="1"] pre.text');
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
});
