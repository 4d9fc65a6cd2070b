// Assembles the self-contained report page: inline CSS, inline SVG charts, the drill-down data
// embedded once as <script type="application/json">, and the inline client script. A strict
// Content-Security-Policy (default-src 'none', the style and script allowed by hash) makes the
// "no network" promise checkable: the browser refuses any request the page might try to make.
import { createHash } from 'node:crypto';
import { stylesheet } from '../html/stylesheet.ts';
import { browserScript } from '../html/bundle.ts';
import type { Section } from '../studies/kit/sections.ts';
import type { DrilldownPayload } from './payload.ts';
import { escapeHtml, jsonForScript } from '../html/escape.ts';
import { sectionHtml } from '../html/blocks.ts';
import { SIMULATED } from '../html/tables.ts';
import { formatCount } from '../core/util/count.ts';

let assets: { css: string; js: string } | null = null;
function loadAssets(): { css: string; js: string } {
  if (!assets) {
    const css = stylesheet();
    // The page's script: client/report.ts bundled (into dist/ by the build, or now when run from the sources).
    const js = browserScript(new URL('./client/report.js', import.meta.url));
    // Inlined verbatim, so it must not be able to close its own element (the stylesheet checks itself).
    if (/<\/script|<!--/i.test(js)) throw new Error('report assets must not contain </script or <!--');
    assets = { css, js };
  }
  return assets;
}

function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

function drilldownShell(payload: DrilldownPayload): string {
  const n = payload.trajectories.length;
  return `<div class="filters" role="search">
<label>controller<select id="f-controller"><option value="">all</option></select></label>
<label>family<select id="f-family"><option value="">all</option></select></label>
<label>outcome<select id="f-outcome"><option value="">all</option></select></label>
<label>repeat class<select id="f-repeat"><option value="">all</option></select></label>
<label>failure category<select id="f-category"><option value="">all</option></select></label>
<label>search<input id="f-search" type="search" placeholder="case id, run, source or draft text" autocomplete="off"></label>
<label class="check"><input id="f-drafts" type="checkbox" checked> search drafts</label>
<button type="button" class="action" id="f-reset">reset</button>
<span class="count" id="f-count" aria-live="polite">${formatCount(n)} trajectories</span>
</div>
<div class="table-wrap"><table class="trajectories"><thead><tr><th scope="col">case</th><th scope="col">controller</th><th scope="col">family</th><th scope="col">source</th><th scope="col">outcome</th><th scope="col">repeat class</th><th scope="col" class="num">revisions</th><th scope="col" class="num">final energy</th></tr></thead><tbody id="traj-rows"></tbody></table></div>
<p class="pager"><button type="button" class="action" id="traj-more" hidden>show more</button></p>
<div id="traj-detail" class="detail" hidden aria-live="polite"></div>
<noscript><p class="noscript">The trajectory browser needs JavaScript; every table and chart above works without it.</p></noscript>`;
}

/** A whole report page: sections from every study, and the trajectory browser where there are trajectories. */
export interface ReportPage {
  title: string;
  /** ISO timestamp shown in the header; omitted for byte-reproducible reports. */
  generatedAt?: string;
  /** Facts for the header line, e.g. "3 runs", "120 trajectories". */
  meta: string[];
  sections: Section[];
  /** The trajectory browser's data (null: no trajectories, no browser). */
  drilldown: DrilldownPayload | null;
  /** Footer notes (what was excluded, and why). */
  notes: string[];
  /** Shown first, in a banner: runs read although they disagree with their own events (--allow-unverified). */
  warnings?: string[];
}

const DRILLDOWN_LEAD =
  'Every trajectory with its drafts, word-level diffs between consecutive drafts and the exact verifier report the model received. Filter, search, then click a row.';

/** Renders the whole page. Pure: the same page gives the same bytes. */
export function renderReportPage(page: ReportPage): string {
  const { css, js } = loadAssets();
  const marks = page.sections.map((s) => s.simulated);
  const anySimulated = marks.some((m) => m !== 'none');
  const allSimulated = marks.length > 0 && marks.every((m) => m === 'all');
  const banner = anySimulated
    ? `<p class="banner" role="note"><span class="badge sim">${SIMULATED}</span> ${allSimulated ? 'Every controller in this report is simulated' : 'This report includes simulated controllers'} (marked ${SIMULATED} wherever their numbers appear). Numbers measured on a simulation are not a language model's behaviour.</p>`
    : '';
  const unverified = (page.warnings ?? []).map((w) => `<p class="banner" role="alert">${escapeHtml(w)}</p>`).join('');
  const meta = [page.generatedAt ? `generated ${escapeHtml(page.generatedAt)}` : '', ...page.meta.map(escapeHtml)]
    .filter(Boolean)
    .join(' · ');
  const drilldown = page.drilldown
    ? `<section id="drilldown" aria-labelledby="drilldown-h"><h2 id="drilldown-h">Trajectories</h2><p class="lead">${DRILLDOWN_LEAD}</p>${drilldownShell(page.drilldown)}</section>`
    : '';
  const body = [...page.sections.map(sectionHtml), drilldown].filter(Boolean).join('\n');
  const footer = `<footer><p>revloop report · self-contained (no network access; open the file directly in any browser) · print-friendly.</p>${page.notes.length ? `<ul>${page.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}</footer>`;
  const csp = `default-src 'none'; style-src ${cspHash(css)}; script-src ${cspHash(js)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const toc = [...page.sections.map((s) => [s.id, s.tocLabel ?? s.title]), ...(page.drilldown ? [['drilldown', 'Trajectories']] : [])]
    .map(([id, label]) => `<a href="#${escapeHtml(id)}">${escapeHtml(label)}</a>`)
    .join('');
  const data = page.drilldown ? `<script type="application/json" id="revloop-data">${jsonForScript(page.drilldown)}</script>\n` : '';

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="revloop">
<title>${escapeHtml(page.title)}</title>
<style>${css}</style>
</head>
<body>
<header class="top"><h1>${escapeHtml(page.title)}</h1><div class="meta">${meta}</div><nav class="toc" aria-label="Sections">${toc}</nav>${unverified}${banner}</header>
<main>
${body}
${footer}
</main>
${data}<script>${js}</script>
</body>
</html>
`;
}
