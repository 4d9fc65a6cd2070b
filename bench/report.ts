// Benchmark: the HTML report on the paper's panel size — 27,360 SIMULATED trajectories (19
// controllers × 1,440 cases) with realistic draft lengths (~150 words) and verifier reports.
//   npx tsx bench/report.ts [--controllers N] [--no-browser] [--out FILE]
// Prints the time to build the drill-down data (word diffs included) and to render the page, the
// file size, and — when /usr/bin/chromium exists — the time Chromium takes to load the page, filter
// it and open one trajectory. Every trajectory is simulated; nothing here describes a model.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { analyzeTrajectories } from '../src/studies/revision/analysis/analyze-trajectories.ts';
import { paperShapedControllers, syntheticTrajectories } from '../src/studies/revision/synthetic.ts';
import { renderReportPage, revisionReportPage, writeReportFile } from '../src/report/index.ts';
import { getFamily } from '../src/core/verify/index.ts';
import type { TrajectoryRecord } from '../src/store/types.ts';
import { chromiumMissing, launchChromium } from '../test/chromium.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const nControllers = Number(arg('--controllers') ?? 19);
const browser = !process.argv.includes('--no-browser') && !chromiumMissing;
const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-report-'));
const out = arg('--out') ?? join(dir, 'report.html');
const ms = (a: number, b: number) => `${((b - a) / 1000).toFixed(2)} s`;

// Deterministic ~150-word drafts: each case has a base paragraph; each distinct synthetic draft
// edits a few words of it, so consecutive drafts differ like real revisions (repeats stay identical).
const VOCAB =
  'the a of to and in that it with as for on was by at from this which but be are or an not have had were they their its one all there when so more can what into some only other than then also about after over most time'.split(
    ' ',
  );
function hash32(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
function draftFor(caseId: string, syntheticText: string): string {
  const base = hash32(caseId);
  const words = Array.from({ length: 150 }, (_, i) => VOCAB[(base + i * 7919) % VOCAB.length]);
  let h = hash32(syntheticText);
  for (let k = 0; k < 6; k++) {
    words[h % words.length] = `edit${h % 97}`;
    h = Math.imul(h, 2654435761) >>> 0;
  }
  return words.join(' ').replace(/(^\w|\. \w)/g, (m) => m.toUpperCase()) + '.';
}
function realistic(ts: TrajectoryRecord[]): TrajectoryRecord[] {
  return ts.map((t) => ({
    ...t,
    rounds: t.rounds.map((r, i) => ({
      ...r,
      text: draftFor(t.caseId, r.text),
      // Structured synthetic states lack the reference fields, so give every sent round a report of realistic size.
      feedback:
        r.joint || i + 1 === t.rounds.length
          ? null
          : `DETERMINISTIC VERIFIER REPORT\n- total words: observed=${140 + (i % 20)}, target=150, residual(observed-target)=${(i % 20) - 10}\n- word 4: target='alpha', observed='beta', correct=false\nRevise the complete previous response so every reported constraint is satisfied. Return only the revised text, with no analysis, count, or commentary.`,
    })),
  }));
}

const t0 = performance.now();
const trajectories = realistic(
  syntheticTrajectories({ controllers: paperShapedControllers().slice(0, nControllers), seed: 1, incompleteRate: 0.0005 }),
);
const rounds = await trajectories.reduce((a, t) => a + t.rounds.length, 0);
const t1 = performance.now();
const analysis = analyzeTrajectories(trajectories, { bootstrap: 0 });
const t2 = performance.now();
const page = revisionReportPage(trajectories, analysis, { getFamily, title: 'Benchmark (SIMULATED)' });
const t3 = performance.now();
const html = renderReportPage(page);
const t4 = performance.now();
writeReportFile(out, html);
console.log(
  `trajectories: ${trajectories.length.toLocaleString('en')} (${rounds.toLocaleString('en')} rounds, all SIMULATED), controllers: ${nControllers}`,
);
console.log(`generate synthetic set:       ${ms(t0, t1)}`);
console.log(`analysis (bootstrap 0):       ${ms(t1, t2)}`);
console.log(`drill-down data + diffs:      ${ms(t2, t3)}  (${page.drilldown!.strings.length.toLocaleString('en')} distinct strings)`);
console.log(`render HTML:                  ${ms(t3, t4)}`);
console.log(`file size:                    ${(statSync(out).size / 1e6).toFixed(1)} MB  (${out})`);

if (browser) {
  const chromium = await launchChromium();
  const context = chromium.context;
  const page = await context.newPage();
  const b0 = performance.now();
  await page.goto(pathToFileURL(out).href);
  await page.waitForSelector('html[data-report-ready="true"]', { timeout: 120_000 });
  const b1 = performance.now();
  await page.selectOption('#f-outcome', 'failure');
  const b2 = performance.now();
  await page.fill('#f-search', 'edit42');
  await page.waitForFunction(() => /matching/.test(String((globalThis as any).document.getElementById('f-count').textContent)));
  await page.waitForTimeout(200);
  const b3 = performance.now();
  await page.locator('#traj-rows tr').first().click();
  await page.waitForSelector('#traj-detail .round');
  const b4 = performance.now();
  console.log(
    `chromium: load to ready ${ms(b0, b1)}, outcome filter ${ms(b1, b2)}, draft search (incl. 150 ms debounce + 200 ms wait) ${ms(b2, b3)}, open a trajectory ${ms(b3, b4)}`,
  );
  console.log(`chromium: ${await page.locator('#f-count').innerText()}`);
  await chromium.close();
}
if (!arg('--out')) rmSync(dir, { recursive: true, force: true });
