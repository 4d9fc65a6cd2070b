// The store's event vocabulary. Events are the only source of truth: every table other than
// `events` is derived from them and can be rebuilt (derive.ts, RunStore.rebuild). Payload keys are
// snake_case because payloads are stored and hashed as JSON.
import type { AttemptRecord } from '../models/types.ts';
import type { ConstraintCase, VerifierState } from '../core/verify/types.ts';
import type { Plan, RunPlan, StudyPlan } from './plan.ts';
import { encodeColumn } from './text-codec.ts';

/** Per-trajectory settings of imported runs (each line has its own controller and budget). */
export interface PerCase {
  controller: string;
  budget: number;
}

/**
 * The first event of every run: its immutable plan. Trajectory runs (the revision loop, imports)
 * freeze their cases here; studies whose results are keyed records have `cases: []` and a StudyPlan.
 */
export interface RunPlannedPayload<P extends Plan = Plan> {
  plan: P;
  /** The frozen cases, in input order; trajectories are keyed by their index here. */
  cases: ConstraintCase[];
  per_case: PerCase[] | null;
  /** SHA-256 of the canonical JSON of {plan, cases, per_case}. */
  plan_sha256: string;
}

/** The plan payload of a trajectory run (see isTrajectoryPlan). */
export type TrajectoryRunPlanned = RunPlannedPayload<RunPlan>;
/** The plan payload of a study run (results as keyed records). */
export type StudyRunPlanned = RunPlannedPayload<StudyPlan>;

/** One process working on a run: operational settings that are not part of the plan. */
export interface SessionStartedPayload {
  /** run | resume | import for trajectory runs; a study's own word otherwise (its kind). */
  kind: string;
  revloop_version: string;
  pid: number;
  host: string;
  /** Where the cases were read from this time (the plan keeps only their hashes). */
  cases_path: string | null;
  /** Timeouts, retries, rate limits, concurrency: they change how, not what, is run. */
  options: Record<string, unknown>;
  pending: number;
}

interface AttemptStartedPayload {
  messages_sha256: string;
  message_count: number;
  /** null: unset (a revise() call that left the limit to the backend). */
  max_tokens: number | null;
  banned_sequences?: string[];
  /** Complete answers banned (the `complete-repeats` ban). */
  banned_answers?: string[];
}

interface AttemptFinishedPayload {
  /** 1-based within its generation (retries of the same request). */
  attempt: number;
  record: AttemptRecord;
}

interface DraftAcceptedPayload {
  text: string;
  state: VerifierState;
  energy: number;
  joint: boolean;
  /** The verifier report sent back to the model; null when the stop rule ended the loop here. */
  feedback: string | null;
}

/**
 * How the stop rule ends a trajectory. success / budget: the paper's rule. cycle: a persistent
 * cycle under a harness that stops there. limit: a token, money or time budget of `revise()`.
 */
export const STOP_RULE_STOPS: readonly string[] = ['success', 'budget', 'cycle', 'limit'];

export interface TrajectoryCompletedPayload {
  /**
   * One of STOP_RULE_STOPS, or why a guard the plan sets ended the trajectory before the stop rule
   * (e.g. `context_limit`: the next prompt plus its max new tokens would have exceeded the planned
   * context window, docs/protocol.md §3.13), which becomes the trajectory's `termination`.
   */
  stop: string;
  rounds: number;
  final_joint: boolean;
  /** An early stop only: the count that ended it, in words (tokens, window, revision). */
  detail?: string;
}

/** A completed trajectory's termination: the stop when it is not the stop rule's (undefined otherwise). */
export function terminationOf(stop: unknown): string | undefined {
  return typeof stop === 'string' && !STOP_RULE_STOPS.includes(stop) ? stop : undefined;
}

interface TrajectoryIncompletePayload {
  reason: string;
}

interface TrajectoryReopenedPayload {
  previous_reason: string | null;
}

interface ImportTruncatedPayload {
  /** Drafts supplied after the first success (dropped by the stop rule) or beyond the budget. */
  dropped_after_success: number;
  dropped_beyond_budget: number;
}

/** The end of a session that keeps counters (studies record cost and progress here). */
export interface SessionFinishedPayload {
  /** The session's number: the n-th session_started of the run, from 1. */
  session: number;
  status: 'complete' | 'interrupted' | 'failed';
  seconds: number;
  /** Study-specific counters (items scored, forward tokens, …). */
  counters: Record<string, number | null>;
}

/**
 * One keyed result of a study (a score group, a rollout, an item set): `kind` says what it
 * is, `key` is unique within the run and kind (the event's unique key is `<kind>:<key>`), so a
 * result is recorded exactly once however often work is retried.
 */
export interface RecordPayload {
  kind: string;
  key: string;
  /** The session that produced it (1-based), or null. */
  session: number | null;
  data: unknown;
}

/** The payload of each event type of a run's log (docs/store.md). */
export interface EventPayloads {
  run_planned: RunPlannedPayload;
  session_started: SessionStartedPayload;
  attempt_started: AttemptStartedPayload;
  attempt_finished: AttemptFinishedPayload;
  draft_accepted: DraftAcceptedPayload;
  trajectory_completed: TrajectoryCompletedPayload;
  trajectory_incomplete: TrajectoryIncompletePayload;
  trajectory_reopened: TrajectoryReopenedPayload;
  import_truncated: ImportTruncatedPayload;
  session_finished: SessionFinishedPayload;
  record: RecordPayload;
}

/** The types of events a run's log holds. */
export type EventType = keyof EventPayloads;

/** An event about to be appended. Trajectory events carry the case index; round events the revision. */
export type NewEvent = {
  [T in EventType]: { type: T; caseIndex?: number | null; revision?: number | null; payload: EventPayloads[T] };
}[EventType];

/** An event as stored: its place in the run's log, time and hash chain. */
export type StoredEvent = NewEvent & {
  /** Global row id (order across runs). */
  id: number;
  runId: string;
  /** Position in the run's log, 1, 2, 3, … without gaps. */
  seq: number;
  at: string;
  caseIndex: number | null;
  revision: number | null;
  prevHash: string;
  hash: string;
};

/**
 * The event's unique key within its run, where it has one: a draft is accepted once per (case,
 * revision), a trajectory completes once, a study record exists once per (kind, key). Stores
 * enforce it (UNIQUE (run_id, key)), so a retried or duplicated write can never be stored twice.
 * Not part of the hash: it is derived from what is hashed.
 */
export function eventKey(e: NewEvent): string | null {
  switch (e.type) {
    case 'draft_accepted':
      return `draft:${e.caseIndex}:${e.revision}`;
    case 'trajectory_completed':
      return `completed:${e.caseIndex}`;
    case 'record':
      // A study's own key may hold any text (an item id): stored in a form every backend holds.
      return encodeColumn(`${e.payload.kind}:${e.payload.key}`);
    default:
      return null;
  }
}
