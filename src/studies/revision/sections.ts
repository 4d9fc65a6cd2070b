// The revision study's report sections, from its view model: runs, endpoint, curves, failure
// composition and budget replay (the trajectory browser is the report's own).
import type { ReportModel } from '../kit/report-model.ts';
import { simulatedMark, type Section } from '../kit/sections.ts';

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
