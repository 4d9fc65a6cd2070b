// HTML tables: runs, endpoint (controller × family), cumulative success by cap, budget replay.
// Simulated controllers carry a SIMULATED badge in every row that shows their numbers.
import type { AssaySummary, BudgetReplay, CurvePanel, EndpointTable, Proportion, RunInfo } from '../studies/kit/report-model.ts';
import { SIMULATED } from '../core/simulated.ts';
import { escapeHtml } from './escape.ts';
import { pct, pctInterval, shownName } from './format.ts';
import { formatMeanSd } from '../core/stats/summary.ts';

export { SIMULATED };
/** The SIMULATED mark next to a controller whose numbers are shown. */
export const simBadge = `<span class="badge sim" title="Simulated controller: these numbers are not a model's behaviour">${SIMULATED}</span>`;

function controllerCell(name: string, simulated: boolean): string {
  return `<th scope="row" class="ctl-cell"><span class="ctl">${escapeHtml(shownName(name, simulated))}</span>${simulated ? ' ' + simBadge : ''}</th>`;
}

function rateCell(p: Proportion): string {
  const ci = pctInterval(p.lo, p.hi);
  const title = `${p.k} of ${p.n}${ci ? `; 95% CI ${ci}%` : ''}`;
  return `<td class="num" title="${escapeHtml(title)}">${pct(p.rate)}${ci ? `<span class="ci">${ci}</span>` : ''}</td>`;
}

