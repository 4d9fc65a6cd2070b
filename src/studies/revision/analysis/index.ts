// Public API of the analyses: analyzeTrajectories over TrajectoryRecord[], the result types, the
// terminal renderer and the statistics building blocks.
export { analyzeTrajectories, DEFAULT_BOOTSTRAP, DEFAULT_SEED, DEFAULT_LANDMARK, SIGN_THRESHOLD } from './analyze.ts';
export * from './types.ts';
export { trajectoryFacts, repeatClass, exactCategory, captureRevision, stateIds } from './trajectory.ts';
export { landmarkRow, rescueDesign, fitRescue, sourceFamily, RESCUE_COVARIATES } from './rescue.ts';
export { hazardAssociation, DEFAULT_PERMUTATIONS } from './association.ts';
export { predictCapture, leaveOneFamilyOut, FamilyBrier, modelFamily, CAPTURE_NUMERIC, RECURRENCE_FEATURES } from './capture-prediction.ts';
export { fitThreeDomain, threeDomainRow, roundEnergy, ENERGY_COVARIATES } from './three-domain.ts';
export { spearmanRho, spearmanTest, spearmanTests } from '../../../core/stats/spearman.ts';
export { averageRanks } from '../../../core/stats/ranks.ts';
export { fitL2Logistic, predictL2Logistic } from '../../../core/stats/l2-logistic.ts';
export { fitPreprocessor } from '../../../core/stats/preprocess.ts';
export { brierScore, logLoss, auroc } from '../../../core/stats/scores.ts';
export { mantelHaenszel } from '../../../core/stats/mantel-haenszel.ts';
export { landmarkDesign } from '../../../core/stats/design.ts';
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
export { analyzeIfeval, renderIfeval, IFEVAL_ANALYSIS_SCHEMA } from './ifeval.ts';
export type { IfevalAnalysis, IfevalAccuracies, IfevalControllerSummary, IfevalInstructionRow } from './ifeval.ts';
