// Sections of typed blocks (src/studies/kit/sections.ts) to HTML. Every text is escaped here; a
// study never writes markup. The specialised blocks reuse the report's tables and charts.
import type { Block, Cell, DataTable, NumberCell, ResponsePanel, Section } from '../studies/kit/sections.ts';
import { compositionHtml, curveChart, legendSwatch, responseChartSvg } from './charts.ts';
import { escapeHtml } from './escape.ts';
import { shownName } from './format.ts';
import { assaySummaryTable, budgetTable, cumulativeTable, endpointTable, runsTable, SIMULATED, simBadge } from './tables.ts';
import type { ControllerInfo } from '../studies/kit/report-model.ts';

function isNumberCell(c: Cell): c is NumberCell {
  return typeof c === 'object' && c !== null;
}

function fixed(x: number | null | undefined, digits: number, percent: boolean): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const v = percent ? 100 * x : x;
  return (Object.is(v, -0) ? 0 : v).toFixed(digits);
}

function cellHtml(c: Cell, numeric: boolean): string {
  const cls = numeric ? ' class="num"' : '';
  if (c === null || c === undefined) return `<td class="num na">–</td>`;
  if (typeof c === 'string') return `<td${cls}>${escapeHtml(c)}</td>`;
  if (typeof c === 'number') return `<td${cls}>${escapeHtml(String(c))}</td>`;
  const digits = c.digits ?? 2;
  const pct = c.percent ?? false;
  const ci = c.lo !== undefined || c.hi !== undefined ? ` <small>[${fixed(c.lo, digits, pct)}, ${fixed(c.hi, digits, pct)}]</small>` : '';
  const title = c.title ? ` title="${escapeHtml(c.title)}"` : '';
  if (c.value === null || !Number.isFinite(c.value)) return `<td class="num na"${title}>–</td>`;
  return `<td class="num"${title}>${fixed(c.value, digits, pct)}${ci}</td>`;
}

/** A generic table: the first column names the row (a controller, usually) and carries the SIMULATED mark. */
export function dataTableHtml(t: DataTable): string {
  const head = t.columns
    .map(
      (c) =>
        `<th scope="col"${c.numeric ? ' class="num"' : ''}${c.title ? ` title="${escapeHtml(c.title)}"` : ''}>${escapeHtml(c.label)}</th>`,
    )
    .join('');
  const rows = t.rows
    .map((r) => {
      const cells = r.cells.map((c, i) => {
        if (i > 0) return cellHtml(c, t.columns[i]?.numeric ?? isNumberCell(c));
        const text = c === null || c === undefined ? '' : isNumberCell(c) ? String(c.value ?? '') : String(c);
        return `<td>${escapeHtml(r.simulated ? shownName(text, true) : text)}${r.simulated ? ' ' + simBadge : ''}</td>`;
      });
      return `<tr${r.simulated ? ' class="simulated"' : ''}>${cells.join('')}</tr>`;
    })
    .join('');
  const caption = t.caption ? `<h3>${escapeHtml(t.caption)}</h3>` : '';
  const note = t.note ? `<p class="note">${escapeHtml(t.note)}</p>` : '';
  return `${caption}<div class="table-wrap"><table class="data"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>${note}`;
}

function controllerLegend(controllers: readonly ControllerInfo[]): string {
  const items = controllers
    .map(
      (c, i) =>
        `<li><button type="button" data-focus-controller="${escapeHtml(c.name)}" aria-pressed="false" title="Highlight ${escapeHtml(c.name)} in every chart">${legendSwatch(i)}<span>${escapeHtml(shownName(c.name, c.simulated))}</span>${c.simulated ? ` <span class="badge sim">${SIMULATED}</span>` : ''}</button></li>`,
    )
    .join('');
  return `<ul class="legend controllers" aria-label="Controllers (click to highlight)">${items}<li><button type="button" id="clear-focus" class="no-print">clear highlight</button></li></ul>`;
}

