// Reads what the revision study needs from a run store: the trajectories of the chosen runs, each
// run's prompt variant (so unsent verifier reports are rendered as the run would have sent them)
// and a few facts per run for the runs table. A controller is what is compared, so a run's protocol
// is part of its name: runs under another history, prompt variant or harness than the paper's are
// shown as `<model> · <what differs>`, and two runs of one controller over the same cases are told
// apart by their budget (`· T=4`) or, failing that, their run id, instead of being refused.
import type { TrajectoryRecord } from '../../store/types.ts';
import type { PromptVariant } from '../../core/verify/types.ts';
import { isTrajectoryPlan } from '../../store/plan.ts';
import type { RunStore } from '../../store/store.ts';
import type { ProtocolSpec } from '../../store/plan.ts';
import { baseLabel, simulatedLabel } from '../../core/simulated.ts';

/**
 * The protocol part of a controller name: the history window, prompt variant, message policy and
 * ban that differ from the paper's (null when none does).
 */
export function harnessTag(
  p: Pick<ProtocolSpec, 'message_policy' | 'ban_provider'> & Partial<Pick<ProtocolSpec, 'history' | 'variant'>>,
): string | null {
  const parts = [
    p.history !== undefined && p.history !== 'full' ? `history=${p.history}` : null,
    p.variant !== undefined && p.variant !== 'baseline' ? `variant=${p.variant}` : null,
    p.message_policy !== 'verbatim' ? p.message_policy : null,
    p.ban_provider ? `ban=${p.ban_provider}` : null,
  ].filter(Boolean);
  return parts.length ? parts.join('+') : null;
}

/** `<model> · <harness>`, keeping a simulation's mark at the end. */
export function harnessController(label: string, simulated: boolean, tag: string): string {
  const named = `${baseLabel(label)} · ${tag}`;
  return simulated ? simulatedLabel(named) : named;
}

/**
 * Runs of one controller name that share a case are renamed apart, the budget first (when theirs
 * differ) and else the run id; runs over disjoint cases (one case set run in parts) stay pooled.
 */
export function separateOverlappingRuns(trajectories: TrajectoryRecord[]): void {
  const rename = (tagOf: (runId: string, budget: number) => string, onlyIfBudgetsDiffer: boolean) => {
    const byName = new Map<string, Map<string, { cases: Set<string>; budget: number; simulated: boolean }>>();
    for (const t of trajectories) {
      const runs = byName.get(t.controller) ?? new Map();
      byName.set(t.controller, runs);
      const run = runs.get(t.runId) ?? { cases: new Set<string>(), budget: t.budget, simulated: t.simulated };
      runs.set(t.runId, run);
      run.cases.add(`${t.family}\u001f${t.caseId}`);
    }
    for (const [name, runs] of byName) {
      if (runs.size < 2) continue;
      const list = [...runs];
      const overlapping = list.filter(([id, r]) => list.some(([other, o]) => other !== id && [...r.cases].some((c) => o.cases.has(c))));
      if (overlapping.length < 2) continue;
      if (onlyIfBudgetsDiffer && new Set(overlapping.map(([, r]) => r.budget)).size < 2) continue;
      const renamed = new Map(overlapping.map(([id, r]) => [id, harnessController(name, r.simulated, tagOf(id, r.budget))]));
      for (const t of trajectories) if (t.controller === name && renamed.has(t.runId)) t.controller = renamed.get(t.runId)!;
    }
  };
  rename((_id, budget) => `T=${budget}`, true);
  rename((id) => id, false);
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
  separateOverlappingRuns(trajectories);
  return { trajectories, variants, runDetails, imports };
}
