// The revision study's report sections, from its view model: runs, endpoint, curves, failure
// composition and budget replay (the trajectory browser is the report's own).
import type { ReportModel } from '../kit/report-model.ts';
import { simulatedMark, type DataTable, type NumberCell, type Section } from '../kit/sections.ts';
import type { IfevalAccuracies, IfevalAnalysis, IfevalInstructionRow } from './analysis/ifeval.ts';

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
