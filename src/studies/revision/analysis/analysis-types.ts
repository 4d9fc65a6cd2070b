// Result types of the paper's analyses over trajectories (docs/protocol.md §3 and §4). Everything here is
// plain JSON: rates are fractions in [0, 1] (not percentages), no NaN or Infinity ever appears; a
// quantity that cannot be computed is `null`, and the object's `null_reasons` says why.
//
// The report renderer codes against these types; they evolve compatibly (fields are only added).
import type { MantelHaenszel } from '../../../core/stats/mantel-haenszel.ts';

/** The two aggregate families and their member structures (paper Appendix A.1). */
const AGGREGATE_FAMILIES = {
  lexical: ['c05', 'c07', 'c12'],
  compositional: ['c09', 'c10'],
} as const;
type AggregateFamily = keyof typeof AGGREGATE_FAMILIES;

/** The aggregate a structure belongs to (c05 → lexical), or null. */
export function aggregateOf(family: string): AggregateFamily | null {
  for (const [agg, members] of Object.entries(AGGREGATE_FAMILIES) as Array<[AggregateFamily, readonly string[]]>) {
    if (members.includes(family)) return agg;
  }
  return null;
}

/** The three assays compared across controllers (budget replay reversals, Tables 1 and 10). */
export const ASSAYS = ['exact-length', 'lexical', 'compositional'] as const;
export type Assay = (typeof ASSAYS)[number];

/** Order in which families are listed everywhere (unknown user families follow, sorted). */
export const FAMILY_ORDER = ['exact-length', 'lexical', 'c05', 'c07', 'c12', 'compositional', 'c09', 'c10'] as const;

export const REPEAT_CLASSES = ['terminal_fixed_point', 'terminal_cycle', 'other_repeat', 'no_repeat'] as const;
export type RepeatClass = (typeof REPEAT_CLASSES)[number];

/** The seven exact-length failure categories in priority order (docs/protocol.md §3.3, Appendix A.1). */
export const EXACT_CATEGORIES = [
  'anchor_failure',
  'recurrence',
  'sign_flips',
  'repeated_residual',
  'near_target',
  'net_contraction',
  'other_non_contraction',
] as const;
export type ExactCategory = (typeof EXACT_CATEGORIES)[number];

/** Why a field is null, keyed by the field's name. Absent when nothing is null. */
type NullReasons = Record<string, string>;

/** Progress of `analyzeTrajectories` through `onProgress`: the stage and its done/total. */
export interface AnalysisProgress {
  /** What is being computed, e.g. "bootstrap all/exact-length". */
  stage: string;
  done: number;
  total: number;
}

/** Options of `analyzeTrajectories`; every one has the paper's default. */
export interface AnalysisOptions {
  /** Largest revision cap T for cumulative curves and budget replay. Default: the largest `budget` of the trajectories (8 in the paper). */
  budget?: number;
  /** Bootstrap resamples B (default `ANALYSIS_DEFAULTS.bootstrap`, 20,000; 0 switches intervals off, leaving them null). */
  bootstrap?: number;
  /** Bootstrap seed (default `ANALYSIS_DEFAULTS.seed`: the reference's seed, REFERENCE_SEED). */
  seed?: number;
  /** Primary landmark L of the rescue regression (default `ANALYSIS_DEFAULTS.landmark`, 4). */
  landmark?: number;
  /** Sensitivity landmarks fitted in addition to the primary one (default `ANALYSIS_DEFAULTS.sensitivityLandmarks`, [3, 5]). */
  sensitivityLandmarks?: number[];
  /**
   * Panel of each controller (paired comparisons, reversal counts and panel means are within a panel).
   * Controllers not named here go to panel "all". Default: every controller in one panel "all".
   */
  panels?: Record<string, string>;
  /** Random permutations of the hazard–success Spearman test when a panel has more than 7 controllers (default 100,000). */
  permutations?: number;
  /**
   * Model family of each controller, for the leave-one-family-out capture prediction (§3.9).
   * Controllers not named here get a paper family from their name (Llama, Gemma, GLM, Mistral, Qwen,
   * Granite, Falcon-H1), else form a family of their own.
   */
  modelFamilies?: Record<string, string>;
  /** Called during long work (bootstraps), for progress display. */
  onProgress?: (progress: AnalysisProgress) => void;
}

/** A 95% percentile interval from the paired bootstrap; null when B = 0 or the cell is empty. */
export interface Interval {
  low: number | null;
  high: number | null;
}

