// Hand-written SVG charts: cumulative-success curves (small multiples, one line per controller)
// and failure-composition bars. Colours come from CSS variables (colour-blind-safe palettes with
// light and dark values), and each controller also gets its own dash pattern and marker shape, so
// lines stay distinguishable in greyscale print and beyond the palette's seven colours.
import type { CompositionChart, CurvePanel } from '../studies/kit/report-model.ts';
import type { ResponsePanel } from '../studies/kit/sections.ts';
import { escapeHtml } from './escape.ts';
import { coord, pct, shownName } from './format.ts';

const PALETTE_SIZE = 7;
const DASHES = ['', '6 3', '2 3', '8 3 2 3'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond'] as const;

/** Visual identity of the i-th controller: colour class, dash pattern, marker. */
function seriesStyle(i: number): { colour: string; dash: string; marker: (typeof MARKERS)[number] } {
  const cycle = Math.floor(i / PALETTE_SIZE);
  return { colour: `c${i % PALETTE_SIZE}`, dash: DASHES[cycle % DASHES.length], marker: MARKERS[(i + cycle) % MARKERS.length] };
}

function markerPath(kind: (typeof MARKERS)[number], x: number, y: number, r: number): string {
  switch (kind) {
    case 'circle':
      return `M${coord(x - r)} ${coord(y)}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0Z`;
    case 'square':
      return `M${coord(x - r)} ${coord(y - r)}h${2 * r}v${2 * r}h${-2 * r}Z`;
    case 'triangle':
      return `M${coord(x)} ${coord(y - r * 1.2)}L${coord(x + r * 1.1)} ${coord(y + r * 0.8)}L${coord(x - r * 1.1)} ${coord(y + r * 0.8)}Z`;
    case 'diamond':
      return `M${coord(x)} ${coord(y - r * 1.3)}L${coord(x + r * 1.1)} ${coord(y)}L${coord(x)} ${coord(y + r * 1.3)}L${coord(x - r * 1.1)} ${coord(y)}Z`;
  }
}

/** A legend swatch (line + marker) for controller style i. */
export function legendSwatch(i: number): string {
  const s = seriesStyle(i);
  const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : '';
  return `<svg class="swatch" width="30" height="12" viewBox="0 0 30 12" aria-hidden="true"><g class="series ${s.colour}"><path class="line" d="M1 6H29"${dash}/><path class="mark" d="${markerPath(s.marker, 15, 6, 3.2)}"/></g></svg>`;
}

interface CurveChartOptions {
  width?: number;
  height?: number;
  /** Index of each controller name into the report's controller list (for consistent styles). */
  styleIndex: Map<string, number>;
  simulatedLabel?: string;
  /** Unique element-id prefix for this chart. */
  idPrefix: string;
}

/** Smallest vertical distance (px) between two series' points at one cap: no marker (3.9 px from its centre, 4.5 with its outline) covers another's centre. */
const DODGE = 5;

/**
 * Per series and cap, the y (px) to draw its point at: its value's, unless points of several series
 * at that cap would lie closer than DODGE pixels (two history arms with identical curves, say),
 * in which case that cluster is spread DODGE apart around its mean, in the values' order (ties:
 * series order), so no line hides another. `moved` says whether any point left its value's y.
 */
function placePoints(panel: CurvePanel, y: (v: number) => number): { at: Array<Array<number | null>>; moved: boolean } {
  const at = panel.series.map(() => panel.caps.map((): number | null => null));
  let moved = false;
  panel.caps.forEach((_, i) => {
    const points = panel.series
      .map((s, k) => ({ k, y: s.rates[i] }))
      .filter((p): p is { k: number; y: number } => p.y != null && Number.isFinite(p.y))
      .map((p) => ({ k: p.k, y: y(p.y) }))
      .sort((a, b) => a.y - b.y || a.k - b.k);
    // Clusters of points, each laid out DODGE apart around its members' mean; merged while two overlap.
    let clusters = points.map((p) => ({ members: [p], centre: p.y }));
    const top = (c: (typeof clusters)[number]) => c.centre - ((c.members.length - 1) / 2) * DODGE;
    const bottom = (c: (typeof clusters)[number]) => c.centre + ((c.members.length - 1) / 2) * DODGE;
    for (let merged = true; merged;) {
      merged = false;
      for (let j = 0; j + 1 < clusters.length; j++) {
        const [a, b] = [clusters[j], clusters[j + 1]];
        if (top(b) - bottom(a) >= DODGE - 1e-9) continue;
        const members = [...a.members, ...b.members];
        clusters = [
          ...clusters.slice(0, j),
          { members, centre: members.reduce((n, p) => n + p.y, 0) / members.length },
          ...clusters.slice(j + 2),
        ];
        merged = true;
        break;
      }
    }
    for (const c of clusters)
      c.members.forEach((p, j) => {
        const placed = top(c) + j * DODGE;
        if (Math.abs(placed - p.y) > 1e-9) moved = true;
        at[p.k][i] = placed;
      });
  });
  return { at, moved };
}

/** One family's cumulative-success chart: x = revision cap 0…T, y = 0–100%. */
export function curveChartSvg(panel: CurvePanel, options: CurveChartOptions): string {
  return curveChart(panel, options).svg;
}

/** The chart, and whether some points were drawn off their values' y to keep series apart (say so under it). */
export function curveChart(panel: CurvePanel, options: CurveChartOptions): { svg: string; spread: boolean } {
  const W = options.width ?? 420;
  const H = options.height ?? 270;
  const m = { l: 46, r: 14, t: 30, b: 40 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const caps = panel.caps;
  const maxCap = caps.length ? Math.max(...caps) : 0;
  const minCap = caps.length ? Math.min(...caps) : 0;
  const span = maxCap - minCap || 1;
  const x = (c: number) => m.l + ((c - minCap) / span) * pw;
  const y = (v: number) => m.t + (1 - v) * ph;
  const titleId = `${options.idPrefix}-title`;
  const parts: string[] = [];
  parts.push(`<svg class="chart curve" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="${titleId}">`);
  parts.push(`<title id="${titleId}">Cumulative joint success by revision cap: ${escapeHtml(panel.family)}</title>`);
  parts.push(`<text class="chart-title" x="${m.l}" y="18">${escapeHtml(panel.family)}</text>`);
  // Grid and y axis.
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line class="grid" x1="${m.l}" x2="${W - m.r}" y1="${coord(y(v))}" y2="${coord(y(v))}"/>`);
    parts.push(`<text class="tick" x="${m.l - 6}" y="${coord(y(v) + 4)}" text-anchor="end">${Math.round(v * 100)}%</text>`);
  }
  // x ticks: every cap up to 16 caps, otherwise a readable step.
  const step = caps.length > 17 ? Math.ceil(caps.length / 9) : 1;
  caps.forEach((c, i) => {
    if (i % step && i !== caps.length - 1) return;
    parts.push(`<line class="axis" x1="${coord(x(c))}" x2="${coord(x(c))}" y1="${m.t + ph}" y2="${m.t + ph + 4}"/>`);
    parts.push(`<text class="tick" x="${coord(x(c))}" y="${m.t + ph + 16}" text-anchor="middle">${c}</text>`);
  });
  parts.push(`<line class="axis" x1="${m.l}" x2="${W - m.r}" y1="${m.t + ph}" y2="${m.t + ph}"/>`);
  parts.push(`<text class="axis-label" x="${coord(m.l + pw / 2)}" y="${H - 6}" text-anchor="middle">revision cap</text>`);
  const placed = placePoints(panel, y);
  panel.series.forEach((s, k) => {
    const si = options.styleIndex.get(s.controller) ?? 0;
    const st = seriesStyle(si);
    const label = s.simulated ? `${shownName(s.controller, true)} (${options.simulatedLabel ?? 'SIMULATED'})` : s.controller;
    let d = '';
    let pen = false;
    const marks: string[] = [];
    caps.forEach((c, i) => {
      const v = s.rates[i];
      if (v == null || !Number.isFinite(v)) {
        pen = false;
        return;
      }
      const py = placed.at[k][i] ?? y(v);
      d += `${pen ? 'L' : 'M'}${coord(x(c))} ${coord(py)}`;
      pen = true;
      marks.push(
        `<path class="mark" d="${markerPath(st.marker, x(c), py, 3)}"><title>${escapeHtml(label)} · cap ${c}: ${pct(v)}% (n = ${s.n})</title></path>`,
      );
    });
    const dash = st.dash ? ` stroke-dasharray="${st.dash}"` : '';
    parts.push(
      `<g class="series ${st.colour}${s.simulated ? ' simulated' : ''}" data-controller="${escapeHtml(s.controller)}"><path class="line" d="${d}"${dash}/>${marks.join('')}</g>`,
    );
  });
  parts.push('</svg>');
  return { svg: parts.join(''), spread: placed.moved };
}

/** Failure-composition bars: one stacked 100% bar per controller row, grouped by family. */
export function compositionHtml(chart: CompositionChart, options: { simulatedLabel?: string; id?: string } = {}): string {
  const simulated = options.simulatedLabel ?? 'SIMULATED';
  const legend = chart.categories
    .map((c, i) => `<li title="${escapeHtml(c.description)}"><span class="key k${i}" aria-hidden="true"></span>${escapeHtml(c.label)}</li>`)
    .join('');
  const families = [...new Set(chart.rows.map((r) => r.family))];
  const groups = families.map((family) => {
    const rows = chart.rows
      .filter((r) => r.family === family)
      .map((r) => {
        const name = `<span class="ctl" title="${escapeHtml(r.controller)}">${escapeHtml(shownName(r.controller, r.simulated))}</span>${r.simulated ? `<span class="badge sim">${simulated}</span>` : ''}`;
        if (r.failures === 0) {
          return `<div class="bar-row" data-controller="${escapeHtml(r.controller)}"><div class="bar-label">${name}</div><div class="bar-empty">no failures</div><div class="bar-n">0</div></div>`;
        }
        let offset = 0;
        const rects = r.counts
          .map((count, i) => {
            if (!count) return '';
            const w = (100 * count) / r.failures;
            const cat = chart.categories[i];
            const rect = `<rect class="k${i}" x="${coord(offset)}" y="0" width="${coord(w)}" height="10"><title>${escapeHtml(`${shownName(r.controller, r.simulated)}${r.simulated ? ` (${simulated})` : ''} · ${family} · ${cat.label}: ${count} of ${r.failures} failures (${pct(count / r.failures)}%)`)}</title></rect>`;
            offset += w;
            return rect;
          })
          .join('');
        const aria = chart.categories.map((c, i) => `${c.label} ${r.counts[i]}`).join(', ');
        return `<div class="bar-row" data-controller="${escapeHtml(r.controller)}"><div class="bar-label">${name}</div><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(`${r.controller}: ${aria}`)}">${rects}</svg><div class="bar-n">${r.failures}</div></div>`;
      })
      .join('');
    return `<div class="bar-group"><h4>${escapeHtml(family)}</h4><div class="bar-head"><span></span><span class="scale"><span>0%</span><span>50%</span><span>100%</span></span><span>failures</span></div>${rows}</div>`;
  });
  return `<figure class="composition ${chart.kind}"${options.id ? ` id="${options.id}"` : ''}><figcaption><strong>${escapeHtml(chart.title)}</strong> ${escapeHtml(chart.note)}</figcaption><ul class="legend cats">${legend}</ul><div class="bar-groups">${groups.join('')}</div></figure>`;
}

