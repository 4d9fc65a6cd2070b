// Terminal tables of a probe analysis: the main measures, repetition readouts and, where the
// extended conditions were scored, the paired manipulation deltas. Mean [95% CI] in nats.
import { baseLabel, markedName } from '../../core/simulated.ts';
import type { MeasureSummary, ProbeAnalysis, ProbeRunAnalysis } from './probe-analysis.ts';
import { formatCount } from '../../core/util/count.ts';

export const MAIN_MEASURES = [
  'G',
  'G_per_token',
  'copy',
  'sem',
  'G_abstract',
  'polarity',
  'copy_pad',
  'sem_pad',
  'repair',
  'margin_shift',
  'G_negative',
];
const REPEAT_MEASURES = [
  'p_repeat_pre',
  'p_repeat_fail',
  'p_repeat_shift',
  'p_repeat_abstract',
  'greedy_repeat_pre',
  'greedy_repeat_fail',
  'greedy_repeat_abstract',
];
export const MANIPULATION_MEASURES = [
  'delta_fail_terse',
  'delta_fail_verbose',
  'delta_fail_echo',
  'delta_fail_early',
  'delta_fail_instr',
  'delta_fail_k2',
  'delta_fail_k3',
  'delta_fail_other',
  'delta_abstract',
  'delta_abstract_min',
];

function cell(m: MeasureSummary | undefined, digits: number): string {
  if (!m || m.mean === undefined || m.mean === null) return '—';
  const f = (x: number | undefined | null) =>
    x === undefined || x === null ? '?' : (Object.is(x, -0) ? 0 : x).toFixed(digits).replace(/^-(0\.0+)$/, '$1');
  return `${f(m.mean)} [${f(m.ci_lo)}, ${f(m.ci_hi)}]`;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join('  ')).join('\n');
}

function runTitle(r: ProbeRunAnalysis): string {
  const pub = r.published ? '' : ` (not published: G has fewer than 30 items)`;
  return `${markedName(r.model, r.simulated)} on ${r.env} — ${r.n_items} items, ${r.n_scores} scores, run ${r.run_id}${pub}`;
}

/** The probe analysis as terminal text (simulated models labelled SIMULATED). */
export function renderProbeAnalysis(a: ProbeAnalysis): string {
  const out: string[] = [];
  if (!a.runs.length) return 'no probe runs in this store\n';
  out.push(
    `Probe: corrective gain and its decomposition (nats; mean [95% cluster-bootstrap CI over tasks], B = ${formatCount(a.bootstrap.resamples)})`,
  );
  if (a.simulated_models.length)
    out.push(
      `SIMULATED: ${a.simulated_models.map(baseLabel).join(', ')} — toy scores from a simulator; they mean nothing about any real model.`,
    );
  for (const r of a.runs) {
    const by = new Map(r.measures.map((m) => [m.measure, m]));
    out.push('', runTitle(r));
    const main = MAIN_MEASURES.filter((k) => by.get(k)?.mean !== undefined);
    if (main.length) {
      out.push(
        table([
          ['measure', 'mean [95% CI]', 'n', 'p'],
          ...main.map((k) => [k, cell(by.get(k), 2), String(by.get(k)?.n ?? ''), pText(by.get(k)?.p)]),
        ]),
      );
    }
    const rep = REPEAT_MEASURES.filter((k) => by.get(k)?.mean !== undefined);
    if (rep.length)
      out.push('', table([['repetition', 'mean [95% CI]', 'n'], ...rep.map((k) => [k, cell(by.get(k), 3), String(by.get(k)?.n ?? '')])]));
    const man = MANIPULATION_MEASURES.filter((k) => by.get(k)?.mean !== undefined);
    if (man.length)
      out.push(
        '',
        table([['paired delta vs fail', 'mean [95% CI]', 'n'], ...man.map((k) => [k, cell(by.get(k), 2), String(by.get(k)?.n ?? '')])]),
      );
    const family = a.runs.filter((x) => x.simulated === r.simulated).length;
    if (r.p_holm_G !== null)
      out.push(`G: Holm-adjusted p across the ${family} ${r.simulated ? 'simulated ' : ''}run(s) = ${pText(r.p_holm_G)}`);
    const { forward_tokens: pushed, naive_tokens: naive, cache_saving: saving } = r.cost;
    if (saving !== null && pushed !== null && naive !== null)
      out.push(
        `cost: ${formatCount(pushed)} tokens pushed vs ${formatCount(naive)} naive (prefix reuse saved ${(100 * saving).toFixed(1)}%) over ${r.cost.sessions} session(s)`,
      );
  }
  return out.join('\n') + '\n';
}

function pText(p: number | null | undefined): string {
  if (p === undefined || p === null) return '—';
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}
