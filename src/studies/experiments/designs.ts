// The four designs as trajectory plans (docs/experiments.md): each turns frozen inputs (stored states,
// or a case set) into cases, one per trajectory, with the frozen prefix every trajectory continues
// and the experiment block its plan records. Nothing here generates: the engine runs the result.
//
// Trajectory ids (the cases' `id`) are unique within a run: history `<case>__r<rev>__<arm>`, sysid
// `<case>__policy_e<e>` (docs/protocol.md §3.11); crossover and persist keep the source case id (one
// trajectory per case). The original case id stays in the plan's experiment block.
import { InputError, namingOption, UserError } from '../../core/errors.ts';
import { compareCodePoints } from '../../core/stats/bootstrap.ts';
import { sha256Hex } from '../../core/util/hash.ts';
import type { ConstraintCase, ExactLengthState, Family, PromptVariant } from '../../core/verify/types.ts';
import type { AcceptedRound } from '../../engine/loop.ts';
import type { CaseSetInfo } from '../../engine/trajectory-run.ts';
import type { TrajectoryRunPlanned } from '../../store/events.ts';
import { frozenTextsSha256 } from '../../store/plan.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import { armSlug, formatArm, type HistoryArm } from './arms.ts';
import type { ExperimentKind, ExperimentPlan, ExperimentSource, ExperimentTrajectory } from './plan.ts';
import type { ExperimentState, StateDesign } from './states.ts';

/** Everything a design freezes: the engine's request minus the model and the store. */
export interface ExperimentBuild {
  kind: ExperimentKind;
  cases: ConstraintCase[];
  caseSet: CaseSetInfo;
  /** Revisions after the first draft (the absolute last revision T). */
  budget: number;
  variant: PromptVariant;
  experiment: ExperimentPlan;
  /** The frozen prefix of each trajectory, by case index. */
  frozen: AcceptedRound[][];
}

/** A stored run the states come from. */
export interface SourceRun {
  runId: string;
  planned: TrajectoryRunPlanned;
  trajectories: TrajectoryRecord[];
}

export function sourceOf(s: SourceRun): ExperimentSource {
  return {
    run_id: s.runId,
    plan_sha256: s.planned.plan_sha256,
    controller: s.planned.plan.controller.label,
    simulated: s.planned.plan.controller.simulated,
  };
}

/**
 * Rounds re-verified from their texts with the family, each with the report the model saw after it
 * (the family's exact report; none after a joint success).
 */
export function frozenPrefix(family: Family, c: ConstraintCase, texts: readonly string[], variant: PromptVariant): AcceptedRound[] {
  return texts.map((text, revision) => {
    const state = family.verify(text, c);
    const joint = state.joint_success === true;
    return { revision, text, state, energy: family.energy(state), joint, feedback: joint ? null : family.feedback(state, c, variant) };
  });
}

function caseSetOf(design: string, cases: readonly ConstraintCase[], manifest: Record<string, unknown>, path: string | null): CaseSetInfo {
  return { format: `experiment:${design}`, total: cases.length, limit: null, fileSha256: null, manifest, path };
}

/**
 * The states of `source`, checked against the run: each names this run and its plan, its texts
 * are the stored ones (SHA-256), and it is of the design asked for.
 */
function resolveStates(
  design: StateDesign,
  source: SourceRun,
  states: readonly ExperimentState[],
  where: string,
): Array<{ s: ExperimentState; t: TrajectoryRecord }> {
  return states.map((s, i) => {
    const at = `${where}: state ${i + 1} (${s.state_id})`;
    if (s.design !== design)
      throw new UserError(
        `${at}: design: a ${s.design} state; this experiment takes ${design} states (\`revloop experiment states --for ${design}\`)`,
      );
    if (s.source_run !== source.runId)
      throw new UserError(`${at}: source_run: '${s.source_run}', but the experiment starts from run '${source.runId}'`);
    if (s.source_plan_sha256 !== source.planned.plan_sha256)
      throw new UserError(`${at}: source_plan_sha256: run '${source.runId}' has another plan (was it recreated?); select the states again`);
    const t = source.trajectories[s.case_index];
    if (!t || t.caseId !== s.case_id)
      throw new UserError(`${at}: case_index: run '${source.runId}' has no case '${s.case_id}' at index ${s.case_index}`);
    const texts = t.rounds.slice(0, s.revision + 1).map((r) => r.text);
    if (texts.length !== s.revision + 1 || frozenTextsSha256(texts) !== s.texts_sha256)
      throw new UserError(`${at}: texts_sha256: the stored texts of revisions 0–${s.revision} are not the ones selected`);
    return { s, t };
  });
}

