// The revision study: closed-loop runs and imported trajectories, analysed as in the paper
// (endpoint tables, curves, failure taxonomy, hazards, budget replay, rescue regression).
import { getFamily } from '../../core/verify/registry.ts';
import type { PromptVariant } from '../../core/verify/types.ts';
import type { RunPlannedPayload } from '../../store/events.ts';
import { isTrajectoryPlan } from '../../store/plan.ts';
import { IMPORT_KIND, REVISE_KIND, RUN_KIND } from '../../engine/trajectory-kinds.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import type { ReportModel } from '../kit/report-model.ts';
import type { Study, TrajectoryReader } from '../kit/study.ts';
import { shareOf, shortTime } from '../kit/run-status.ts';
import { analyzeTrajectories } from './analysis/analyze-trajectories.ts';
import { captureRevision, repeatClass, stateIds } from './analysis/trajectory.ts';
import { analyzeIfeval, renderIfeval, type IfevalAnalysis } from './analysis/ifeval.ts';
import { renderAnalysis } from './analysis/analysis-tables.ts';
import type { AnalysisResult } from './analysis/analysis-types.ts';
import { loadRevisionInputs, type RevisionInputs } from './from-store.ts';
import { buildReportModel, drilldownLabels, labelTrajectory } from './report-model.ts';
import { ifevalSections, landmarkSections, revisionSections } from './revision-sections.ts';

export interface RevisionAnalysis extends RevisionInputs {
  result: AnalysisResult;
  /** IFEval's standard accuracies, where the runs hold IFEval trajectories. */
  ifeval?: IfevalAnalysis | null;
}

function hasIfeval(a: RevisionAnalysis): a is RevisionAnalysis & { ifeval: IfevalAnalysis } {
  return !!a.ifeval && (a.ifeval.controllers.length > 0 || a.ifeval.excluded_incomplete > 0);
}

/** The report view model of an analysis, built once. */
const models = new WeakMap<RevisionAnalysis, ReportModel>();
function viewModel(a: RevisionAnalysis): ReportModel {
  let m = models.get(a);
  if (!m) models.set(a, (m = buildReportModel(a.trajectories, a.result, { runDetails: a.runDetails })));
  return m;
}

const variantOf = (planned: RunPlannedPayload): PromptVariant =>
  isTrajectoryPlan(planned.plan) ? planned.plan.protocol.variant : 'baseline';

/** One trajectory at a time, for the viewer: the report browser's labels and the analysis's own recurrence rules. */
const reader: TrajectoryReader = {
  labels: drilldownLabels(),
  label: labelTrajectory,
  recurrence(t) {
    const states = stateIds(t.rounds);
    const capture = captureRevision(t.rounds);
    const failure = t.status === 'complete' && t.rounds.length > 0 && capture === null;
    const { cls, period } = failure ? repeatClass(states) : { cls: null, period: 0 };
    return { states, repeatClass: cls, cyclePeriod: period, capture };
  },
  report(t, round, planned) {
    if (round.joint) return null;
    if (typeof round.feedback === 'string') return { text: round.feedback, recorded: true };
    try {
      return { text: getFamily(t.family).feedback(round.state, t.case, variantOf(planned)), recorded: false };
    } catch (e) {
      return { error: `verifier report unavailable: ${(e as Error).message}` };
    }
  },
  initialPrompt: (t, planned) => getFamily(t.family).initialPrompt(t.case, variantOf(planned)),
  origin: (planned) =>
    planned.plan.kind === 'import' && isTrajectoryPlan(planned.plan)
      ? { imported: true, format: planned.plan.case_set.format }
      : { imported: false },
};

export const revisionStudy: Study<RevisionAnalysis> = {
  id: 'revision',
  title: 'Revision runs',
  // Imported here so that whoever loads the study has its kinds registered with the store.
  kinds: [RUN_KIND.kind, IMPORT_KIND.kind, REVISE_KIND.kind],
  json: 'top-level',
  async analyze(store, runIds, o) {
    const inputs = await loadRevisionInputs(store, runIds);
    const result = analyzeTrajectories(inputs.trajectories, {
      budget: o.budget,
      bootstrap: o.bootstrap,
      seed: o.seed,
      landmark: o.landmark,
      panels: o.panels ?? {},
      modelFamilies: o.modelFamilies,
      onProgress: o.onProgress,
    });
    return { ...inputs, result, ifeval: analyzeIfeval(inputs.trajectories) };
  },
  runColumns: ['protocol', 'T', 'done', 'success', 'incompl.', 'pending', 'rounds', 'failed att.', 'updated'],
  runColumnsOptional: ['updated', 'failed att.', 'rounds', 'pending', 'protocol', 'T'],
  async describeRuns(_store, runs) {
    return runs.map((r) => {
      const finished = r.complete + r.incomplete;
      return {
        runId: r.runId,
        kind: r.kind,
        status: r.status,
        controller: r.controller,
        simulated: r.simulated,
        cells: [
          r.kind === 'import' ? 'imported' : r.protocol,
          String(r.budget),
          `${finished}/${r.cases}`,
          // The rate over finished trajectories: an interrupted run's pending ones are not failures.
          shareOf(r.successes, r.complete),
          String(r.incomplete),
          r.leased ? `${r.pending} (${r.leased} leased)` : String(r.pending),
          String(r.rounds),
          String(r.failedAttempts),
          shortTime(r.updatedAt),
        ],
        json: { ...r },
      };
    });
  },
  renderText: (a, o) => renderAnalysis(a.result, o) + (hasIfeval(a) ? renderIfeval(a.ifeval) : ''),
  toJson: (a) => ({ ...(a.result as unknown as Record<string, unknown>), ...(hasIfeval(a) ? { ifeval: a.ifeval } : {}) }),
  sections: (a) => [...revisionSections(viewModel(a)), ...landmarkSections(a.result), ...(hasIfeval(a) ? ifevalSections(a.ifeval) : [])],
  simulatedControllers: (a) => a.result.simulated_controllers,
  runNoun: 'run',
  runsListed: (a) => viewModel(a).runs.length,
  notes: (a) => viewModel(a).notes,
  trajectories: reader,
  drilldown(a) {
    return {
      trajectories: a.trajectories,
      controllers: viewModel(a).controllers,
      variantOf: (t: TrajectoryRecord) => a.variants.get(t.runId) ?? 'baseline',
      getFamily,
      label: labelTrajectory,
      labels: drilldownLabels(),
      importedFrom: (t: TrajectoryRecord) => a.imports?.get(t.runId) ?? null,
    };
  },
};
