// The commands' defaults for the options a caller leaves out: one home each, read by the app's
// functions (run, worker, the experiments, compare-policies, view, demo) and by the command line for
// its flags' defaults, so `--help` shows what a library call gets. The protocol's come from the
// paper's (PAPER_PROTOCOL), the engine's and the analysis's from theirs. A light module: the
// command line reads it at start.
import { ENGINE_DEFAULTS } from '../engine/defaults.ts';
import { PAPER_PROTOCOL } from '../engine/protocol.ts';
import { ANALYSIS_DEFAULTS } from '../studies/revision/analysis/defaults.ts';

/** Defaults of a run's options (`RunCasesOptions`; the worker's and the experiments' alike). */
export const RUN_DEFAULTS = Object.freeze({
  /** The store: a SQLite file in the current folder. */
  store: 'runs.db',
  /** The revision budget T: the paper's. */
  budget: PAPER_PROTOCOL.budget,
  /** The history window: the paper's (full). */
  history: PAPER_PROTOCOL.history,
  /** The harness: the paper's verbatim loop. */
  harness: PAPER_PROTOCOL.messagePolicy,
  /** The prompt and feedback wording: the paper's baseline. */
  variant: PAPER_PROTOCOL.variant,
  /** IFEval cases: joint success from the strict follow list. */
  ifevalMode: 'strict' as 'strict' | 'loose',
  /** Trajectories in flight at once (also the model's concurrency unless set apart). */
  concurrency: 4,
  /** Protocol-incomplete trajectories in a row that stop the run (0 = never). */
  maxConsecutiveFailures: 3,
  /** 1: this process runs the run (0: plans it only, for workers). */
  workers: 1 as 0 | 1,
  /** PostgreSQL: how long a claim on a trajectory lasts without renewal, in seconds. */
  leaseSeconds: ENGINE_DEFAULTS.leaseSeconds,
  /** PostgreSQL: how long to keep trying to reconnect after losing the database, in seconds (0 = give up at once). */
  reconnectSeconds: 300,
});

/** Defaults of the viewer's analyses (`ViewApiOptions`): fewer resamples than `revloop analyze`, the analysis's seed. */
export const VIEW_DEFAULTS = Object.freeze({
  /** Bootstrap resamples of the run pages' intervals. */
  bootstrap: 2000,
  /** The bootstrap seed: the analysis's. */
  seed: ANALYSIS_DEFAULTS.seed,
});

/** Defaults of `revloop demo` (`DemoOptions`). */
export const DEMO_DEFAULTS = Object.freeze({
  /** Trajectories in flight at once (simulated controllers: no provider to spare). */
  concurrency: 8,
});
