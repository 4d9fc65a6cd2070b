// The experiments study's analysis, as `analyze --json` writes it under `experiments` (schema
// `revloop.experiments/1`, documented in docs/analysis.md#experiments). Numbers that are undefined
// are null (never NaN); every run and row carries `simulated`.

/** A rate k/n with its 95% interval where one was computed. */
export interface Rate {
  k: number;
  n: number;
  rate: number | null;
}

/** A 95% interval (null ends where it is undefined). */
export interface Interval {
  lo: number | null;
  hi: number | null;
}

/** One experiment run as the analysis saw it. */
export interface ExperimentRunInfo {
  run_id: string;
  design: 'history' | 'crossover' | 'sysid' | 'persist';
  controller: string;
  simulated: boolean;
  /** Source runs (history, crossover's planner, persist). */
  sources: string[];
  states_sha256: string;
  trajectories: number;
  complete: number;
  incomplete: number;
  pending: number;
  budget: number;
}

// ---- §3.10 history --------------------------------------------------------------------------------

/** Per-trajectory outcomes of one arm at one state (docs/protocol.md §3.10). */
export interface HistoryOutcome {
  state_id: string;
  arm: string;
  family: string;
  source: string;
  trigger_revision: number;
  /** The first post-trigger text is none of the texts so far. */
  first_step_escape: boolean | null;
  /** Exact length: the first step moves the count the way the report asked (null elsewhere, or when it asked for 0). */
  first_step_direction_correct: boolean | null;
  /** |error| (exact length) or energy (other families) strictly falls at the first step. */
  first_step_contraction: boolean | null;
  /** A post-trigger round after the first repeats an earlier text (null with fewer than two). */
  later_recurrence: boolean | null;
  final_joint: boolean;
  final_exact: boolean | null;
  final_anchor_retention: boolean | null;
  final_error: number | null;
  final_energy: number;
  post_trigger_generations: number;
  /** Revision of the first joint success after the trigger (null: none). */
  success_revision: number | null;
}

/** One arm's outcomes: first-step escape, direction and contraction, later recurrence, final success and error, generations. */
export interface HistoryArmSummary {
  arm: string;
  n: number;
  first_step_escape: Rate;
  first_step_direction_correct: Rate;
  first_step_contraction: Rate;
  later_recurrence: Rate;
  final_joint: Rate;
  /** Final joint success at states with trigger revision > 1 (the "later" subset). */
  final_joint_later: Rate;
  final_anchor_retention: Rate;
  mean_final_abs_error: number | null;
  mean_final_energy: number | null;
  mean_post_trigger_generations: number | null;
  /** Cumulative joint success by absolute revision cap (`caps` of the run). */
  curve: Array<number | null>;
}

/** Arm vs the reference arm, paired by state. */
export interface HistoryContrast {
  arm: string;
  reference: string;
  outcome: 'final_joint' | 'first_step_escape';
  /** States with both arms complete (and, for escape, a first step in both). */
  pairs: number;
  /** Reference yes, arm no. */
  b: number;
  /** Reference no, arm yes. */
  c: number;
  difference: number | null;
  ci95: Interval;
  p_mcnemar: number | null;
  p_holm: number | null;
}

/** A matched-state history intervention analysed per arm (docs/protocol.md §3.10). */
export interface HistoryAnalysis {
  run_id: string;
  controller: string;
  simulated: boolean;
  states: number;
  arms: string[];
  caps: number[];
  summaries: HistoryArmSummary[];
  contrasts: HistoryContrast[];
  outcomes: HistoryOutcome[];
  notes: string[];
}

// ---- §3.12 crossover -------------------------------------------------------------------------------

/** One crossover cell: a planner's frozen first drafts continued by one controller, with its final success. */
export interface CrossoverCell {
  planner: string;
  controller: string;
  /** The run the cell's trajectories are in (the diagonal: the planner run itself). */
  run_id: string;
  diagonal: boolean;
  simulated: boolean;
  n: number;
  round0_joint: Rate;
  final_joint: Rate;
}

/** One exact McNemar test of the crossover, with its Holm-adjusted p-value. */
export interface CrossoverTest {
  kind: 'controller_effect' | 'controller_effect_conditional' | 'planner_control';
  /** The fixed factor's model (the planner for controller effects, the controller for planner controls). */
  fixed: string;
  /** The two cells compared: first − second. */
  first: string;
  second: string;
  pairs: number;
  /** Joint in the first cell but not the second, and the reverse. */
  b: number;
  c: number;
  difference: number | null;
  p_mcnemar: number | null;
  /** Holm over the analysis's controller-effect tests (each kind its own family); null for planner controls (unadjusted). */
  p_holm: number | null;
}

/** The crossover's integrity checks: identical case sets, byte-identical round-0 texts within a planner. */
export interface CrossoverIntegrity {
  /** Case sets of the cells are identical. */
  identical_case_sets: boolean;
  case_set_sizes: Record<string, number>;
  /** Cases whose round-0 texts differ between cells that share a planner (must be 0). */
  round0_mismatches: number;
}

