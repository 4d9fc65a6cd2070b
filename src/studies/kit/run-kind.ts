// The run kind of a study whose results are keyed records (no trajectories), as the store's
// registry takes it (src/store/run-kinds.ts): its plan is a StudyPlan, the study names the settings
// every plan of its must carry, and optionally how its records reduce to its results.
import type { RunPlannedPayload, StoredEvent } from '../../store/events.ts';
import { isTrajectoryPlan, type StudyPlan } from '../../store/plan.ts';
import type { RunKind } from '../../store/run-kinds.ts';

/** What a records study says about one run kind of its. */
export interface RecordsRunKindOptions<R> {
  kind: string;
  /** The study's id (its folder under src/studies). */
  study: string;
  /** Default 1: the version of the plan it writes. */
  planVersion?: number;
  /** Keys every plan's `settings` must hold (what decides what the run records). */
  settings: readonly string[];
  /** Its results from the run's events (keyed records, sessions). */
  reduce?(events: readonly StoredEvent[], planned: RunPlannedPayload<StudyPlan>): R;
}

/** Problems with a study plan's envelope: the controller and the settings object with the required keys. */
function recordsPlanProblems(planned: RunPlannedPayload, settings: readonly string[]): string[] {
  const plan = planned.plan;
  if (isTrajectoryPlan(plan)) return ['case_set: a records study plans no cases (its results are keyed records)'];
  const problems: string[] = [];
  const c = plan.controller as Partial<StudyPlan['controller']> | undefined;
  if (typeof c?.label !== 'string' || typeof c.spec !== 'string' || typeof c.simulated !== 'boolean')
    problems.push('controller: label and spec (text) and simulated (true or false) are required');
  if (!plan.settings || typeof plan.settings !== 'object' || Array.isArray(plan.settings)) problems.push('settings: an object is required');
  else for (const key of settings) if (!(key in plan.settings)) problems.push(`settings.${key}: missing`);
  if (planned.cases.length) problems.push(`cases: ${planned.cases.length} frozen, but a records study plans none`);
  return problems;
}

/** The registry entry of a records study's run kind. */
export function recordsRunKind<R = never>(o: RecordsRunKindOptions<R>): RunKind<StudyPlan, R> {
  return {
    kind: o.kind,
    study: o.study,
    planVersion: o.planVersion ?? 1,
    validatePlan: (planned) => recordsPlanProblems(planned, o.settings),
    ...(o.reduce ? { reduce: o.reduce } : {}),
  };
}
