// The experiments study (docs/experiments.md): history interventions, fixed-draft crossover, system
// identification and extended budgets, one run kind per design. Its runs are trajectory runs, so the
// engine runs, resumes and audits them; this study analyses them, lists them, re-creates their
// message policies for the audit, and shows their trajectories in the report's browser.
import { getFamily } from '../../core/verify/registry.ts';
import type { PromptVariant } from '../../core/verify/types.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import { shareOf, shortTime } from '../kit/run-status.ts';
import type { Study } from '../kit/study.ts';
import { analyzeExperimentRuns } from './analysis/experiment-analysis.ts';
import type { ExperimentsAnalysis } from './analysis/experiment-analysis-types.ts';
import { experimentPolicies } from './arms.ts';
import { EXPERIMENT_KINDS, experimentOf } from './plan.ts';
import { experimentExportFields } from './export.ts';
import { experimentSections } from './experiment-sections.ts';
import { renderExperimentsText } from './experiment-tables.ts';

export interface ExperimentsStudyAnalysis {
  result: ExperimentsAnalysis;
  trajectories: TrajectoryRecord[];
  variants: Map<string, PromptVariant>;
}

/** The controlled experiments as a registered study (analysis, text, JSON, report sections, run listing). */
export const experimentsStudy: Study<ExperimentsStudyAnalysis> = {
  id: 'experiments',
  title: 'Controlled experiments',
  kinds: EXPERIMENT_KINDS,
  json: 'keyed',
  async analyze(store, runIds, o) {
    const { result, runs } = await analyzeExperimentRuns(store, runIds, { bootstrap: o.bootstrap, seed: o.seed });
    return {
      result,
      trajectories: runs.flatMap((r) => r.trajectories),
      variants: new Map(runs.map((r) => [r.runId, r.planned.plan.protocol.variant])),
    };
  },
  renderText: (a, o) => renderExperimentsText(a.result, experimentSections(a.result), o),
  toJson: (a) => a.result as unknown as Record<string, unknown>,
  sections: (a) => experimentSections(a.result),
  simulatedControllers: (a) => a.result.simulated_controllers,
  runNoun: 'experiment run',
  runsListed: (a) => a.result.runs.length,
  runColumns: ['design', 'from', 'T', 'done', 'success', 'incompl.', 'pending', 'rounds', 'updated'],
  runColumnsOptional: ['updated', 'rounds', 'pending', 'from', 'T'],
  async describeRuns(store, runs) {
    const rows = [];
    for (const r of runs) {
      const planned = await store.getPlanned(r.runId);
      const experiment = planned ? experimentOf(planned.plan) : null;
      const from = experiment ? experiment.sources.map((s) => s.run_id).join(', ') || '(case set)' : '?';
      rows.push({
        runId: r.runId,
        kind: r.kind,
        status: r.status,
        controller: r.controller,
        simulated: r.simulated,
        cells: [
          experiment?.design ?? r.kind,
          from,
          String(r.budget),
          `${r.complete + r.incomplete}/${r.cases}`,
          shareOf(r.successes, r.complete),
          String(r.incomplete),
          String(r.pending),
          String(r.rounds),
          shortTime(r.updatedAt),
        ],
        json: { ...r, design: experiment?.design ?? null, sources: experiment?.sources.map((s) => s.run_id) ?? [] },
      });
    }
    return rows;
  },
  notes: (a) => a.result.notes,
  drilldown(a) {
    if (!a.trajectories.length) return null;
    const controllers = new Map<string, boolean>();
    for (const t of a.trajectories) controllers.set(t.controller, t.simulated);
    return {
      trajectories: a.trajectories,
      controllers: [...controllers].map(([name, simulated]) => ({ name, simulated })),
      variantOf: (t) => a.variants.get(t.runId) ?? 'baseline',
      getFamily,
      label: (t) => ({
        outcome: t.status !== 'complete' ? 'incomplete' : t.rounds[t.rounds.length - 1]?.joint ? 'success' : 'failure',
        repeatClass: null,
        category: null,
      }),
      labels: { outcome: { success: 'success', failure: 'failure', incomplete: 'incomplete' }, repeat: {}, category: {} },
    };
  },
  replay(planned) {
    const experiment = experimentOf(planned.plan);
    return experiment
      ? experimentPolicies(
          experiment,
          planned.cases.map((c) => c.id),
        )
      : null;
  },
  exportFields: (planned, t) => experimentExportFields(planned, t),
};