/** The series of response charts, with their styles and SIMULATED marks. */
function responseLegend(panels: readonly ResponsePanel[]): string {
  const names = new Map<string, boolean>();
  for (const p of panels) p.series.forEach((s) => names.set(s.name, s.simulated));
  const items = [...names]
    .map(
      ([name, simulated], i) =>
        `<li>${legendSwatch(i)}<span>${escapeHtml(shownName(name, simulated))}</span>${simulated ? ` <span class="badge sim">${SIMULATED}</span>` : ''}</li>`,
    )
    .join('');
  return `<ul class="legend" aria-label="Series">${items}<li><svg class="swatch" width="30" height="12" viewBox="0 0 30 12" aria-hidden="true"><path class="identity" d="M1 6H29" stroke-dasharray="4 3"/></svg><span>ideal (y = x)</span></li></ul>`;
}

export function blockHtml(b: Block, idPrefix: string): string {
  switch (b.kind) {
    case 'heading':
      return `<h3>${escapeHtml(b.text)}</h3>`;
    case 'text':
      return `<p class="${b.tone === 'empty' ? 'empty' : 'note'}">${escapeHtml(b.text)}</p>`;
    case 'table':
      return dataTableHtml(b.table);
    case 'runs':
      return runsTable(b.runs);
    case 'endpoint':
      return (
        endpointTable(b.endpoint) + (b.summary?.rows.length ? `<h3>Across constraint families</h3>${assaySummaryTable(b.summary)}` : '')
      );
    case 'curves': {
      if (!b.panels.length) return '<p class="empty">No complete trajectories to plot.</p>';
      const styleIndex = new Map(b.controllers.map((c, i) => [c.name, i]));
      const spreadNote = (charts: Array<{ spread: boolean }>) =>
        charts.some((c) => c.spread)
          ? '<p class="note chart-note">Lines with equal or nearly equal values are drawn side by side, a few pixels apart, so none hides another; the numbers and tooltips are exact.</p>'
          : '';
      if (b.panels.length === 1) {
        // One family: one larger chart with its numbers beside it, not a small multiple on an empty page.
        const chart = curveChart(b.panels[0], { styleIndex, idPrefix: `${idPrefix}-0`, width: 520, height: 320 });
        return `${controllerLegend(b.controllers)}<div class="charts single">${chart.svg}<div class="numbers">${cumulativeTable(b.panels[0])}</div></div>${spreadNote([chart])}`;
      }
      const charts = b.panels.map((p, i) => curveChart(p, { styleIndex, idPrefix: `${idPrefix}-${i}` }));
      return `${controllerLegend(b.controllers)}<div class="charts">${charts.map((c) => c.svg).join('')}</div>${spreadNote(charts)}<details class="more"><summary>Numbers behind the curves</summary>${b.panels.map(cumulativeTable).join('')}</details>`;
    }
    case 'composition':
      return b.charts.length
        ? b.charts.map((c, i) => compositionHtml(c, { id: `${idPrefix}-${i}` })).join('')
        : '<p class="empty">No failures to classify.</p>';
    case 'budget-replay':
      return budgetTable(b.replay);
    case 'response-curves':
      return b.panels.length
        ? `<div class="charts">${b.panels.map((p, i) => responseChartSvg(p, { idPrefix: `${idPrefix}-${i}` })).join('')}</div>${responseLegend(b.panels)}`
        : '<p class="empty">No responses to plot.</p>';
  }
}

/** One section element: its heading, lead paragraph and blocks. */
export function sectionHtml(s: Section): string {
  const lead = s.lead ? `<p class="lead">${escapeHtml(s.lead)}</p>` : '';
  const blocks = s.blocks.map((b, i) => blockHtml(b, `${s.id}-${i}`)).join('');
  return `<section id="${escapeHtml(s.id)}" aria-labelledby="${escapeHtml(s.id)}-h"><h2 id="${escapeHtml(s.id)}-h">${escapeHtml(s.title)}</h2>${lead}${blocks}</section>`;
}
