// Assembles the self-contained report page: inline CSS, inline SVG charts, the drill-down data
// embedded once as <script type="application/json">, and the inline client script. A strict
// Content-Security-Policy (default-src 'none', the style and script allowed by hash) makes the
// "no network" promise checkable: the browser refuses any request the page might try to make.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { ReportModel } from '../studies/kit/report-model.ts';
import type { DrilldownPayload } from './payload.ts';
import { escapeHtml, jsonForScript } from './escape.ts';
import { compositionHtml, curveChartSvg, legendSwatch } from './charts.ts';
import { shownName } from './format.ts';
import { assaySummaryTable, budgetTable, cumulativeTable, endpointTable, runsTable, SIMULATED } from './tables.ts';

let assets: { css: string; js: string } | null = null;
function loadAssets(): { css: string; js: string } {
  if (!assets) {
    const css = readFileSync(new URL('./assets/report.css', import.meta.url), 'utf8');
    const js = readFileSync(new URL('./assets/report.js', import.meta.url), 'utf8');
    // Inlined verbatim, so they must not be able to close their own element.
    if (/<\/style/i.test(css) || /<\/script|<!--/i.test(js)) throw new Error('report assets must not contain </style, </script or <!--');
    assets = { css, js };
  }
  return assets;
}

function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

function section(id: string, title: string, lead: string, body: string): string {
  return `<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h">${escapeHtml(title)}</h2>${lead ? `<p class="lead">${lead}</p>` : ''}${body}</section>`;
}

function controllerLegend(model: ReportModel): string {
  const items = model.controllers
    .map(
      (c, i) =>
        `<li><button type="button" data-focus-controller="${escapeHtml(c.name)}" aria-pressed="false" title="Highlight ${escapeHtml(c.name)} in every chart">${legendSwatch(i)}<span>${escapeHtml(shownName(c.name, c.simulated))}</span>${c.simulated ? ` <span class="badge sim">${SIMULATED}</span>` : ''}</button></li>`,
    )
    .join('');
  return `<ul class="legend controllers" aria-label="Controllers (click to highlight)">${items}<li><button type="button" id="clear-focus" class="no-print">clear highlight</button></li></ul>`;
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
<span class="count" id="f-count" aria-live="polite">${n.toLocaleString('en')} trajectories</span>
</div>
<div class="table-wrap"><table class="trajectories"><thead><tr><th scope="col">case</th><th scope="col">controller</th><th scope="col">family</th><th scope="col">source</th><th scope="col">outcome</th><th scope="col">repeat class</th><th scope="col" class="num">revisions</th><th scope="col" class="num">final energy</th></tr></thead><tbody id="traj-rows"></tbody></table></div>
<p class="pager"><button type="button" class="action" id="traj-more" hidden>show more</button></p>
<div id="traj-detail" class="detail" hidden aria-live="polite"></div>
<noscript><p class="noscript">The trajectory browser needs JavaScript; every table and chart above works without it.</p></noscript>`;
}

/** A section contributed from outside the report module (`lead` and `html` are trusted, already-escaped HTML). */
export interface ExtraSection {
  id: string;
  title: string;
  lead: string;
  html: string;
}

/** Renders the whole page. Pure: the same model and payload give the same bytes. */
export function renderReportHtml(model: ReportModel, payload: DrilldownPayload, extraSections: readonly ExtraSection[] = []): string {
  const { css, js } = loadAssets();
  const anySimulated = model.controllers.some((c) => c.simulated);
  const allSimulated = model.controllers.length > 0 && model.controllers.every((c) => c.simulated);
  const styleIndex = new Map(model.controllers.map((c, i) => [c.name, i]));
  const nTraj = payload.trajectories.length;

  const banner = anySimulated
    ? `<p class="banner" role="note"><span class="badge sim">${SIMULATED}</span> ${allSimulated ? 'Every controller in this report is simulated' : 'This report includes simulated controllers'} (marked ${SIMULATED} wherever their numbers appear). Numbers measured on a simulation are not a language model's behaviour.</p>`
    : '';
  const meta = [
    model.generatedAt ? `generated ${escapeHtml(model.generatedAt)}` : '',
    `${model.runs.length} run${model.runs.length === 1 ? '' : 's'}`,
    `${model.controllers.length} controller${model.controllers.length === 1 ? '' : 's'}`,
    `${nTraj.toLocaleString('en')} trajectories`,
  ]
    .filter(Boolean)
    .join(' · ');

  const curves = model.curves.length
    ? `${controllerLegend(model)}<div class="charts">${model.curves.map((p, i) => curveChartSvg(p, { styleIndex, idPrefix: `curve-${i}` })).join('')}</div><details class="more"><summary>Numbers behind the curves</summary>${model.curves.map(cumulativeTable).join('')}</details>`
    : '<p class="empty">No complete trajectories to plot.</p>';

  const composition = model.composition.length
    ? model.composition.map((c, i) => compositionHtml(c, { id: `composition-${i}` })).join('')
    : '<p class="empty">No failures to classify.</p>';

  const body = [
    section(
      'runs',
      'Runs',
      "The runs this report covers. Controller = the run's model label (or an imported trajectory's controller).",
      runsTable(model.runs),
    ),
    section(
      'endpoint',
      'Endpoint: joint success by controller and family',
      '',
      endpointTable(model.endpoint) +
        (model.summary.rows.length ? `<h3>Across constraint families</h3>${assaySummaryTable(model.summary)}` : ''),
    ),
    section(
      'curves',
      'Cumulative success by revision cap',
      'Share of trajectories that reached joint success by each revision cap (cap 0 = the first draft). Because the loop stops at the first success, capping a finished run at k replays a budget of k revisions exactly.',
      curves,
    ),
    section(
      'failures',
      'Failure composition',
      "Among failed trajectories only: how the final drafts relate to earlier ones (state = exact text), and for exact length the seven failure categories. Bars are normalised by each controller's failures in that family.",
      composition,
    ),
    section(
      'budget',
      'Budget replay',
      'Success at every revision cap and how often controller rankings reverse across constraint families at that cap.',
      budgetTable(model.budget),
    ),
    section(
      'drilldown',
      'Trajectories',
      'Every trajectory with its drafts, word-level diffs between consecutive drafts and the exact verifier report the model received. Filter, search, then click a row.',
      drilldownShell(payload),
    ),
    ...extraSections.map((x) => section(x.id, x.title, x.lead, x.html)),
  ].join('\n');

  const footer = `<footer><p>revloop report · self-contained (no network access; open the file directly in any browser) · print-friendly.</p>${model.notes.length ? `<ul>${model.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}</footer>`;
  const csp = `default-src 'none'; style-src ${cspHash(css)}; script-src ${cspHash(js)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const toc = [
    ['runs', 'Runs'],
    ['endpoint', 'Endpoint'],
    ['curves', 'Curves'],
    ['failures', 'Failures'],
    ['budget', 'Budget replay'],
    ['drilldown', 'Trajectories'],
    ...extraSections.map((x) => [x.id, x.title]),
  ]
    .map(([id, label]) => `<a href="#${id}">${label}</a>`)
    .join('');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="revloop">
<title>${escapeHtml(model.title)}</title>
<style>${css}</style>
</head>
<body>
<header class="top"><h1>${escapeHtml(model.title)}</h1><div class="meta">${meta}</div><nav class="toc" aria-label="Sections">${toc}</nav>${banner}</header>
<main>
${body}
${footer}
</main>
<script type="application/json" id="revloop-data">${jsonForScript(payload)}</script>
<script>${js}</script>
</body>
</html>
`;
}
