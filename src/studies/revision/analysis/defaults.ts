// The analysis's defaults for the options a caller leaves out (AnalysisOptions in types.ts): one
// home, read by analyzeTrajectories and by the commands that default the same options (revloop
// analyze, report and view, the demo's report). A light module: the command line reads it at start.
import { REFERENCE_SEED } from '../../../core/reference-seed.ts';

/** Defaults of `AnalysisOptions`: bootstrap resamples, the bootstrap seed, the rescue landmarks. */
export const ANALYSIS_DEFAULTS = Object.freeze({
  /** Bootstrap resamples B. */
  bootstrap: 20_000,
  /** The bootstrap seed: the reference's. */
  seed: REFERENCE_SEED,
  /** Primary landmark L of the rescue regression. */
  landmark: 4,
  /** Landmarks of the rescue regression's sensitivity analysis. */
  sensitivityLandmarks: Object.freeze([3, 5]),
});