/** Refuses states at or past the budget; the message names the option `budget`. */
function checkBudget(states: ReadonlyArray<{ s: ExperimentState }>, budget: number): void {
  const late = states.filter(({ s }) => s.revision >= budget);
  if (late.length)
    throw namingOption(
      'budget',
      (n) =>
        new UserError(
          `${n} ${budget}: ${late.length} state${late.length === 1 ? ' is' : 's are'} at revision ${budget} or later (e.g. ${late[0].s.state_id}); ` +
            'an experiment continues after the state, up to absolute revision budget — raise it or select other states',
        ),
    );
}

function refuseFailedPrefix(prefix: AcceptedRound[], s: ExperimentState): void {
  const early = prefix.slice(0, -1).find((r) => r.joint);
  if (early)
    throw new UserError(
      `state ${s.state_id}: revision ${early.revision} is a joint success on replay, so the trajectory would have stopped there`,
    );
}

function trajectoryOf(s: ExperimentState, arm: string, prefix: AcceptedRound[], facts: Record<string, unknown>): ExperimentTrajectory {
  return {
    state_id: s.state_id,
    arm,
    source: { run_id: s.source_run, case_index: s.case_index, case_id: s.case_id },
    trigger_revision: s.revision,
    frozen_rounds: prefix.length,
    frozen_sha256: frozenTextsSha256(prefix.map((r) => r.text)),
    facts,
  };
}

function stateFacts(s: ExperimentState): Record<string, unknown> {
  return { family: s.family, source: s.source, origin_revision: s.origin_revision, error: s.error, energy: s.energy, stratum: s.stratum };
}

/** A design's states: a selection made now, or a frozen states file with its SHA-256. */
export interface StatesInput {
  states: ExperimentState[];
  sha256: string;
  /** The file the states came from (recorded per session), or null when selected in process. */
  path: string | null;
}

// ---- §3.10 matched-state history interventions ---------------------------------------------------

/** The history design's trajectories: each selected state under each arm. */
export function buildHistory(
  source: SourceRun,
  input: StatesInput,
  o: { arms: HistoryArm[]; budget: number; resolveFamily: (name: string) => Family },
): ExperimentBuild {
  const variant = source.planned.plan.protocol.variant;
  const resolved = resolveStates('history', source, input.states, input.path ?? 'selection');
  checkBudget(resolved, o.budget);
  const cases: ConstraintCase[] = [];
  const frozen: AcceptedRound[][] = [];
  const trajectories: ExperimentTrajectory[] = [];
  for (const { s, t } of resolved) {
    const family = o.resolveFamily(t.family);
    const prefix = frozenPrefix(
      family,
      t.case,
      t.rounds.slice(0, s.revision + 1).map((r) => r.text),
      variant,
    );
    refuseFailedPrefix(prefix, s);
    if (prefix[prefix.length - 1].joint)
      throw new UserError(`state ${s.state_id}: the trigger revision is a joint success; nothing to revise`);
    for (const arm of o.arms) {
      cases.push({ ...t.case, id: `${t.caseId}__r${s.revision}__${armSlug(arm)}` });
      frozen.push(prefix);
      trajectories.push(trajectoryOf(s, formatArm(arm), prefix, stateFacts(s)));
    }
  }
  return {
    kind: 'experiment:history',
    cases,
    caseSet: caseSetOf(
      'history',
      cases,
      { source_run: source.runId, states: input.states.length, arms: o.arms.map(formatArm) },
      input.path,
    ),
    budget: o.budget,
    variant,
    frozen,
    experiment: {
      design: 'history',
      sources: [sourceOf(source)],
      states_sha256: input.sha256,
      selection: input.states,
      settings: { arms: o.arms.map(formatArm) },
      trajectories,
    },
  };
}

// ---- §3.12 fixed-draft crossover ------------------------------------------------------------------