export interface ExcludedCount {
  controller: string;
  family: string;
  status: 'incomplete' | 'pending';
  count: number;
  /** Counts by `incompleteReason` (or "unknown"). */
  reasons: Record<string, number>;
}

/** Repeat-class counts among failures (docs/protocol.md §3.2, Appendix G). */
type RepeatClassCounts = Record<RepeatClass, number>;
/** Exact-length failure categories among failures (docs/protocol.md §3.3). */
type ExactCategoryCounts = Record<ExactCategory, number>;

interface HazardSummary {
  /** Transitions r_i → r_{i+1} for i < min(4, rounds − 1), over protocol-complete trajectories. */
  active_transitions: number;
  capture_events: number;
  recurrence_events: number;
  early_capture_hazard: number | null;
  early_recurrence_hazard: number | null;
  /** (captures + 0.5) / (recurrences + 0.5), "Jeffreys-smoothed". */
  capture_recurrence_ratio: number;
  null_reasons?: NullReasons;
}

/** The paired-bootstrap endpoint of one cell, over the panel's common case set. */
interface PairedEndpoint {
  /** Cases complete for every controller of the panel in this family (the paired set). */
  n_common: number;
  initial: { estimate: number | null; ci95: Interval };
  final: { estimate: number | null; ci95: Interval };
  null_reasons?: NullReasons;
}

/** One (controller, family) cell. Families: exact-length, c05, c07, c09, c10, c12, user families, and the aggregates lexical and compositional. */
export interface CellSummary {
  controller: string;
  family: string;
  /** True for the aggregates lexical (c05+c07+c12) and compositional (c09+c10). */
  aggregate: boolean;
  /** Member structures present in an aggregate cell; [family] otherwise. */
  members: string[];
  panel: string;
  /** A simulated (`sim:`) controller: its numbers describe a simulation, never a model. */
  simulated: boolean;
  /** Protocol-complete trajectories (the denominator of every rate in this cell). */
  n: number;
  /** Protocol-incomplete trajectories, excluded from n. */
  incomplete: number;
  /** Trajectories still pending (not finished), excluded from n. */
  pending: number;
  initial_successes: number;
  initial_success: number | null;
  successes: number;
  /** Final joint success rate = successes / n (success at any recorded round). */
  final_success: number | null;
  /** Index k = cap 0…T: fraction with capture revision ≤ k (docs/protocol.md §3.7). */
  cumulative_success: Array<number | null>;
  /** Failures among the n complete trajectories. */
  failures: number;
  repeat_classes: RepeatClassCounts;
  /** Terminal cycles by period (first matching p of 2, 3, 4). */
  cycle_periods: { '2': number; '3': number; '4': number };
  /** Exact-length cells only. */
  exact_categories?: ExactCategoryCounts;
  hazards: HazardSummary;
  endpoint: PairedEndpoint;
  null_reasons?: NullReasons;
}

/** Tables 1 and 10: final joint success per assay, mean ± sample SD across assays. */
export interface EndpointTableRow {
  controller: string;
  panel: string;
  simulated: boolean;
  /** Final success per assay on the panel's common case set (null when the controller lacks it). */
  final: Record<Assay, number | null>;
  /** Mean and sample SD (ddof 1) over the assays present. */
  mean: number | null;
  sd: number | null;
  null_reasons?: NullReasons;
}

export interface EndpointPanelRow {
  /** A panel name, or "overall" (every controller). */
  panel: string;
  controllers: number;
  /** Mean of the controllers' rates within each assay. */
  final: Record<Assay, number | null>;
  mean: number | null;
  sd: number | null;
  null_reasons?: NullReasons;
}

export interface EndpointTable {
  assays: Assay[];
  rows: EndpointTableRow[];
  panels: EndpointPanelRow[];
  /** Range across controllers per assay. */
  range: Record<Assay, { min: number; max: number } | null>;
}

/** Budget replay (Table 4) and cumulative success on common case sets (Tables 5–7). */
export interface BudgetReplayCell {
  panel: string;
  controller: string;
  assay: Assay;
  /** Cases in the panel's common set for this assay. */
  evaluable: number;
  /** Index k = cap: successes with capture ≤ k. */
  cumulative_successes: number[];
  cumulative_success: number[];
}

