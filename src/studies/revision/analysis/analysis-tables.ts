// Terminal tables for `revloop analyze`: one section per analysis, clear headings, rates as
// percentages with one decimal. Simulated controllers carry "[SIMULATED]" in every table.
import { baseLabel, markedName } from '../../../core/simulated.ts';
import { TextTable } from '../../kit/text-table.ts';
import type { TextOptions } from '../../kit/study.ts';
import { formatMeanSd } from '../../../core/stats/summary.ts';
import {
  ASSAYS,
  EXACT_CATEGORIES,
  FAMILY_ORDER,
  REPEAT_CLASSES,
  type AnalysisResult,
  type CellSummary,
  type Interval,
} from './analysis-types.ts';

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : (100 * v).toFixed(1));
const ci = (i: Interval) => (i.low === null || i.high === null ? '' : ` [${pct(i.low)}, ${pct(i.high)}]`);
const pval = (p: number) => (p >= 0.001 ? p.toFixed(3) : p.toExponential(2));

/** Under Tables 1/10: why each "—" is empty, one line per reason, naming controller and assays. */
function emptyCells(rows: AnalysisResult['endpoint_table']['rows'], name: (c: string) => string): string {
  const byReason = new Map<string, string[]>();
  for (const r of rows) {
    const assays = new Map<string, string[]>();
    for (const a of ASSAYS) {
      const why = r.null_reasons?.[`final.${a}`];
      if (why) assays.set(why, [...(assays.get(why) ?? []), a]);
    }
    for (const [why, list] of assays) byReason.set(why, [...(byReason.get(why) ?? []), `${name(r.controller)} (${list.join(', ')})`]);
  }
  return [...byReason].map(([why, who]) => `\n— ${why}: ${who.join(', ')}`).join('');
}