export function runsTable(runs: RunInfo[]): string {
  if (!runs.length) return '<p class="empty">No runs.</p>';
  const rows = runs
    .map((r) => {
      const details = r.details
        ? Object.entries(r.details)
            .map(([k, v]) => `<span class="kv"><span class="k">${escapeHtml(k)}</span> ${escapeHtml(v)}</span>`)
            .join(' ')
        : '';
      return `<tr><td><code>${escapeHtml(r.runId)}</code></td>${controllerCell(r.controller, r.simulated)}<td>${escapeHtml(r.families.join(', '))}</td><td class="num">${r.budget}</td><td class="num">${r.trajectories}</td><td class="num">${r.incomplete}</td><td class="details">${details}</td></tr>`;
    })
    .join('');
  return `<div class="table-wrap"><table class="runs"><thead><tr><th scope="col">run</th><th scope="col">controller</th><th scope="col">families</th><th scope="col" class="num">budget T</th><th scope="col" class="num">trajectories</th><th scope="col" class="num">incomplete</th><th scope="col">details</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function endpointTable(t: EndpointTable): string {
  if (!t.rows.length) return '<p class="empty">No complete trajectories.</p>';
  const famHead = t.families.map((f) => `<th scope="colgroup" colspan="3" class="fam">${escapeHtml(f)}</th>`).join('');
  const subHead = t.families
    .map(() => '<th scope="col" class="num">n</th><th scope="col" class="num">initial %</th><th scope="col" class="num">final %</th>')
    .join('');
  let anyExcluded = false;
  let anyPaired = false;
  const body = t.rows
    .map((r) => {
      const cells = r.cells
        .map((c) => {
          if (!c) return '<td class="num na" colspan="3">–</td>';
          const marks = (c.excluded ? '<sup>*</sup>' : '') + (c.pairedN !== undefined ? '<sup>†</sup>' : '');
          anyExcluded ||= c.excluded > 0;
          anyPaired ||= c.pairedN !== undefined;
          const title = [
            c.excluded ? `${c.excluded} protocol-incomplete or pending excluded` : '',
            c.pairedN !== undefined ? `intervals on the ${c.pairedN} cases common to the panel` : '',
          ]
            .filter(Boolean)
            .join('; ');
          return `<td class="num n"${title ? ` title="${escapeHtml(title)}"` : ''}>${c.n}${marks}</td>${rateCell(c.initial)}${rateCell(c.final)}`;
        })
        .join('');
      return `<tr${r.simulated ? ' class="simulated"' : ''}>${controllerCell(r.controller, r.simulated)}${cells}</tr>`;
    })
    .join('');
  const notes = [
    `Joint success (%) of the first draft (initial) and at the end of the budget (final), over protocol-complete trajectories; small figures are 95% intervals (${escapeHtml(t.intervalNote)}).`,
    anyExcluded ? '<sup>*</sup> protocol-incomplete or pending trajectories are excluded from n (hover for the count).' : '',
    anyPaired
      ? '<sup>†</sup> intervals are bootstrapped on the cases every controller of the panel completed (hover for their number).'
      : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `<div class="table-wrap"><table class="endpoint"><thead><tr><th scope="col" rowspan="2">controller</th>${famHead}</tr><tr>${subHead}</tr></thead><tbody>${body}</tbody></table></div><p class="note">${notes}</p>`;
}

/** Tables 1 and 10: final success per assay with mean ± SD across assays and panel means. */
export function assaySummaryTable(s: AssaySummary): string {
  if (!s.rows.length) return '';
  const head = s.assays.map((a) => `<th scope="col" class="num">${escapeHtml(a)}</th>`).join('');
  const showPanel = new Set(s.rows.map((r) => r.panel)).size > 1;
  const rows = s.rows
    .map(
      (r) =>
        `<tr${r.simulated ? ' class="simulated"' : ''}>${controllerCell(r.controller, r.simulated)}${showPanel ? `<td>${escapeHtml(r.panel)}</td>` : ''}${r.final.map((v) => `<td class="num">${pct(v)}</td>`).join('')}<td class="num summary">${formatMeanSd(r.mean, r.sd, pct)}</td></tr>`,
    )
    .join('');
  const panels = s.panels
    .map((p) => {
      const tag =
        p.simulated === 'all'
          ? ' ' + simBadge
          : p.simulated === 'some'
            ? ` <span class="badge sim" title="This mean includes simulated controllers">includes ${SIMULATED}</span>`
            : '';
      return `<tr class="panel"><th scope="row">${escapeHtml(p.label)} mean <span class="muted">(n = ${p.controllers})</span>${tag}</th>${showPanel ? '<td></td>' : ''}${p.final.map((v) => `<td class="num">${pct(v)}</td>`).join('')}<td class="num summary">${formatMeanSd(p.mean, p.sd, pct)}</td></tr>`;
    })
    .join('');
  const range = s.range.some((r) => r)
    ? `<tr class="panel range"><th scope="row">range across controllers</th>${showPanel ? '<td></td>' : ''}${s.range.map((r) => `<td class="num">${r ? `${pct(r.min)}–${pct(r.max)}` : '–'}</td>`).join('')}<td></td></tr>`
    : '';
  return `<div class="table-wrap"><table class="summary-table"><thead><tr><th scope="col">controller</th>${showPanel ? '<th scope="col">panel</th>' : ''}${head}<th scope="col" class="num">mean ± SD</th></tr></thead><tbody>${rows}</tbody><tbody class="panels">${panels}${range}</tbody></table></div><p class="note">${escapeHtml(s.note)}</p>`;
}

/** Cumulative success by cap for one family: the numbers behind its curve. */
export function cumulativeTable(panel: CurvePanel): string {
  const head = panel.caps.map((c) => `<th scope="col" class="num">${c}</th>`).join('');
  const rows = panel.series
    .map(
      (s) =>
        `<tr>${controllerCell(s.controller, s.simulated)}<td class="num">${s.n}</td>${s.rates.map((v) => `<td class="num">${pct(v)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<div class="table-wrap"><table class="cumulative"><caption>${escapeHtml(panel.family)}: cumulative joint success (%) by revision cap</caption><thead><tr><th scope="col">controller</th><th scope="col" class="num">n</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

function simTag(share: 'none' | 'some' | 'all'): string {
  return share === 'all'
    ? ' ' + simBadge
    : share === 'some'
      ? ` <span class="badge sim" title="Includes simulated controllers">includes ${SIMULATED}</span>`
      : '';
}

export function budgetTable(b: BudgetReplay): string {
  if (!b.rows.length || !b.cells.length)
    return '<p class="empty">No budget replay (no complete exact-length, lexical or compositional trajectories).</p>';
  // No panel, no simulated numbers: `every` over an empty list would say 'all'.
  const overall: 'none' | 'some' | 'all' = !b.panelSimulated.length
    ? 'none'
    : b.panelSimulated.every((s) => s === 'all')
      ? 'all'
      : b.panelSimulated.some((s) => s !== 'none')
        ? 'some'
        : 'none';
  // A panel whose controllers share fewer than two assays can never reverse: no column for it.
  const shown = b.panels.map((_, i) => b.rows.some((r) => (r.reversals[i]?.pairs ?? 0) > 0));
  const panelHead = b.panels
    .map((p, i) =>
      shown[i] ? `<th scope="col" class="num">reversing pairs: ${escapeHtml(p)}${simTag(b.panelSimulated[i] ?? 'none')}</th>` : '',
    )
    .join('');
  const hidden = b.panels.filter((_, i) => !shown[i]);
  const why = hidden.length
    ? ` No reversal count${shown.some(Boolean) ? ` for panel${hidden.length === 1 ? '' : 's'} ${hidden.join(', ')}` : ''}: a pair of controllers can only reverse across two assays or more, and ${b.assays.length < 2 ? `this report has one (${b.assays.join(', ') || 'none'})` : 'no pair there has rates on two'}.`
    : '';
  const rows = b.rows
    .map((r) => {
      const rev = r.reversals
        .map((x, i) => (shown[i] ? `<td class="num">${x.pairs ? `${x.reversing}/${x.pairs}` : '–'}</td>` : ''))
        .join('');
      const range = r.minCell == null || r.maxCell == null ? '–' : `${pct(r.minCell)}–${pct(r.maxCell)}%`;
      return `<tr><th scope="row" class="num">${r.cap}</th><td class="num">${r.medianCell == null ? '–' : pct(r.medianCell) + '%'}</td><td class="num">${range}</td>${rev}</tr>`;
    })
    .join('');
  const summary = `<div class="table-wrap"><table class="budget"><thead><tr><th scope="col" class="num">revision cap</th><th scope="col" class="num">median cell success${simTag(overall)}</th><th scope="col" class="num">cell range</th>${panelHead}</tr></thead><tbody>${rows}</tbody></table></div><p class="note">${escapeHtml(b.note + why)}</p>`;
  return summary + budgetCellsTable(b);
}

/** Success by cap for every controller × assay cell of the replay (paper Tables 5–7). */
function budgetCellsTable(b: BudgetReplay): string {
  if (!b.cells.length) return '';
  const head = b.caps.map((c) => `<th scope="col" class="num">${c}</th>`).join('');
  const groups = b.assays
    .map((assay) => {
      const cells = b.cells.filter((c) => c.assay === assay);
      if (!cells.length) return '';
      const rows = cells
        .map(
          (c) =>
            `<tr>${controllerCell(c.controller, c.simulated)}<td class="num">${c.evaluable}</td>${c.rates.map((v) => `<td class="num">${pct(v)}</td>`).join('')}</tr>`,
        )
        .join('');
      return `<div class="table-wrap"><table class="budget-cells"><caption>${escapeHtml(assay)}: success (%) by revision cap on the panel's common case set</caption><thead><tr><th scope="col">controller</th><th scope="col" class="num">cases</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
    })
    .join('');
  return `<details class="more"><summary>Success by cap for every controller and family</summary>${groups}</details>`;
}