/** The crossover design's trajectories: each planner run's frozen first draft continued by the controller. */
export function buildCrossover(
  planner: SourceRun,
  input: StatesInput,
  o: { controller: string; budget: number; resolveFamily: (name: string) => Family },
): ExperimentBuild {
  // One planner per cell: an import holding several controllers is crossed one controller at a time.
  const planners = [...new Set(input.states.map((s) => s.controller))];
  if (planners.length > 1)
    throw namingOption(
      'states',
      (n) =>
        new UserError(
          `run '${planner.runId}' holds first drafts of ${planners.length} controllers (${planners.join(', ')}); a crossover cell has one planner: ` +
            `write the states with \`revloop experiment states --for crossover\`, keep one controller's lines, and pass the file with ${n}`,
        ),
    );
  const plannerLabel = planners[0] ?? planner.planned.plan.controller.label;
  if (o.controller === plannerLabel)
    throw new UserError(
      `the controller '${o.controller}' is the planner run's own model: that diagonal cell is the planner run '${planner.runId}' itself; cross it with another model`,
    );
  const variant = planner.planned.plan.protocol.variant;
  const resolved = resolveStates('crossover', planner, input.states, input.path ?? 'selection');
  checkBudget(resolved, o.budget);
  const cases: ConstraintCase[] = [];
  const frozen: AcceptedRound[][] = [];
  const trajectories: ExperimentTrajectory[] = [];
  for (const { s, t } of resolved) {
    const prefix = frozenPrefix(o.resolveFamily(t.family), t.case, [t.rounds[0].text], variant);
    cases.push(t.case);
    frozen.push(prefix);
    trajectories.push(trajectoryOf(s, 'crossover', prefix, { ...stateFacts(s), planner: plannerLabel, controller: o.controller }));
  }
  return {
    kind: 'experiment:crossover',
    cases,
    caseSet: caseSetOf('crossover', cases, { planner_run: planner.runId, states: input.states.length }, input.path),
    budget: o.budget,
    variant,
    frozen,
    experiment: {
      design: 'crossover',
      sources: [sourceOf(planner)],
      states_sha256: input.sha256,
      selection: input.states,
      settings: { planner_run: planner.runId, planner: plannerLabel, controller: o.controller },
      trajectories,
    },
  };
}

// ---- §3.13 extended budget -------------------------------------------------------------------------

/** The extended-budget design's trajectories: budget-end failures continued to the new budget. */
export function buildPersist(
  source: SourceRun,
  input: StatesInput,
  o: { budget: number; contextWindow: number | null; resolveFamily: (name: string) => Family },
): ExperimentBuild {
  const variant = source.planned.plan.protocol.variant;
  const resolved = resolveStates('persist', source, input.states, input.path ?? 'selection');
  checkBudget(resolved, o.budget);
  const cases: ConstraintCase[] = [];
  const frozen: AcceptedRound[][] = [];
  const trajectories: ExperimentTrajectory[] = [];
  for (const { s, t } of resolved) {
    const prefix = frozenPrefix(
      o.resolveFamily(t.family),
      t.case,
      t.rounds.map((r) => r.text),
      variant,
    );
    refuseFailedPrefix(prefix, s);
    cases.push(t.case);
    frozen.push(prefix);
    trajectories.push(trajectoryOf(s, 'persist', prefix, { ...stateFacts(s), source_budget: t.budget }));
  }
  return {
    kind: 'experiment:persist',
    cases,
    caseSet: caseSetOf('persist', cases, { source_run: source.runId, states: input.states.length }, input.path),
    budget: o.budget,
    variant,
    frozen,
    experiment: {
      design: 'persist',
      sources: [sourceOf(source)],
      states_sha256: input.sha256,
      selection: input.states,
      settings: { context_window: o.contextWindow },
      trajectories,
    },
  };
}

// ---- §3.11 system identification -------------------------------------------------------------------

export { DEFAULT_ERRORS } from './defaults.ts';
/** Cells whose shifted target falls below this are excluded (docs/protocol.md §3.11). */
export const MIN_SYSID_TARGET = 10;
/** Which cases system identification runs: the discovery split, the confirmation split, or both. */
export type SysidSplit = 'discovery' | 'confirmation' | 'both';

export interface SysidCaseSet {
  cases: ConstraintCase[];
  /** The case file: where, its SHA-256 and manifest. */
  path: string;
  fileSha256: string;
  manifest: unknown;
  format: string;
}

