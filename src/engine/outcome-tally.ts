// How a run's or a worker's trajectories ended, and when to stop because the provider keeps
// failing (--max-consecutive-failures): one rule, shared by the single-writer run (run.ts) and by
// workers holding leases (worker.ts).
import type { TrajectoryOutcome } from './loop.ts';

/** The counts of finished trajectories that a run and a worker both report. */
export interface FinishedCounts {
  done: number;
  successes: number;
  incomplete: number;
}

/** Why a run or a worker stopped early: its provider kept failing. */
export interface ProviderFailureStop {
  reason: 'provider-failures';
  message: string;
}

/**
 * Counts finished trajectories into `counts` and keeps the streak of protocol-incomplete ones:
 * after `limit` in a row (0: never) `count` says why to stop, to spare a provider that is down.
 */
export class OutcomeTally {
  private streak = 0;

  constructor(
    private readonly counts: FinishedCounts,
    private readonly limit: number,
  ) {}

  /** Counts an outcome (an aborted one is not counted); returns a stop while the streak is at the limit or beyond. */
  count(outcome: TrajectoryOutcome): ProviderFailureStop | null {
    if (outcome.status === 'aborted') return null;
    this.counts.done++;
    if (outcome.status === 'complete') {
      this.streak = 0;
      if (outcome.rounds[outcome.rounds.length - 1]?.joint) this.counts.successes++;
      return null;
    }
    this.counts.incomplete++;
    this.streak++;
    if (this.limit <= 0 || this.streak < this.limit) return null;
    return {
      reason: 'provider-failures',
      message: `${this.streak} trajectories in a row ended protocol-incomplete (last: ${outcome.reason}); stopped to spare the provider`,
    };
  }
}
