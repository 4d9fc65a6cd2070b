// Probe items and conditions (docs/harness.md §3.2–§3.4). An item freezes one decision point: the context
// before an attempt, a wrong action that fails there, the observations the runtime gives for it
// under several renderings and counterfactuals, and the correct action.

/** One probe item, field for field as the reference's JSONL schema (defined with the item builder). */
export type { ProbeItem } from '../../envs/items/probe-item.ts';

/** The probe's core conditions (docs/harness.md §3): before the attempt, failure, success, neutral, abstracted failure. */
export const CORE_CONDITIONS = ['pre', 'fail', 'succ', 'neut', 'abstract'] as const;
/** The probe's extended conditions (docs/harness.md §3): padding, echo, verbosity, instruction and distractor variants. */
export const EXTENDED_CONDITIONS = [
  'neut_pad',
  'fail_echo',
  'fail_terse',
  'fail_verbose',
  'fail_instr',
  'fail_k2',
  'fail_k3',
  'fail_early',
  'fail_other',
  'abstract_min',
] as const;
/** Every probe condition: the core ones, then the extended ones. */
export const ALL_CONDITIONS = [...CORE_CONDITIONS, ...EXTENDED_CONDITIONS] as const;

/** A probe condition (docs/harness.md §3). */
export type Condition = (typeof ALL_CONDITIONS)[number];

/** A named set of conditions for `conditionsOf`. */
export type ConditionSet = 'core' | 'extended' | 'all';

/** The conditions of a named set, in order. */
export function conditionsOf(set: ConditionSet): Condition[] {
  if (set === 'core') return [...CORE_CONDITIONS];
  if (set === 'extended') return [...EXTENDED_CONDITIONS];
  return [...ALL_CONDITIONS];
}

export function isCondition(name: string): name is Condition {
  return (ALL_CONDITIONS as readonly string[]).includes(name);
}

/** Candidate names: the failed and gold actions always; the distractors under pre and fail only. */
export type CandidateName = 'failed' | 'gold' | 'distractor0' | 'distractor1';

export const DISTRACTOR_CONDITIONS: ReadonlySet<Condition> = new Set<Condition>(['pre', 'fail']);

/** Conditions that change the system prompt, scored in their own pass (a different cache prefix). */
export const OWN_PASS_CONDITIONS: ReadonlySet<Condition> = new Set<Condition>(['fail_instr']);

/** One teacher-forced score as the reference's raw JSONL records it. */
export interface ScoreRecord {
  item_id: string;
  condition: Condition;
  candidate: CandidateName;
  logprob: number;
  n_tokens: number;
  n_argmax_match: number | null;
  is_greedy: boolean | null;
  ctx_tokens: number | null;
}