/** The split of each case, disjoint by case: within each source (code-point order), cases in stable-hash order alternate discovery, confirmation. */
export function sysidSplits(cases: readonly ConstraintCase[]): Map<string, 'discovery' | 'confirmation'> {
  const bySource = new Map<string, Array<{ id: string; key: string }>>();
  for (const c of cases)
    bySource.set(c.source, [...(bySource.get(c.source) ?? []), { id: c.id, key: sha256Hex(`sysid-split\u001f${c.id}`) }]);
  const out = new Map<string, 'discovery' | 'confirmation'>();
  for (const source of [...bySource.keys()].sort(compareCodePoints)) {
    bySource
      .get(source)!
      .sort((a, b) => compareCodePoints(a.key, b.key))
      .forEach((c, i) => out.set(c.id, i % 2 === 0 ? 'discovery' : 'confirmation'));
  }
  return out;
}

/** The fixed draft of a case: `field` of its original row, or its witness for `reference`/`witness`. */
function draftOf(c: ConstraintCase, field: string): string | undefined {
  const v = c.row?.[field];
  if (typeof v === 'string') return v;
  if ((field === 'reference' || field === 'witness') && typeof c.witness === 'string') return c.witness;
  return undefined;
}

/** The system-identification design's states: each case's reference as the draft under shifted targets. */
export function buildSysid(
  set: SysidCaseSet,
  o: { errors: number[]; draftField: string; split: SysidSplit; resolveFamily: (name: string) => Family },
): ExperimentBuild & { excluded: Array<{ state_id: string; target: number }> } {
  const family = o.resolveFamily('exact-length');
  const splits = sysidSplits(set.cases);
  const cases: ConstraintCase[] = [];
  const frozen: AcceptedRound[][] = [];
  const trajectories: ExperimentTrajectory[] = [];
  const excluded: Array<{ state_id: string; target: number }> = [];
  set.cases.forEach((c, i) => {
    if (c.family !== 'exact-length')
      throw new InputError(`'${c.family}': system identification shifts a word-count target, so it takes exact-length cases only`, {
        file: set.path,
        field: `case ${i + 1} (${c.id}): family`,
      });
    const draft = draftOf(c, o.draftField);
    if (draft === undefined)
      throw namingOption(
        'draftField',
        (n) =>
          new InputError(`no text in this field to use as the fixed draft (${n})`, {
            file: set.path,
            field: `case ${i + 1} (${c.id}): ${o.draftField}`,
          }),
      );
    const split = splits.get(c.id)!;
    if (o.split !== 'both' && split !== o.split) return;
    const count = (family.verify(draft, c) as ExactLengthState).word_count;
    for (const e of o.errors) {
      const target = count - e;
      const id = `${c.id}__policy_e${e}`;
      if (target < MIN_SYSID_TARGET) {
        excluded.push({ state_id: id, target });
        continue;
      }
      const { witness: _w, ...rest } = c;
      const shifted: ConstraintCase = { ...rest, id, target };
      const prefix = frozenPrefix(family, shifted, [draft], 'baseline');
      cases.push(shifted);
      frozen.push(prefix);
      trajectories.push({
        state_id: id,
        arm: 'sysid',
        source: null,
        trigger_revision: 0,
        frozen_rounds: 1,
        frozen_sha256: frozenTextsSha256([draft]),
        facts: {
          case_id: c.id,
          source: c.source,
          split,
          error: e,
          command: -e,
          current_count: count,
          target,
          length_stratum: typeof c.row?.length_band === 'string' ? c.row.length_band : null,
          anchors_present: ((prefix[0].state as ExactLengthState).missing ?? []).length === 0,
        },
      });
    }
  });
  if (!cases.length)
    throw new UserError(`${set.path}: no system-identification cells to run (split ${o.split}, every cell excluded or none selected)`);
  // The selection is the list of cells; its hash freezes it like a states file.
  const selection = trajectories.map((t) => t.state_id);
  return {
    kind: 'experiment:sysid',
    cases,
    caseSet: {
      format: set.format,
      total: set.cases.length,
      limit: null,
      fileSha256: set.fileSha256,
      manifest: set.manifest,
      path: set.path,
    },
    budget: 1,
    variant: 'baseline',
    frozen,
    excluded,
    experiment: {
      design: 'sysid',
      sources: [],
      states_sha256: sha256Hex(selection.join('\n') + '\n'),
      selection: [],
      settings: { errors: o.errors, draft_field: o.draftField, split: o.split, excluded_cells: excluded },
      trajectories,
    },
  };
}