interface BudgetReplayCap {
  cap: number;
  cell_min: number | null;
  cell_median: number | null;
  cell_max: number | null;
  /**
   * Per panel: reversing pairs (opposite strict orderings, sign threshold 1e-12), all pairs, and the
   * pairs that could reverse (rates on two assays or more).
   */
  reversals: Array<{ panel: string; reversing_pairs: number; pairs: number; comparable_pairs: number }>;
}

export interface BudgetReplay {
  caps: number[];
  sign_threshold: number;
  cells: BudgetReplayCell[];
  by_cap: BudgetReplayCap[];
  notes: string[];
}

/** A paired controller comparison within one panel and family (final joint success). */
export interface PairwiseComparison {
  panel: string;
  family: string;
  controller_a: string;
  controller_b: string;
  n_common: number;
  rate_a: number;
  rate_b: number;
  delta: number;
  /** Paired-bootstrap interval of rate_a − rate_b. */
  ci95: Interval;
  /** Successes only by a / only by b (discordant pairs). */
  a_only: number;
  b_only: number;
  /** Exact two-sided McNemar (binomial on discordant pairs); 1 with none. */
  p_mcnemar: number;
  /** Holm-adjusted within (panel, family). */
  p_holm: number;
}

/** One clustered logistic fit of the landmark rescue model (Table 3, docs/protocol.md §3.9). */
export interface RescueFit {
  /** A panel name, or "combined" (all panels). */
  subset: string;
  landmark: number;
  /** Risk-set rows (trajectories with ≥ L+2 rounds, unresolved at L). */
  rows: number;
  clusters: number;
  late_rescues: number;
  late_rescue_rate: number | null;
  /** ≥ 50 rows and both outcome classes. */
  estimable: boolean;
  converged: boolean | null;
  iterations: number | null;
  /** repeat_fraction coefficient β₁ and its case-clustered SE (no small-sample correction). */
  coefficient: number | null;
  se: number | null;
  z: number | null;
  p: number | null;
  /** exp(β₁): odds at repeat fraction 1 versus 0. */
  odds_ratio: number | null;
  ci95: Interval;
  /** Design columns in order: intercept, repeat_fraction, z-scored covariates, dummies. */
  columns: string[];
  warnings: string[];
  null_reasons?: NullReasons;
}

export interface RescueAnalysis {
  family: 'exact-length';
  primary_landmark: number;
  /** Primary landmark first (each panel, then combined), then the sensitivity landmarks. */
  fits: RescueFit[];
  notes: string[];
}

/** Hazard summaries whose controller-level association with final success is tested (§3.8). */
export const HAZARD_PREDICTORS = ['capture_recurrence_ratio', 'early_capture_hazard', 'early_recurrence_hazard'] as const;
export type HazardPredictor = (typeof HAZARD_PREDICTORS)[number];

/** Spearman's ρ across a panel's controllers between one hazard summary and final success, in one family. */
export interface HazardAssociationRow {
  panel: string;
  family: string;
  predictor: HazardPredictor;
  /** Controllers entering the test (those with the predictor and a final success rate). */
  controllers: string[];
  /** Some of them are simulated (sim:) controllers. */
  simulated: boolean;
  n: number;
  rho: number | null;
  /** Two-sided permutation p. */
  p: number | null;
  /** "exact" enumerates all n! pairings (n ≤ 7); "permutation" draws B seeded permutations. */
  method: 'exact' | 'permutation' | null;
  /** Pairings compared: n! or B. */
  permutations: number | null;
  /** Controllers of the panel left out of this row, and why. */
  excluded?: string;
  null_reasons?: NullReasons;
}

export interface HazardAssociation {
  outcome: 'final_success';
  predictors: HazardPredictor[];
  /** B for panels with more than `exact_max_n` controllers. */
  permutations: number;
  exact_max_n: number;
  rows: HazardAssociationRow[];
  notes: string[];
}

/** Nested feature sets of the capture prediction (§3.9). */
export const CAPTURE_FEATURE_SETS = ['B0', 'B1', 'B2'] as const;
export type CaptureFeatureSet = (typeof CAPTURE_FEATURE_SETS)[number];

/** One held-out model family of the leave-one-family-out prediction. */
export interface CapturePredictionFamily {
  family: string;
  controllers: string[];
  /** How the family was assigned: --model-family option, the paper family named in the controller, or the controller itself. */
  assigned_by: 'option' | 'name' | 'controller';
  rows: number;
  late_rescues: number;
  /** The models trained without this family could be fitted (the training rows hold both outcomes). */
  estimable: boolean;
  /** Brier score of this family's held-out predictions, per feature set. */
  brier: Record<CaptureFeatureSet, number | null>;
  null_reasons?: NullReasons;
}

