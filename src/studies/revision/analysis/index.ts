// Public API of the analyses: analyzeTrajectories over TrajectoryRecord[], the result types, the
// terminal renderer and the statistics building blocks.
export { analyzeTrajectories, DEFAULT_BOOTSTRAP, DEFAULT_SEED, DEFAULT_LANDMARK, SIGN_THRESHOLD } from './analyze.ts';
export * from './types.ts';
export { trajectoryFacts, repeatClass, exactCategory, captureRevision, stateIds } from './trajectory.ts';
export { landmarkRow, rescueDesign, fitRescue, sourceFamily, RESCUE_COVARIATES } from './rescue.ts';
export { mcnemarExact } from '../../../core/stats/binomial.ts';
export { holmAdjust } from '../../../core/stats/holm.ts';
export { quantiles, percentileInterval95 } from '../../../core/stats/quantile.ts';
export { normalSf, twoSidedNormalP, erfc } from '../../../core/stats/normal.ts';
export { fitClusteredLogit } from '../../../core/stats/logistic.ts';
export { pairedBootstrapRates } from '../../../core/stats/bootstrap.ts';
export { Xoshiro128, PRNG_NAME } from '../../../core/stats/prng.ts';
export { renderAnalysis } from './render.ts';
export { analysisJson, assertStrictJson } from './json.ts';
export { syntheticTrajectories, paperShapedControllers, type SyntheticController, type SyntheticOptions } from '../synthetic.ts';
