// Trajectories as every analysis, report and export sees them. They are reduced from the store's
// append-only events; nothing downstream reads anything else.
import type { ConstraintCase, VerifierState } from '../core/verify/types.ts';

/** One accepted round of a trajectory: the stripped text, its verifier state, energy and joint flag, and the feedback sent after it. */
export interface RoundRecord {
  revision: number;
  /** The stripped text, exactly as verified and as appended to the history. */
  text: string;
  state: VerifierState;
  /** Left-to-right float sum of state.violation_vector. */
  energy: number;
  joint: boolean;
  /** The verifier report sent to the model after this round; null when the loop stopped here. */
  feedback?: string | null;
}

/** A trajectory's status: stop rule reached, protocol-incomplete, or not finished. */
export type TrajectoryStatus = 'complete' | 'incomplete' | 'pending';

/**
 * One case's trajectory, reduced from a run's events: the frozen case, its rounds, the status, the budget and the controller (labelled
 * when simulated).
 */
export interface TrajectoryRecord {
  runId: string;
  /** Position of the case in the run's case set (input order). */
  caseIndex: number;
  caseId: string;
  /** Controller name: the run's model label, or an imported trajectory's `controller`. */
  controller: string;
  simulated: boolean;
  family: string;
  source: string;
  case: ConstraintCase;
  rounds: RoundRecord[];
  /** complete = stop rule reached (success or budget); incomplete = protocol-incomplete. */
  status: TrajectoryStatus;
  incompleteReason?: string;
  /**
   * Set when a complete trajectory ended before the stop rule, by a guard its plan sets: the stop
   * that ended it (`context_limit`: its next prompt would not fit the planned context window,
   * docs/protocol.md §3.13); absent otherwise.
   */
  termination?: string;
  /** Budget T of the run (revisions after the first draft). */
  budget: number;
}