export interface CapturePredictionSet {
  name: CaptureFeatureSet;
  /** Numeric features (median-imputed, standardised); source_family and length_band are one-hot in every set. */
  numeric_features: string[];
  /** Pooled over every held-out prediction. */
  brier: number | null;
  log_loss: number | null;
  auroc: number | null;
  /** Mean over held-out families of each family's Brier score. */
  equal_family_brier: number | null;
  equal_family_brier_ci95: Interval;
  /** Fitted folds and how many reached the optimum. */
  folds: number;
  converged_folds: number;
  null_reasons?: NullReasons;
}

interface CapturePredictionDelta {
  comparison: 'B1 − B0' | 'B2 − B1';
  /** Equal-family Brier of the larger set minus the smaller; negative = the added features help. */
  equal_family_brier_delta: number | null;
  ci95: Interval;
  null_reasons?: NullReasons;
}

/** Leave-one-family-out prediction of late rescue at the landmark, in one panel. */
export interface CapturePrediction {
  panel: string;
  landmark: number;
  simulated: boolean;
  /** Risk-set rows of the panel (as in the rescue regression). */
  rows: number;
  /** Rows predicted by an estimable fold (every metric uses these). */
  evaluated_rows: number;
  late_rescues: number;
  estimable: boolean;
  families: CapturePredictionFamily[];
  feature_sets: CapturePredictionSet[];
  differences: CapturePredictionDelta[];
  /** The equal-family Brier bootstrap: one case-weight matrix for every set and difference. */
  bootstrap: { resamples: number; cases: number; degenerate_resamples: number };
  null_reasons?: NullReasons;
}

export interface CapturePredictionAnalysis {
  family: 'exact-length';
  landmark: number;
  /** Model and pipeline, in words. */
  model: string;
  panels: CapturePrediction[];
  notes: string[];
}

/** The all-domain landmark association of recurrence by revision L with later rescue, in one subset. */
export interface ThreeDomainFit {
  /** A panel name, or "combined". */
  subset: string;
  landmark: number;
  simulated: boolean;
  /** Risk-set rows: trajectories with at least L+2 rounds. */
  rows: number;
  /** Clusters "domain|case id". */
  clusters: number;
  exposed: number;
  late_rescues: number;
  rescue_rate_exposed: number | null;
  rescue_rate_unexposed: number | null;
  /** Mantel–Haenszel common OR over controller × task strata. */
  mantel_haenszel: MantelHaenszel;
  /** Clustered logit with the energy covariates and controller×task and source fixed effects. */
  adjusted: Omit<RescueFit, 'subset' | 'landmark' | 'rows' | 'clusters' | 'late_rescues' | 'late_rescue_rate'> & {
    /** Rows fitted: the risk set less the strata with a single outcome. */
    rows: number;
    /** Controller × task strata whose rows share one outcome (infinite fixed effect), left out of the fit. */
    dropped_strata: number;
    dropped_rows: number;
  };
  null_reasons?: NullReasons;
}

export interface ThreeDomainAnalysis {
  landmark: number;
  /** Tasks (member families) in the risk set, each with its domain. */
  tasks: Array<{ task: string; domain: string }>;
  fits: ThreeDomainFit[];
  notes: string[];
}

/** The result of `analyzeTrajectories`: a plain, JSON-ready object (`analysisJson`) whose fields are named as in the paper. */
export interface AnalysisResult {
  schema: 'revloop.analysis/1';
  options: {
    budget: number;
    bootstrap: number;
    seed: number;
    landmark: number;
    sensitivity_landmarks: number[];
    permutations: number;
    prng: string;
    ci_level: 0.95;
    strata: string;
  };
  /** Totals over the input. */
  trajectories: { total: number; complete: number; incomplete: number; pending: number };
  controllers: Array<{ controller: string; panel: string; simulated: boolean }>;
  /** Controllers whose numbers come from simulations (label every output that shows them). */
  simulated_controllers: string[];
  excluded: ExcludedCount[];
  cells: CellSummary[];
  endpoint_table: EndpointTable;
  budget_replay: BudgetReplay;
  pairwise: PairwiseComparison[];
  rescue: RescueAnalysis;
  hazard_association: HazardAssociation;
  capture_prediction: CapturePredictionAnalysis;
  three_domain_landmark: ThreeDomainAnalysis;
  notes: string[];
}