/** An analysis as terminal text: the paper's tables, simulated controllers labelled SIMULATED. */
export function renderAnalysis(result: AnalysisResult, options: TextOptions = {}): string {
  const table = (head: string[]) => new TextTable(head, { width: options.width, compact: true });
  const sim = new Set(result.simulated_controllers);
  const name = (c: string) => markedName(c, sim.has(c));
  const out: string[] = [];
  const section = (title: string, body: string) => out.push(`\n== ${title} ==\n${body}`);
  const { options: o, trajectories: t } = result;
  out.push(
    `revloop analyze: ${t.total} trajectories (${t.complete} complete, ${t.incomplete} protocol-incomplete, ${t.pending} pending); ` +
      `revision caps 0…${o.budget}; bootstrap B = ${o.bootstrap}, seed ${o.seed}, strata = source family.`,
  );
  if (sim.size) {
    out.push(
      `SIMULATED: ${[...sim].map(baseLabel).join(', ')} ${sim.size === 1 ? 'is a simulated controller; its numbers describe a simulation' : 'are simulated controllers; their numbers describe simulations'}, not models.`,
    );
  }
  if (!result.cells.length) {
    out.push('No trajectories to analyse.');
    return out.join('\n') + '\n';
  }

  // Tables 1 / 10
  const et = result.endpoint_table;
  const t1 = table(['controller', 'panel', ...ASSAYS, 'mean ± SD']);
  for (const r of et.rows) t1.push([name(r.controller), r.panel, ...ASSAYS.map((a) => pct(r.final[a])), formatMeanSd(r.mean, r.sd, pct)]);
  for (const p of et.panels)
    t1.push([`${p.panel} mean (n=${p.controllers})`, '', ...ASSAYS.map((a) => pct(p.final[a])), formatMeanSd(p.mean, p.sd, pct)]);
  t1.push([
    'range across controllers',
    '',
    ...ASSAYS.map((a) => (et.range[a] ? `${pct(et.range[a]!.min)}–${pct(et.range[a]!.max)}` : '—')),
    '',
  ]);
  section("Final joint success (%) by assay, on each panel's common case set (Tables 1, 10)", t1.toString() + emptyCells(et.rows, name));

  // Endpoints per cell
  const t2 = table([
    'controller',
    'family',
    'n',
    'excluded',
    'initial %',
    'final %',
    'paired n',
    'paired initial % [95% CI]',
    'paired final % [95% CI]',
  ]);
  for (const c of result.cells) {
    const e = c.endpoint;
    t2.push([
      name(c.controller),
      c.family,
      c.n,
      c.incomplete + c.pending,
      pct(c.initial_success),
      pct(c.final_success),
      e.n_common,
      `${pct(e.initial.estimate)}${ci(e.initial.ci95)}`,
      `${pct(e.final.estimate)}${ci(e.final.ci95)}`,
    ]);
  }
  const unpaired = new Map<string, string[]>();
  for (const c of result.cells.filter((x) => x.n > 0 && x.endpoint.n_common === 0)) {
    const why = c.endpoint.null_reasons?.estimate ?? 'no common case';
    unpaired.set(why, [...(unpaired.get(why) ?? []), `${name(c.controller)} (${c.family})`]);
  }
  const pairedNote = [...unpaired].map(([why, who]) => `\n— paired n = 0, ${why}: ${who.join(', ')}`).join('');
  section('Endpoints per controller × family (protocol-complete n; paired bootstrap on the common set)', t2.toString() + pairedNote);

  // Cumulative success (Tables 5–7)
  const caps = Array.from({ length: o.budget + 1 }, (_, k) => String(k));
  const t3 = table(['controller', 'family', ...caps]);
  for (const c of result.cells) t3.push([name(c.controller), c.family, ...c.cumulative_success.map(pct)]);
  section('Cumulative joint success (%) by revision cap (Tables 5–7)', t3.toString());

  // Budget replay (Table 4)
  const br = result.budget_replay;
  if (br.cells.length) {
    const panels = br.by_cap[0]?.reversals.map((r) => r.panel) ?? [];
    const t4 = table(['cap', 'median cell %', 'cell range %', ...panels.map((p) => `${p} reversals`)]);
    for (const c of br.by_cap) {
      t4.push([
        c.cap,
        pct(c.cell_median),
        `${pct(c.cell_min)}–${pct(c.cell_max)}`,
        ...c.reversals.map((r) => (r.comparable_pairs ? `${r.reversing_pairs}/${r.comparable_pairs}` : 'n/a')),
      ]);
    }
    const none = br.by_cap[0]?.reversals.filter((r) => !r.comparable_pairs).map((r) => r.panel) ?? [];
    const why = none.length
      ? `\nn/a: a reversal needs two controllers with rates on two assays or more; panel${none.length === 1 ? '' : 's'} ${none.join(', ')} ha${none.length === 1 ? 's' : 've'} no such pair`
      : '';
    section('Revision-budget replay (Table 4; reversals: reversing / comparable pairs)', t4.toString() + why);
  }

  // Failure taxonomy (Appendix G) and exact categories (Appendix A.1)
  const t5 = table(['controller', 'family', 'failures', ...REPEAT_CLASSES, 'cycle p2/p3/p4']);
  for (const c of result.cells) {
    t5.push([
      name(c.controller),
      c.family,
      c.failures,
      ...REPEAT_CLASSES.map((k) => share(c.repeat_classes[k], c.failures)),
      `${c.cycle_periods['2']}/${c.cycle_periods['3']}/${c.cycle_periods['4']}`,
    ]);
  }
  section('Output recurrence among failures: count (% of failures) (Appendix G)', t5.toString());
  const exact = result.cells.filter(
    (c): c is CellSummary & { exact_categories: NonNullable<CellSummary['exact_categories']> } => !!c.exact_categories,
  );
  if (exact.length) {
    const t6 = table(['controller', 'failures', ...EXACT_CATEGORIES]);
    for (const c of exact)
      t6.push([name(c.controller), c.failures, ...EXACT_CATEGORIES.map((k) => share(c.exact_categories[k], c.failures))]);
    section('Exact-length failure categories, first match in this order (Appendix A.1)', t6.toString());
  }

  // Hazards (Table 9)
  const t7 = table([
    'controller',
    'family',
    'initial %',
    'transitions',
    'early capture %',
    'early recurrence %',
    'capture/recurrence',
    'final %',
  ]);
  for (const c of result.cells) {
    const h = c.hazards;
    t7.push([
      name(c.controller),
      c.family,
      pct(c.initial_success),
      h.active_transitions,
      pct(h.early_capture_hazard),
      pct(h.early_recurrence_hazard),
      h.capture_recurrence_ratio.toFixed(3),
      pct(c.final_success),
    ]);
  }
  section('Early capture and recurrence hazards, transitions into revisions 1–4 (Table 9)', t7.toString());

  // Pairwise
  if (result.pairwise.length) {
    const groups = new Map<string, typeof result.pairwise>();
    for (const p of result.pairwise) {
      const key = `${p.panel} / ${p.family}`;
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    const lines: string[] = [];
    for (const [key, rows] of groups) {
      const significant = rows.filter((r) => r.p_holm < 0.05).length;
      lines.push(`${key}: ${significant} of ${rows.length} pairs differ after Holm (p < 0.05)`);
      if (rows.length <= 21) {
        const tp = table(['a', 'b', 'n', 'a − b (pp) [95% CI]', 'a only', 'b only', 'McNemar p', 'Holm p']);
        for (const r of rows) {
          tp.push([
            name(r.controller_a),
            name(r.controller_b),
            r.n_common,
            `${pct(r.delta)}${ci(r.ci95)}`,
            r.a_only,
            r.b_only,
            pval(r.p_mcnemar),
            pval(r.p_holm),
          ]);
        }
        lines.push(tp.toString());
      }
    }
    section('Paired final-success comparisons (exact McNemar, Holm within panel × family; full list in --json)', lines.join('\n'));
  }

  // Rescue (Table 3)
  const t8 = table(['landmark', 'subset', 'rows', 'clusters', 'late rescue %', 'odds ratio [95% CI]', 'p', 'note']);
  for (const f of result.rescue.fits) {
    const or =
      f.odds_ratio === null
        ? '—'
        : `${f.odds_ratio.toPrecision(3)} [${f.ci95.low?.toPrecision(3) ?? '—'}, ${f.ci95.high?.toPrecision(3) ?? '—'}]`;
    const note = !f.estimable
      ? (f.null_reasons?.coefficient ?? 'not estimable')
      : [f.converged ? '' : 'not converged', ...f.warnings].filter(Boolean).join('; ');
    t8.push([f.landmark, f.subset, f.rows, f.clusters, pct(f.late_rescue_rate), or, f.p === null ? '—' : pval(f.p), note]);
  }
  section('Conditional rescue after the landmark: repeat fraction 1 vs 0, case-clustered (Table 3)', t8.toString());

  renderNewSections(result, section, table);

  if (result.excluded.length) {
    const t9 = table(['controller', 'family', 'status', 'count', 'reasons']);
    for (const e of result.excluded)
      t9.push([
        name(e.controller),
        e.family,
        e.status,
        e.count,
        Object.entries(e.reasons)
          .map(([r, n]) => `${r} (${n})`)
          .join('; '),
      ]);
    section('Excluded from every n', t9.toString());
  }
  if (result.notes.length) section('Notes', result.notes.map((n) => `- ${n}`).join('\n'));
  return out.join('\n') + '\n';
}

/** §3.8 hazard association, §3.9 capture prediction and the all-domain landmark. */
function renderNewSections(
  result: AnalysisResult,
  section: (title: string, body: string) => void,
  table: (head: string[]) => TextTable,
): void {
  const sim = (label: string, simulated: boolean) => (simulated ? `${label} [SIMULATED]` : label);
  const num = (v: number | null, digits = 3) => (v === null ? '—' : v.toFixed(digits));
  const or = (v: number | null, i: Interval) =>
    v === null ? '—' : `${v.toPrecision(3)} [${i.low?.toPrecision(3) ?? '—'}, ${i.high?.toPrecision(3) ?? '—'}]`;
  const firstReason = (r?: Record<string, string>) => (r ? (Object.values(r)[0] ?? '') : '');

  const ha = result.hazard_association;
  // The terminal shows the assays (and user families); the member structures are in --json.
  const structures = new Set<string>(FAMILY_ORDER.filter((f) => !(ASSAYS as readonly string[]).includes(f)));
  const shown = ha.rows.filter((r) => !structures.has(r.family));
  if (shown.length) {
    const t = table(['panel', 'family', 'predictor', 'n', 'ρ', 'p', 'test', 'note']);
    for (const r of shown) {
      t.push([
        sim(r.panel, r.simulated),
        r.family,
        r.predictor.replace(/_/g, ' '),
        r.n,
        num(r.rho),
        r.p === null ? '—' : pval(r.p),
        r.method === null ? '—' : r.method === 'exact' ? `exact (${r.permutations} pairings)` : `${r.permutations} permutations`,
        [firstReason(r.null_reasons), r.excluded ?? ''].filter(Boolean).join('; '),
      ]);
    }
    section(
      "Early hazards and final success across controllers: Spearman's ρ, two-sided permutation p (§3.8; per structure in --json)",
      t.toString(),
    );
  }

  const cp = result.capture_prediction;
  if (cp.panels.length) {
    const lines: string[] = [];
    const t = table(['panel', 'set', 'rows', 'Brier', 'log loss', 'AUROC', 'equal-family Brier [95% CI]', 'note']);
    for (const p of cp.panels) {
      for (const s of p.feature_sets) {
        t.push([
          sim(p.panel, p.simulated),
          s.name,
          p.evaluated_rows,
          num(s.brier, 4),
          num(s.log_loss, 4),
          num(s.auroc),
          s.equal_family_brier === null
            ? '—'
            : `${s.equal_family_brier.toFixed(4)}${s.equal_family_brier_ci95.low === null ? '' : ` [${s.equal_family_brier_ci95.low.toFixed(4)}, ${s.equal_family_brier_ci95.high!.toFixed(4)}]`}`,
          p.estimable ? firstReason(s.null_reasons) : firstReason(p.null_reasons),
        ]);
      }
    }
    lines.push(t.toString());
    for (const p of cp.panels) {
      if (!p.estimable) continue;
      const deltas = p.differences.map(
        (d) =>
          `${d.comparison} ${num(d.equal_family_brier_delta, 4)}${d.ci95.low === null ? '' : ` [${d.ci95.low.toFixed(4)}, ${d.ci95.high!.toFixed(4)}]`}`,
      );
      const held = p.families.map((f) => `${f.family} (${f.rows}${f.estimable ? '' : ', not fitted'})`).join(', ');
      lines.push(`${sim(p.panel, p.simulated)}: equal-family Brier differences ${deltas.join('; ')}; held-out families: ${held}`);
    }
    section(
      `Leave-one-family-out prediction of late rescue at revision ${cp.landmark} (exact length, L2 logit C = 1; §3.9)`,
      lines.join('\n'),
    );
  }

  const td = result.three_domain_landmark;
  if (td.fits.length) {
    const t = table(['subset', 'rows', 'exposed', 'rescue % exposed / not', 'MH OR [95% CI]', 'MH p', 'adjusted OR [95% CI]', 'p', 'note']);
    for (const f of td.fits) {
      const a = f.adjusted;
      const note = [
        a.estimable ? '' : firstReason(a.null_reasons),
        a.dropped_rows ? `${a.dropped_rows} rows in ${a.dropped_strata} single-outcome strata left out of the adjusted fit` : '',
        a.estimable && !a.converged ? 'not converged' : '',
        ...a.warnings,
        f.mantel_haenszel.odds_ratio === null ? `MH: ${firstReason(f.mantel_haenszel.null_reasons)}` : '',
      ]
        .filter(Boolean)
        .join('; ');
      t.push([
        sim(f.subset, f.simulated),
        f.rows,
        f.exposed,
        `${pct(f.rescue_rate_exposed)} / ${pct(f.rescue_rate_unexposed)}`,
        or(f.mantel_haenszel.odds_ratio, f.mantel_haenszel.ci95),
        f.mantel_haenszel.p === null ? '—' : pval(f.mantel_haenszel.p),
        or(a.odds_ratio, a.ci95),
        a.p === null ? '—' : pval(a.p),
        note,
      ]);
    }
    section(
      `All-domain landmark: any repeated text by revision ${td.landmark} and later rescue (Mantel–Haenszel over controller × task; adjusted clustered logit; §3.9)`,
      t.toString(),
    );
  }
}

function share(count: number, total: number): string {
  return total ? `${count} (${((100 * count) / total).toFixed(1)})` : String(count);
}
