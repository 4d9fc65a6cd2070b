// What an experiment trajectory's row adds in `revloop export --format paper`: the state, the arm
// and the frozen prefix (docs/protocol.md §3.10 outputs), crossover rows' planner and controller
// (§1.6), and the termination of a trajectory that ended at the context window (§3.13).
import type { TrajectoryRunPlanned } from '../../store/events.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import { experimentOf } from './plan.ts';

export function experimentExportFields(planned: TrajectoryRunPlanned, t: TrajectoryRecord): Record<string, unknown> {
  const experiment = experimentOf(planned.plan);
  const spec = experiment?.trajectories[t.caseIndex];
  if (!experiment || !spec) return {};
  const out: Record<string, unknown> = {};
  if (experiment.design === 'crossover') {
    out.planner = spec.facts.planner;
    out.controller = spec.facts.controller;
  }
  out.experiment = {
    design: experiment.design,
    state_id: spec.state_id,
    condition: spec.arm,
    trigger_revision: spec.trigger_revision,
    frozen_rounds: spec.frozen_rounds,
    post_trigger_generations: Math.max(0, t.rounds.length - spec.frozen_rounds),
    source: spec.source,
    termination: t.status === 'complete' ? (t.termination ?? (t.rounds[t.rounds.length - 1]?.joint ? 'success' : 'budget')) : null,
    ...spec.facts,
  };
  return out;
}