/** Round numbers for an axis from lo to hi: about five steps of 1, 2 or 5 × 10^k. */
function niceTicks(lo: number, hi: number): number[] {
  const span = hi - lo || 1;
  const raw = span / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v * 1e9) / 1e9);
  return out;
}

/**
 * A response chart (studies/kit/sections.ts ResponsePanel): x and y on linear scales that include
 * 0, a 95% band per series where given, a line with markers through the points, and the ideal
 * y = x dashed when asked. Series are styled like the curves' controllers.
 */
export function responseChartSvg(panel: ResponsePanel, options: { idPrefix: string; width?: number; height?: number }): string {
  const W = options.width ?? 460;
  const H = options.height ?? 300;
  const m = { l: 52, r: 14, t: 30, b: 42 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const xs = panel.series.flatMap((s) => s.points.map((p) => p.x));
  const ys = panel.series.flatMap((s) =>
    s.points.flatMap((p) => [p.y, p.lo, p.hi].filter((v): v is number => v != null && Number.isFinite(v))),
  );
  if (panel.identity) ys.push(...xs);
  const x0 = Math.min(0, ...xs);
  const x1 = Math.max(0, ...xs);
  const y0 = Math.min(0, ...ys);
  const y1 = Math.max(0, ...ys);
  const x = (v: number) => m.l + ((v - x0) / (x1 - x0 || 1)) * pw;
  const y = (v: number) => m.t + (1 - (v - y0) / (y1 - y0 || 1)) * ph;
  const titleId = `${options.idPrefix}-title`;
  const parts: string[] = [];
  parts.push(`<svg class="chart response" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="${titleId}">`);
  parts.push(`<title id="${titleId}">${escapeHtml(`${panel.title}: ${panel.yLabel} by ${panel.xLabel}`)}</title>`);
  parts.push(`<text class="chart-title" x="${m.l}" y="18">${escapeHtml(panel.title)}</text>`);
  for (const v of niceTicks(y0, y1)) {
    parts.push(`<line class="grid" x1="${m.l}" x2="${W - m.r}" y1="${coord(y(v))}" y2="${coord(y(v))}"/>`);
    parts.push(`<text class="tick" x="${m.l - 6}" y="${coord(y(v) + 4)}" text-anchor="end">${v}</text>`);
  }
  for (const v of niceTicks(x0, x1)) {
    parts.push(`<line class="axis" x1="${coord(x(v))}" x2="${coord(x(v))}" y1="${m.t + ph}" y2="${m.t + ph + 4}"/>`);
    parts.push(`<text class="tick" x="${coord(x(v))}" y="${m.t + ph + 16}" text-anchor="middle">${v}</text>`);
  }
  parts.push(`<line class="axis" x1="${coord(x(0))}" x2="${coord(x(0))}" y1="${m.t}" y2="${m.t + ph}"/>`);
  parts.push(`<line class="axis" x1="${m.l}" x2="${W - m.r}" y1="${coord(y(0))}" y2="${coord(y(0))}"/>`);
  if (panel.identity) {
    const a = Math.max(x0, y0);
    const b = Math.min(x1, y1);
    if (b > a)
      parts.push(
        `<line class="identity" x1="${coord(x(a))}" y1="${coord(y(a))}" x2="${coord(x(b))}" y2="${coord(y(b))}" stroke-dasharray="4 3"><title>ideal response: exactly the command</title></line>`,
      );
  }
  parts.push(`<text class="axis-label" x="${coord(m.l + pw / 2)}" y="${H - 6}" text-anchor="middle">${escapeHtml(panel.xLabel)}</text>`);
  parts.push(
    `<text class="axis-label" transform="translate(12 ${coord(m.t + ph / 2)}) rotate(-90)" text-anchor="middle">${escapeHtml(panel.yLabel)}</text>`,
  );
  panel.series.forEach((s, si) => {
    const st = seriesStyle(si);
    const pts = s.points.filter((p) => p.y != null && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
    const banded = pts.filter((p) => p.lo != null && p.hi != null && Number.isFinite(p.lo) && Number.isFinite(p.hi));
    const label = s.simulated ? `${shownName(s.name, true)} (SIMULATED)` : s.name;
    let band = '';
    if (banded.length > 1) {
      const upper = banded.map((p, i) => `${i ? 'L' : 'M'}${coord(x(p.x))} ${coord(y(p.hi!))}`).join('');
      const lower = banded
        .slice()
        .reverse()
        .map((p) => `L${coord(x(p.x))} ${coord(y(p.lo!))}`)
        .join('');
      band = `<path class="band" d="${upper}${lower}Z"><title>${escapeHtml(label)}: 95% bootstrap band</title></path>`;
    }
    const d = pts.map((p, i) => `${i ? 'L' : 'M'}${coord(x(p.x))} ${coord(y(p.y!))}`).join('');
    const marks = pts
      .map(
        (p) =>
          `<path class="mark" d="${markerPath(st.marker, x(p.x), y(p.y!), 3)}"><title>${escapeHtml(`${label} · ${panel.xLabel} ${p.x}: ${p.y}${p.lo != null && p.hi != null ? ` [${p.lo}, ${p.hi}]` : ''}`)}</title></path>`,
      )
      .join('');
    const dash = st.dash ? ` stroke-dasharray="${st.dash}"` : '';
    parts.push(
      `<g class="series ${st.colour}${s.simulated ? ' simulated' : ''}" data-series="${escapeHtml(s.name)}">${band}<path class="line" d="${d}"${dash}/>${marks}</g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
