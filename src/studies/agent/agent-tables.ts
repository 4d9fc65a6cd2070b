// Terminal tables of the agent study: success, loops and repeat rates per harness, the cost
// columns, and the paired contrasts against verbatim (percentage points for rates).
import { baseLabel, markedName } from '../../core/simulated.ts';
import type { AgentAnalysis, MetricSummary } from './agent-analysis.ts';
import { formatCount } from '../../core/util/count.ts';

function cell(m: MetricSummary | undefined, digits: number): string {
  if (!m || m.mean === undefined || m.mean === null) return '—';
  const f = (x: number | null | undefined) => (x === undefined || x === null ? '?' : (Object.is(x, -0) ? 0 : x).toFixed(digits));
  return `${f(m.mean)} [${f(m.ci_lo)}, ${f(m.ci_hi)}]`;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join('  ')).join('\n');
}

/** The agent analysis as terminal text (simulated models labelled SIMULATED). */
export function renderAgentAnalysis(a: AgentAnalysis): string {
  if (!a.runs.length) return 'no agent runs in this store\n';
  const out: string[] = [
    `Agent rollouts on ToolShed (mean [95% cluster-bootstrap CI over tasks], B = ${formatCount(a.bootstrap.resamples)})`,
  ];
  if (a.simulated_models.length)
    out.push(
      `SIMULATED: ${a.simulated_models.map(baseLabel).join(', ')} — simulated controllers; their numbers describe simulations, not models.`,
    );
  const models = [...new Set(a.runs.map((r) => r.model))];
  for (const model of models) {
    const runs = a.runs.filter((r) => r.model === model);
    out.push('', markedName(model, runs[0].simulated));
    const get = (r: (typeof runs)[number], k: string) => r.metrics.find((m) => m.metric === k);
    out.push(
      table([
        ['harness', 'n', 'success', 'stuck', 'exact rep.', 'canon. rep.'],
        ...runs.map((r) => [
          r.harness,
          String(r.n_rollouts),
          cell(get(r, 'solved'), 2),
          cell(get(r, 'stuck'), 2),
          cell(get(r, 'exact_repeat_rate'), 2),
          cell(get(r, 'canonical_repeat_rate'), 2),
        ]),
      ]),
    );
    const mean = (r: (typeof runs)[number], k: string) => {
      const m = get(r, k);
      return m && m.mean !== undefined && m.mean !== null ? m.mean.toFixed(0) : '—';
    };
    out.push(
      '',
      table([
        ['cost per rollout', 'gen', 'prompt', 'ctx/step', 'steps', 'ban masks'],
        ...runs.map((r) => [
          r.harness,
          mean(r, 'gen_tokens'),
          mean(r, 'prompt_tokens'),
          mean(r, 'prompt_tokens_per_step'),
          get(r, 'n_steps')?.mean?.toFixed(1) ?? '—',
          mean(r, 'n_banned_masked'),
        ]),
      ]),
    );
    const cs = a.contrasts.filter(
      (c) => c.model === model && ['solved', 'stuck', 'exact_repeat_rate', 'canonical_repeat_rate'].includes(c.metric),
    );
    if (cs.length) {
      const pts = (x: number | null | undefined) => (x === undefined || x === null ? '?' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(0)}`);
      const rows: string[][] = [];
      const notes: string[] = [];
      for (const h of [...new Set(cs.map((c) => c.harness))]) {
        const hc = cs.filter((c) => c.harness === h);
        const estimated = hc.filter((c) => c.mean !== undefined && c.mean !== null);
        if (!estimated.length) {
          notes.push(`${h} vs verbatim: ${hc[0].reason ?? 'no paired estimate'}`);
          continue;
        }
        for (const c of hc)
          rows.push([
            c.harness,
            c.metric,
            c.mean === undefined || c.mean === null ? (c.reason ?? '—') : `${pts(c.mean)} [${pts(c.ci_lo)}, ${pts(c.ci_hi)}]`,
            String(c.n_paired),
          ]);
      }
      if (rows.length) out.push('', table([['paired vs verbatim (points)', 'metric', 'Δ [95% CI]', 'n'], ...rows]));
      if (notes.length) out.push('', ...notes);
    }
  }
  return out.join('\n') + '\n';
}
