// The experiments study's part of a run plan (docs/experiments.md): one run kind per design, and the
// `experiment` block each design adds to the engine's trajectory plan (its sources, the state
// selection and its hash, the design's settings, and each trajectory's frozen prefix). The store
// keeps that block as it is; this module registers the kinds with the store (src/store/run-kinds.ts), so a
// plan is checked before its run is created, and the audit finds each trajectory's frozen prefix and
// whether a context window guards its generations.
import type { RunPlannedPayload, TrajectoryRunPlanned } from '../../store/events.ts';
import { isTrajectoryPlan, trajectoryPlanProblems, type Plan, type RunPlan } from '../../store/plan.ts';
import { registerRunKind, type RunKind } from '../../store/run-kinds.ts';

/** One run kind per experimental design (docs/experiments.md). */
export const EXPERIMENT_KINDS = ['experiment:history', 'experiment:crossover', 'experiment:sysid', 'experiment:persist'] as const;
/** The run kind of one design: `experiment:<design>`. */
export type ExperimentKind = (typeof EXPERIMENT_KINDS)[number];
/** The four designs (docs/protocol.md §3.10–§3.13). */
export type ExperimentDesign = 'history' | 'crossover' | 'sysid' | 'persist';

/** A run whose frozen rounds came from: its id, plan hash and controller (so a changed source is a changed plan). */
export interface ExperimentSource {
  run_id: string;
  plan_sha256: string;
  controller: string;
  simulated: boolean;
}

/**
 * One trajectory of an experiment (the case at the same index): the state it starts from, the arm
 * (or cell, or continuation) it belongs to, and its frozen prefix. Rounds 0 … frozen_rounds − 1
 * are copied into the run when it is created and are never generated; everything after them is.
 */
export interface ExperimentTrajectory {
  /** The state's id (docs/protocol.md §3.10: `<controller>__<case>__r<rev>`; §3.11: `<case>__policy_e<e>`). */
  state_id: string;
  /** The history arm (full, reset, last:K, abstract, ban), or the design's single cell name. */
  arm: string;
  /** Where the frozen rounds come from (null: built from the case set, as the system identification's draft). */
  source: { run_id: string; case_index: number; case_id: string } | null;
  /** Revision of the last frozen round (the trigger revision r). */
  trigger_revision: number;
  frozen_rounds: number;
  /** SHA-256 of the canonical JSON of the frozen texts, in revision order. */
  frozen_sha256: string;
  /** Design-specific facts about the state (error bin, command, split, stratum, …). */
  facts: Record<string, unknown>;
}

/** What an experiment freezes in its plan besides the cases: designs, sources, the selection and its hash. */
export interface ExperimentPlan {
  design: ExperimentDesign;
  sources: ExperimentSource[];
  /** SHA-256 of the state selection as JSON Lines (the bytes `revloop experiment states` writes). */
  states_sha256: string;
  /** The selected states, one object per line of that file (the study defines their fields). */
  selection: unknown[];
  /** The design's settings (arms, errors, split, context window, …). */
  settings: Record<string, unknown>;
  trajectories: ExperimentTrajectory[];
}

/** The plan of an experiment run: the engine's trajectory plan with the experiment block. */
export interface ExperimentRunPlan extends RunPlan {
  kind: ExperimentKind;
  experiment: ExperimentPlan;
}

/** Whether a plan kind is one of the designs'. */
export function isExperimentKind(kind: string): kind is ExperimentKind {
  return (EXPERIMENT_KINDS as readonly string[]).includes(kind);
}

/** The experiment block of a plan (null: not an experiment's trajectory plan, or a plan without one). */
export function experimentOf(plan: Plan): ExperimentPlan | null {
  if (!isTrajectoryPlan(plan) || !isExperimentKind(plan.kind)) return null;
  const block = (plan as Partial<ExperimentRunPlan>).experiment;
  return block && typeof block === 'object' ? block : null;
}

/** Problems with an experiment plan, as `field: problem`. */
function experimentPlanProblems(planned: RunPlannedPayload): string[] {
  const { plan } = planned;
  const problems = trajectoryPlanProblems(planned);
  if (!isTrajectoryPlan(plan)) return problems;
  const experiment = experimentOf(plan);
  if (!experiment) return [...problems, `experiment: a ${plan.kind} run without its experiment block`];
  if (`experiment:${experiment.design}` !== plan.kind)
    problems.push(`experiment.design: '${experiment.design}' is not the design of a ${plan.kind} run`);
  if (!Array.isArray(experiment.trajectories)) problems.push('experiment.trajectories: missing');
  else if (experiment.trajectories.length !== planned.cases.length)
    problems.push(
      `experiment.trajectories: the experiment names ${experiment.trajectories.length} trajectories for ${planned.cases.length} cases`,
    );
  return problems;
}

function runKindOf(kind: ExperimentKind): RunKind<ExperimentRunPlan> {
  return {
    kind,
    study: 'experiments',
    planVersion: 1,
    validatePlan: experimentPlanProblems,
    frozenPrefix(planned, caseIndex) {
      const t = experimentOf(planned.plan)?.trajectories[caseIndex];
      return t ? { rounds: t.frozen_rounds, textsSha256: t.frozen_sha256 } : null;
    },
    // The extended-budget design's context window ends a trajectory whose next prompt would not fit.
    guarded: (planned) => (experimentOf(planned.plan)?.settings.context_window ?? null) !== null,
  };
}

/** The experiments' run kinds, registered with the store (the study's `kinds`). */
export const EXPERIMENT_RUN_KINDS = EXPERIMENT_KINDS.map(runKindOf);
registerRunKind(...EXPERIMENT_RUN_KINDS);

/** The planned payload of an experiment run (its plan with the experiment block). */
export type ExperimentRunPlanned = TrajectoryRunPlanned & { plan: ExperimentRunPlan };