/** Two crossover cells compared case by case (the paired counts behind one McNemar test). */
export interface CrossoverPair {
  models: [string, string];
  simulated: boolean;
  cells: CrossoverCell[];
  tests: CrossoverTest[];
  integrity: CrossoverIntegrity;
}

/** The fixed-draft crossover (docs/protocol.md §3.12): cells planner × controller, integrity checks, McNemar tests with Holm. */
export interface CrossoverAnalysis {
  pairs: CrossoverPair[];
  notes: string[];
}

// ---- §3.11 system identification --------------------------------------------------------------------

/** The response to one commanded error: median action, monotone pairs, hits, overshoots. */
export interface SysidCommandRow {
  command: number;
  n: number;
  median_action: number | null;
  ci95: Interval;
  mean_gain: number | null;
  direction_correct: Rate;
  contraction: Rate;
  zero_action: Rate;
  overshoot: Rate;
  exact: Rate;
  anchors: Rate;
}

/** The local Theil–Sen slope of the response curve with its source-stratified bootstrap interval. */
export interface SysidSlope {
  subset: 'all' | 'add' | 'remove';
  cases: number;
  slope: number | null;
  ci95: Interval;
}

/** The prediction spec frozen when discovery finished (a record in the run; SHA-256 over its canonical JSON). */
export interface PredictionSpec {
  estimator: string;
  controller: string;
  commands: number[];
  /** This model's median action per command on discovery states. */
  checkpoint: Array<number | null>;
  /** The median over every discovery row of the sysid runs complete at freezing time. */
  pooled: Array<number | null>;
  pooled_runs: string[];
  gate: string;
}

/** A predictor of the realised action: the checkpoint curve, the pooled curve, zero action or identity. */
export interface SysidPredictor {
  name: 'checkpoint' | 'pooled' | 'zero' | 'identity';
  mae: number | null;
}

/** The frozen prediction protocol's error of one predictor on the confirmation split. */
export interface SysidPrediction {
  spec_sha256: string;
  rows: number;
  predictors: SysidPredictor[];
  /** Checkpoint − pooled MAE (within case, then across cases), with its source-stratified bootstrap. */
  checkpoint_minus_pooled: number | null;
  ci95: Interval;
  /** Spearman ρ of the discovery and confirmation median curves. */
  curve_spearman: number | null;
  gates: { curve_spearman_at_least_0_70: boolean | null; checkpoint_beats_pooled: boolean | null };
}

/** The frozen curve applied to natural trajectories and an 8-step simulation. */
export interface SysidTransfer {
  /** Natural transitions scored (0 < |error| ≤ 50) in the controller's revision runs, outside the sysid cases. */
  runs: string[];
  transitions: number;
  mae_curve: number | null;
  mae_zero: number | null;
  mae_identity: number | null;
  /** The 8-step simulation from each natural first draft: capture when |e| < 0.5. */
  simulated_capture: Rate;
  observed_exact: Rate;
}

/** System identification analysed (docs/protocol.md §3.11): response per command, slopes, predictions and transfer. */
export interface SysidAnalysis {
  run_id: string;
  controller: string;
  simulated: boolean;
  split: string;
  excluded_cells: number;
  /** Rows by split: discovery, confirmation, and all. */
  curves: Array<{ split: 'discovery' | 'confirmation' | 'all'; rows: SysidCommandRow[]; monotone_pair_fraction: number | null }>;
  slopes: SysidSlope[];
  prediction: SysidPrediction | null;
  transfer: SysidTransfer | null;
  notes: string[];
}

// ---- §3.13 persistence ----------------------------------------------------------------------------

/** Extended-budget outcomes of one stratum (source × terminal-error region). */
export interface PersistRegionRow {
  region: string;
  n: number;
  rescued: Rate;
}

/** The extended-budget experiment analysed (docs/protocol.md §3.13): persistence curves and terminations. */
export interface PersistAnalysis {
  run_id: string;
  controller: string;
  simulated: boolean;
  source_budget: number;
  budget: number;
  context_window: number | null;
  n: number;
  rescued: Rate;
  context_limit: number;
  median_rescue_revision: number | null;
  caps: number[];
  /** Cumulative rescue by revision cap (source budget … budget). */
  curve: Array<number | null>;
  regions: PersistRegionRow[];
  notes: string[];
}

/** Every experiment run analysed: history interventions, crossovers, system identification and extended budgets. */
export interface ExperimentsAnalysis {
  schema: 'revloop.experiments/1';
  options: { bootstrap: number; seed: number; prng: string; ci_level: 0.95 };
  runs: ExperimentRunInfo[];
  history: HistoryAnalysis[];
  crossover: CrossoverAnalysis;
  sysid: SysidAnalysis[];
  persist: PersistAnalysis[];
  simulated_controllers: string[];
  notes: string[];
}
