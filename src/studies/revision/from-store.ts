// Reads what the revision study needs from a run store: the trajectories of the chosen runs, each
// run's prompt variant (so unsent verifier reports are rendered as the run would have sent them)
// and a few facts per run for the runs table.
import type { TrajectoryRecord } from '../../store/types.ts';
import type { PromptVariant } from '../../core/verify/types.ts';
import { isTrajectoryPlan } from '../../store/plan.ts';
import type { RunStore } from '../../store/store.ts';

export interface RevisionInputs {
  trajectories: TrajectoryRecord[];
  variants: Map<string, PromptVariant>;
  runDetails: Map<string, Record<string, string>>;
}

export async function loadRevisionInputs(store: RunStore, runIds: readonly string[]): Promise<RevisionInputs> {
  const ids = [...new Set(runIds)];
  const trajectories = await store.loadTrajectories(ids);
  const variants = new Map<string, PromptVariant>();
  const runDetails = new Map<string, Record<string, string>>();
  for (const id of ids) {
    const run = await store.getRun(id);
    if (!run || !isTrajectoryPlan(run.planned.plan)) continue;
    variants.set(id, run.planned.plan.protocol.variant);
    const s = run.summary;
    runDetails.set(id, {
      model: s.modelSpec,
      protocol: s.protocol,
      status: s.status,
      created: s.createdAt,
      plan: s.planSha256.slice(0, 12),
    });
  }
  return { trajectories, variants, runDetails };
}
