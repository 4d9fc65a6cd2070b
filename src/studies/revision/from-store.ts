// Reads what the revision study needs from a run store: the trajectories of the chosen runs, each
// run's prompt variant (so unsent verifier reports are rendered as the run would have sent them)
// and a few facts per run for the runs table. Runs under a harness other than the paper's verbatim
// one are shown as their own controller, `<model> · <harness>`, so the same model under two
// harnesses is compared side by side instead of being pooled.
import type { TrajectoryRecord } from '../../store/types.ts';
import type { PromptVariant } from '../../core/verify/types.ts';
import { isTrajectoryPlan } from '../../store/plan.ts';
import type { RunStore } from '../../store/store.ts';
import type { ProtocolSpec } from '../../store/plan.ts';
import { baseLabel, simulatedLabel } from '../../core/simulated.ts';

/** The harness part of a controller name (null for the paper's verbatim messages without a ban). */
export function harnessTag(p: Pick<ProtocolSpec, 'message_policy' | 'ban_provider'>): string | null {
  const parts = [p.message_policy !== 'verbatim' ? p.message_policy : null, p.ban_provider ? `ban=${p.ban_provider}` : null].filter(
    Boolean,
  );
  return parts.length ? parts.join('+') : null;
}

/** `<model> · <harness>`, keeping a simulation's mark at the end. */
export function harnessController(label: string, simulated: boolean, tag: string): string {
  const named = `${baseLabel(label)} · ${tag}`;
  return simulated ? simulatedLabel(named) : named;
}

export interface RevisionInputs {
  trajectories: TrajectoryRecord[];
  variants: Map<string, PromptVariant>;
  runDetails: Map<string, Record<string, string>>;
  /** Imported runs (run id → import format): their drafts are as logged by their source. */
  imports?: Map<string, string>;
}

export async function loadRevisionInputs(store: RunStore, runIds: readonly string[]): Promise<RevisionInputs> {
  const ids = [...new Set(runIds)];
  const trajectories = await store.loadTrajectories(ids);
  const variants = new Map<string, PromptVariant>();
  const runDetails = new Map<string, Record<string, string>>();
  const imports = new Map<string, string>();
  for (const id of ids) {
    const run = await store.getRun(id);
    if (!run || !isTrajectoryPlan(run.planned.plan)) continue;
    variants.set(id, run.planned.plan.protocol.variant);
    if (run.planned.plan.kind === 'import') imports.set(id, run.planned.plan.case_set.format);
    const tag = harnessTag(run.planned.plan.protocol);
    if (tag) for (const t of trajectories) if (t.runId === id) t.controller = harnessController(t.controller, t.simulated, tag);
    const s = run.summary;
    runDetails.set(id, {
      model: s.modelSpec,
      protocol: s.protocol,
      status: s.status,
      created: s.createdAt,
      plan: s.planSha256.slice(0, 12),
    });
  }
  return { trajectories, variants, runDetails, imports };
}
