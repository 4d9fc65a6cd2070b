// Terminal text of the experiments study, rendered from its report sections: the same tables the
// report shows, as plain tables (fitted to the terminal's width), curves as a table of their points.
// SIMULATED rows say so.
import { markedName } from '../../core/simulated.ts';
import type { Block, Cell, DataTable, Section } from '../kit/sections.ts';
import type { TextOptions } from '../kit/study.ts';
import { TextTable } from '../kit/text-table.ts';
import type { ExperimentsAnalysis } from './analysis/experiment-analysis-types.ts';

function cellText(c: Cell): string {
  if (c === null || c === undefined) return '—';
  if (typeof c === 'string') return c;
  if (typeof c === 'number') return String(c);
  const digits = c.digits ?? 2;
  const f = (x: number | null | undefined) =>
    x === null || x === undefined || !Number.isFinite(x) ? '—' : (c.percent ? 100 * x : x).toFixed(digits);
  const ci = c.lo !== undefined || c.hi !== undefined ? ` [${f(c.lo)}, ${f(c.hi)}]` : '';
  return c.value === null || !Number.isFinite(c.value) ? '—' : `${f(c.value)}${c.lo !== null && c.lo !== undefined ? ci : ''}`;
}

type TableFn = (head: string[], rows: string[][]) => string;

function dataTable(t: DataTable, table: TableFn): string {
  const rows = t.rows.map((r) => r.cells.map((c, i) => (i === 0 && r.simulated ? markedName(cellText(c), true) : cellText(c))));
  return [
    t.caption ? `${t.caption}:` : null,
    table(
      t.columns.map((c) => c.label),
      rows,
    ),
    t.note ?? null,
  ]
    .filter((x) => x !== null)
    .join('\n');
}

function blockText(b: Block, table: TableFn): string {
  switch (b.kind) {
    case 'heading':
      return `-- ${b.text} --`;
    case 'text':
      return b.text;
    case 'table':
      return dataTable(b.table, table);
    case 'curves':
      return b.panels
        .map((p) => {
          const head = ['series', 'n', ...p.caps.map((c) => `≤${c}`)];
          const rows = p.series.map((s) => [
            markedName(s.controller, s.simulated),
            String(s.n),
            ...s.rates.map((r) => (r === null ? '—' : (100 * r).toFixed(1))),
          ]);
          return `${p.family} (% with joint success by revision cap):\n${table(head, rows)}`;
        })
        .join('\n');
    case 'response-curves':
      return b.panels
        .map((p) => {
          const xs = [...new Set(p.series.flatMap((s) => s.points.map((q) => q.x)))].sort((a, c) => a - c);
          const rows = p.series.map((s) => [
            markedName(s.name, s.simulated),
            ...xs.map((x) => {
              const q = s.points.find((pt) => pt.x === x);
              return q && q.y !== null ? String(q.y) : '—';
            }),
          ]);
          return `${p.title} (${p.yLabel} by ${p.xLabel}):\n${table(['series', ...xs.map(String)], rows)}`;
        })
        .join('\n');
    default:
      return '';
  }
}

/** The experiments' analysis as terminal text, from the same sections the report shows. */
export function renderExperimentsText(a: ExperimentsAnalysis, sections: readonly Section[], options: TextOptions = {}): string {
  if (!a.runs.length) return '';
  const render = (head: string[], rows: string[][], cols: number[]): string => {
    const t = new TextTable(
      cols.map((i) => head[i]),
      { width: options.width, compact: true },
    );
    t.push(...rows.map((r) => cols.map((i) => r[i])));
    const text = t.toString();
    const widest = Math.max(...text.split('\n').map((l) => Array.from(l).length));
    if (options.width === undefined || widest <= options.width || cols.length <= 3) return text;
    // More columns than the terminal holds even wrapped: the columns split over two tables, each
    // led by the first (row names), so nothing is left out.
    const rest = cols.slice(1);
    const half = Math.ceil(rest.length / 2);
    return [render(head, rows, [cols[0], ...rest.slice(0, half)]), render(head, rows, [cols[0], ...rest.slice(half)])].join('\n');
  };
  const table: TableFn = (head, rows) =>
    render(
      head,
      rows,
      head.map((_, i) => i),
    );
  const out: string[] = [];
  if (a.simulated_controllers.length)
    out.push(`SIMULATED: ${a.simulated_controllers.join(', ')} — the experiments' numbers describe simulations, not models.`);
  for (const s of sections) {
    out.push(`\n== ${s.title} ==`);
    if (s.lead) out.push(s.lead);
    for (const b of s.blocks) {
      const text = blockText(b, table);
      if (text) out.push(text);
    }
  }
  return out.join('\n') + '\n';
}
