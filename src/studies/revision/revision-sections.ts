// The revision study's report sections, from its view model: runs, endpoint, curves, failure
// composition and budget replay (the trajectory browser is the report's own).
import type { ReportModel } from '../kit/report-model.ts';
import { simulatedMark, type DataTable, type NumberCell, type Section } from '../kit/sections.ts';
import type { IfevalAccuracies, IfevalAnalysis, IfevalInstructionRow } from './analysis/ifeval.ts';
import type { AnalysisResult, Interval } from './analysis/analysis-types.ts';
import { formatCount } from '../../core/util/count.ts';

export function revisionSections(model: ReportModel): Section[] {
  const simulated = simulatedMark(model.controllers.map((c) => c.simulated));
  return [
    {
      id: 'runs',
      title: 'Runs',
      lead: "The runs this report covers. Controller = the run's model label (or an imported trajectory's controller).",
      simulated,
      blocks: [{ kind: 'runs', runs: model.runs }],
    },
    {
      id: 'endpoint',
      title: 'Endpoint: joint success by controller and family',
      tocLabel: 'Endpoint',
      simulated,
      blocks: [{ kind: 'endpoint', endpoint: model.endpoint, summary: model.summary }],
    },
    {
      id: 'curves',
      title: 'Cumulative success by revision cap',
      tocLabel: 'Curves',
      lead: 'Share of trajectories that reached joint success by each revision cap (cap 0 = the first draft). Because the loop stops at the first success, capping a finished run at k replays a budget of k revisions exactly.',
      simulated,
      blocks: [{ kind: 'curves', panels: model.curves, controllers: model.controllers }],
    },
    {
      id: 'failures',
      title: 'Failure composition',
      tocLabel: 'Failures',
      lead: "Among failed trajectories only: how the final drafts relate to earlier ones (state = exact text), and for exact length the seven failure categories. Bars are normalised by each controller's failures in that family.",
      simulated,
      blocks: [{ kind: 'composition', charts: model.composition }],
    },
    {
      id: 'budget',
      title: 'Budget replay',
      lead: 'Success at every revision cap and how often controller rankings reverse across constraint families at that cap.',
      simulated,
      blocks: [{ kind: 'budget-replay', replay: model.budget }],
    },
  ];
}

const pct = (x: number | null): NumberCell => ({ value: x, percent: true, digits: 1 });

/**
 * IFEval's four standard accuracies (prompt- and instruction-level, strict and loose) at the first
 * draft and at the end of the budget, per controller, and a table per instruction type.
 */
export function ifevalSections(a: IfevalAnalysis): Section[] {
  const acc = (x: IfevalAccuracies) => [pct(x.prompt_strict), pct(x.prompt_loose), pct(x.instruction_strict), pct(x.instruction_loose)];
  const heads = ['prompt strict', 'prompt loose', 'instr. strict', 'instr. loose'];
  const overview: DataTable = {
    columns: [
      { label: 'controller' },
      { label: 'mode' },
      { label: 'prompts', numeric: true },
      ...heads.map((h) => ({ label: `first draft: ${h}`, numeric: true })),
      ...heads.map((h) => ({ label: `end of budget: ${h}`, numeric: true })),
    ],
    rows: a.controllers.map((c) => ({
      simulated: c.simulated,
      cells: [c.controller, c.mode, c.prompts, ...acc(c.first_draft), ...acc(c.end_of_budget)],
    })),
    note:
      "Accuracies in %, as IFEval's evaluation_lib reports them. The mode is the one joint success (and so the stop rule) used; both lists are always recorded." +
      (a.excluded_incomplete ? ` ${a.excluded_incomplete} protocol-incomplete trajectories are excluded.` : ''),
  };
  const byInstruction = (rows: IfevalInstructionRow[], caption: string, controller: string, simulated: boolean): DataTable => ({
    caption: `${caption}: ${controller}`,
    columns: [
      { label: 'instruction' },
      { label: 'n', numeric: true },
      { label: 'first draft strict', numeric: true },
      { label: 'first draft loose', numeric: true },
      { label: 'end strict', numeric: true },
      { label: 'end loose', numeric: true },
    ],
    rows: rows.map((r) => ({
      simulated,
      cells: [
        r.instruction_id,
        r.n,
        pct(r.first_draft.strict),
        pct(r.first_draft.loose),
        pct(r.end_of_budget.strict),
        pct(r.end_of_budget.loose),
      ],
    })),
  });
  return [
    {
      id: 'ifeval',
      title: 'IFEval: instruction following before and after revision',
      tocLabel: 'IFEval',
      lead: 'The four standard IFEval accuracies at the first draft and at the end of the revision budget, then per instruction type.',
      simulated: simulatedMark(a.controllers.map((c) => c.simulated)),
      blocks: [
        { kind: 'table', table: overview },
        ...a.controllers.map((c) => ({
          kind: 'table' as const,
          table: byInstruction(c.by_instruction, 'By instruction type', c.controller, c.simulated),
        })),
      ],
    },
  ];
}

