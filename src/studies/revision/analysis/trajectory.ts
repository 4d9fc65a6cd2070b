// Per-trajectory facts that every analysis reads: capture revision, repeat class, cycle period,
// exact-length failure category and early-hazard counts. State identity is the exact stripped text
// (docs/protocol.md §3.1: hashing the UTF-8 bytes gives the same partition; the exact-length state tuple
// (hash, error, missing) is a function of the text for a fixed case).
import type { RoundRecord, TrajectoryRecord } from '../../../store/types.ts';
import type { ExactCategory, RepeatClass } from './analysis-types.ts';

export interface TrajectoryFacts {
  /** Smallest `revision` with joint success; null if none (capture = ∞). */
  capture: number | null;
  initialSuccess: boolean;
  finalSuccess: boolean;
  /** Failures only. */
  repeatClass: RepeatClass | null;
  /** 2, 3 or 4 for a terminal cycle (first matching period), else 0. */
  cyclePeriod: 0 | 2 | 3 | 4;
  /** Exact-length failures only. */
  exactCategory: ExactCategory | null;
  /** Early transitions r_i → r_{i+1}, i < min(4, rounds − 1). */
  transitions: number;
  captureEvents: number;
  recurrenceEvents: number;
}

/** State ids: equal texts get equal small integers, in order of first appearance. */
export function stateIds(rounds: readonly RoundRecord[]): number[] {
  const seen = new Map<string, number>();
  return rounds.map((r) => {
    let id = seen.get(r.text);
    if (id === undefined) seen.set(r.text, (id = seen.size));
    return id;
  });
}

export function captureRevision(rounds: readonly RoundRecord[]): number | null {
  let best: number | null = null;
  for (const r of rounds) if (r.joint && (best === null || r.revision < best)) best = r.revision;
  return best;
}

/**
 * Repeat class of a failure (docs/protocol.md §3.2, Appendix G): terminal fixed point (≥ 3 rounds, last three
 * states equal), then terminal cycle (p = 2, 3, 4, first match wins: ≥ 2p rounds, the last p states
 * equal the p before them and hold ≥ 2 distinct states), then other repeat, then no repeat.
 */
export function repeatClass(states: readonly number[]): { cls: RepeatClass; period: 0 | 2 | 3 | 4 } {
  const n = states.length;
  if (n >= 3 && states[n - 1] === states[n - 2] && states[n - 2] === states[n - 3]) {
    return { cls: 'terminal_fixed_point', period: 0 };
  }
  for (const p of [2, 3, 4] as const) {
    if (n < 2 * p) continue;
    let same = true;
    for (let i = 0; i < p && same; i++) same = states[n - p + i] === states[n - 2 * p + i];
    if (same && new Set(states.slice(n - p)).size >= 2) return { cls: 'terminal_cycle', period: p };
  }
  return { cls: new Set(states).size < n ? 'other_repeat' : 'no_repeat', period: 0 };
}

interface ExactRound {
  error: number;
  exact: boolean;
  missing: unknown[];
}

/** Exact-length fields of a round's state; throws a clear error when the state lacks them. */
export function exactRound(t: TrajectoryRecord, r: RoundRecord): ExactRound {
  const { error, exact_length: exact, missing } = r.state as Record<string, unknown>;
  if (typeof error !== 'number' || !Number.isFinite(error) || typeof exact !== 'boolean' || !Array.isArray(missing)) {
    throw new Error(`run ${t.runId}, case ${t.caseId}, revision ${r.revision}: exact-length state lacks error/exact_length/missing`);
  }
  return { error, exact, missing };
}

/**
 * The seven exact-length failure categories in priority order (docs/protocol.md §3.3, Appendix A.1):
 * anchor failure (final exact but an anchor missing), recurrence (any repeated text), sign flips
 * (≥ 2 over the nonzero errors), repeated residual (equal consecutive errors), near target
 * (min |error| ≤ 2), net contraction (|final| < |initial|), other non-contraction.
 */
function exactCategory(rounds: readonly ExactRound[], states: readonly number[]): ExactCategory {
  const last = rounds[rounds.length - 1];
  if (last.exact && last.missing.length > 0) return 'anchor_failure';
  if (new Set(states).size < states.length) return 'recurrence';
  const signs = rounds.filter((r) => r.error !== 0).map((r) => (r.error > 0 ? 1 : -1));
  let flips = 0;
  for (let i = 1; i < signs.length; i++) if (signs[i] !== signs[i - 1]) flips++;
  if (flips >= 2) return 'sign_flips';
  for (let i = 1; i < rounds.length; i++) if (rounds[i].error === rounds[i - 1].error) return 'repeated_residual';
  const abs = rounds.map((r) => Math.abs(r.error));
  if (Math.min(...abs) <= 2) return 'near_target';
  if (abs[abs.length - 1] < abs[0]) return 'net_contraction';
  return 'other_non_contraction';
}

/** Every fact of one protocol-complete trajectory (rounds non-empty). */
export function trajectoryFacts(t: TrajectoryRecord): TrajectoryFacts {
  const rounds = t.rounds;
  const states = stateIds(rounds);
  const capture = captureRevision(rounds);
  const finalSuccess = capture !== null;
  let cls: RepeatClass | null = null;
  let period: 0 | 2 | 3 | 4 = 0;
  let category: ExactCategory | null = null;
  if (!finalSuccess) {
    ({ cls, period } = repeatClass(states));
    if (t.family === 'exact-length')
      category = exactCategory(
        rounds.map((r) => exactRound(t, r)),
        states,
      );
  }
  let transitions = 0;
  let captureEvents = 0;
  let recurrenceEvents = 0;
  const limit = Math.min(4, rounds.length - 1);
  for (let i = 0; i < limit; i++) {
    transitions++;
    if (rounds[i + 1].joint) captureEvents++;
    if (states.slice(0, i + 1).includes(states[i + 1])) recurrenceEvents++;
  }
  return {
    capture,
    initialSuccess: rounds[0].joint,
    finalSuccess,
    repeatClass: cls,
    cyclePeriod: period,
    exactCategory: category,
    transitions,
    captureEvents,
    recurrenceEvents,
  };
}