const num = (x: number | null, digits = 3): NumberCell => ({ value: x, digits });
const pText = (x: number | null): string | null => (x === null ? null : x >= 0.001 ? x.toFixed(4) : x.toExponential(2));
const orCell = (x: number | null, i: Interval): NumberCell => ({ value: x, lo: i.low, hi: i.high, digits: 3 });
const firstReason = (r?: Record<string, string>) => (r ? (Object.values(r)[0] ?? '') : '');

/**
 * The hazard and landmark analyses (docs/protocol.md §3.8, §3.9) as report sections: early hazards per
 * cell, their Spearman association with final success, the landmark rescue regression, the
 * leave-one-family-out capture prediction and the all-domain landmark.
 */
export function landmarkSections(result: AnalysisResult): Section[] {
  const sections: Section[] = [];
  // A rescue subset is a panel (or all of them, "combined"): simulated when any of its controllers is.
  const panelSimulated = (subset: string) => result.controllers.some((c) => c.simulated && (subset === 'combined' || c.panel === subset));
  // A section's mark from its rows; one without rows takes the run's, so an all-simulated page stays 'all'.
  const overall = simulatedMark(result.controllers.map((c) => c.simulated));
  const mark = (flags: boolean[]) => (flags.length ? simulatedMark(flags) : overall);
  if (result.cells.length) {
    sections.push({
      id: 'hazards',
      title: 'Early capture and recurrence hazards',
      tocLabel: 'Hazards',
      lead: 'Transitions into revisions 1–4: the share that reach joint success (capture) and the share that repeat an earlier text (recurrence), and their Jeffreys-smoothed ratio (docs/protocol.md §3.8).',
      simulated: mark(result.cells.map((c) => c.simulated)),
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { label: 'controller' },
              { label: 'family' },
              { label: 'transitions', numeric: true },
              { label: 'early capture %', numeric: true },
              { label: 'early recurrence %', numeric: true },
              { label: 'capture/recurrence', numeric: true },
              { label: 'final success %', numeric: true },
            ],
            rows: result.cells.map((c) => ({
              simulated: c.simulated,
              cells: [
                c.controller,
                c.family,
                c.hazards.active_transitions,
                pct(c.hazards.early_capture_hazard),
                pct(c.hazards.early_recurrence_hazard),
                num(c.hazards.capture_recurrence_ratio),
                pct(c.final_success),
              ],
            })),
          },
        },
      ],
    });
  }
  const ha = result.hazard_association;
  if (ha.rows.length) {
    sections.push({
      id: 'hazard-association',
      title: "Early hazards and final success across controllers (Spearman's ρ)",
      tocLabel: 'Hazard association',
      lead: `Per panel and family: Spearman's ρ between a hazard summary and final success across controllers, with a two-sided permutation p (exact enumeration for n ≤ ${ha.exact_max_n}, otherwise ${formatCount(ha.permutations)} seeded permutations; docs/protocol.md §3.8).`,
      simulated: mark(ha.rows.map((r) => r.simulated)),
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { label: 'panel' },
              { label: 'family' },
              { label: 'predictor' },
              { label: 'n', numeric: true },
              { label: 'ρ', numeric: true },
              { label: 'p', numeric: true },
              { label: 'test' },
              { label: 'note' },
            ],
            rows: ha.rows.map((r) => ({
              simulated: r.simulated,
              cells: [
                r.panel,
                r.family,
                r.predictor.replace(/_/g, ' '),
                r.n,
                num(r.rho),
                pText(r.p),
                r.method === null ? null : r.method === 'exact' ? `exact (${r.permutations} pairings)` : `${r.permutations} permutations`,
                [firstReason(r.null_reasons), r.excluded ?? ''].filter(Boolean).join('; '),
              ],
            })),
            note: ha.notes.join(' ') || undefined,
          },
        },
      ],
    });
  }
  if (result.rescue.fits.length) {
    sections.push({
      id: 'rescue',
      title: 'Conditional rescue after the landmark',
      tocLabel: 'Rescue',
      lead: `Exact length: late rescue after revision ${result.rescue.primary_landmark} by the share of revisions 1…L that repeat an earlier text (repeat fraction 1 vs 0), case-clustered logistic regression with state and action-history covariates (docs/protocol.md §3.9).`,
      simulated: mark(result.controllers.map((c) => c.simulated)),
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { label: 'subset' },
              { label: 'landmark', numeric: true },
              { label: 'rows', numeric: true },
              { label: 'clusters', numeric: true },
              { label: 'late rescue %', numeric: true },
              { label: 'odds ratio', numeric: true },
              { label: 'p', numeric: true },
              { label: 'note' },
            ],
            rows: result.rescue.fits.map((f) => ({
              simulated: panelSimulated(f.subset),
              cells: [
                f.subset,
                f.landmark,
                f.rows,
                f.clusters,
                pct(f.late_rescue_rate),
                orCell(f.odds_ratio, f.ci95),
                pText(f.p),
                !f.estimable
                  ? firstReason(f.null_reasons) || 'not estimable'
                  : [f.converged ? '' : 'not converged', ...f.warnings].filter(Boolean).join('; '),
              ],
            })),
          },
        },
      ],
    });
  }
  const cp = result.capture_prediction;
  if (cp.panels.length) {
    sections.push({
      id: 'capture-prediction',
      title: `Leave-one-family-out prediction of late rescue at revision ${cp.landmark}`,
      tocLabel: 'Capture prediction',
      lead: `${cp.model}. Nested feature sets B0 ⊂ B1 ⊂ B2; each model family is predicted by a model fitted without it (docs/protocol.md §3.9).`,
      simulated: mark(cp.panels.map((p) => p.simulated)),
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { label: 'panel' },
              { label: 'set' },
              { label: 'rows', numeric: true },
              { label: 'Brier', numeric: true },
              { label: 'log loss', numeric: true },
              { label: 'AUROC', numeric: true },
              { label: 'equal-family Brier', numeric: true },
              { label: 'note' },
            ],
            rows: cp.panels.flatMap((p) =>
              p.feature_sets.map((s) => ({
                simulated: p.simulated,
                cells: [
                  p.panel,
                  s.name,
                  p.evaluated_rows,
                  num(s.brier, 4),
                  num(s.log_loss, 4),
                  num(s.auroc),
                  { value: s.equal_family_brier, lo: s.equal_family_brier_ci95.low, hi: s.equal_family_brier_ci95.high, digits: 4 },
                  p.estimable ? firstReason(s.null_reasons) : firstReason(p.null_reasons),
                ],
              })),
            ),
          },
        },
        {
          kind: 'table',
          table: {
            caption: 'Equal-family Brier differences (negative: the added features help)',
            columns: [{ label: 'panel' }, { label: 'comparison' }, { label: 'difference', numeric: true }],
            rows: cp.panels.flatMap((p) =>
              p.differences.map((d) => ({
                simulated: p.simulated,
                cells: [p.panel, d.comparison, { value: d.equal_family_brier_delta, lo: d.ci95.low, hi: d.ci95.high, digits: 4 }],
              })),
            ),
          },
        },
      ],
    });
  }
  const td = result.three_domain_landmark;
  if (td.fits.length) {
    sections.push({
      id: 'three-domain',
      title: `All-domain landmark: a repeated text by revision ${td.landmark} and later rescue`,
      tocLabel: 'All-domain landmark',
      lead: 'Every family: trajectories with at least L+2 rounds; exposure = any repeated text among revisions 0…L; Mantel–Haenszel common odds ratio over controller × task strata and an adjusted clustered logit (docs/protocol.md §3.9).',
      simulated: mark(td.fits.map((f) => f.simulated)),
      blocks: [
        {
          kind: 'table',
          table: {
            columns: [
              { label: 'subset' },
              { label: 'rows', numeric: true },
              { label: 'exposed', numeric: true },
              { label: 'rescue % exposed', numeric: true },
              { label: 'rescue % not', numeric: true },
              { label: 'MH odds ratio', numeric: true },
              { label: 'MH p', numeric: true },
              { label: 'adjusted OR', numeric: true },
              { label: 'p', numeric: true },
            ],
            rows: td.fits.map((f) => ({
              simulated: f.simulated,
              cells: [
                f.subset,
                f.rows,
                f.exposed,
                pct(f.rescue_rate_exposed),
                pct(f.rescue_rate_unexposed),
                orCell(f.mantel_haenszel.odds_ratio, f.mantel_haenszel.ci95),
                pText(f.mantel_haenszel.p),
                orCell(f.adjusted.odds_ratio, f.adjusted.ci95),
                pText(f.adjusted.p),
              ],
            })),
          },
        },
      ],
    });
  }
  return sections;
}
