// Public API of the revision study (`revloop/studies/revision`, docs/analysis.md): every table and
// model of the paper from TrajectoryRecord[], its terminal text and strict JSON, the IFEval
// accuracies, synthetic trajectories for power analysis (SIMULATED), and the paper's tests.
export { analyzeTrajectories } from './analysis/analyze-trajectories.ts';
export type { AnalysisOptions, AnalysisProgress, AnalysisResult } from './analysis/analysis-types.ts';
export { renderAnalysis } from './analysis/analysis-tables.ts';
export type { TextOptions } from '../kit/study.ts';
export { analysisJson } from './analysis/json.ts';
export { analyzeIfeval, renderIfeval, type IfevalAnalysis } from './analysis/ifeval.ts';
export { syntheticTrajectories, paperShapedControllers, type SyntheticController, type SyntheticOptions } from './synthetic.ts';
export { mcnemarExact } from '../../core/stats/binomial.ts';
export { holmAdjust } from '../../core/stats/holm.ts';
export { pairedBootstrapRates, type PairedBootstrapInput } from '../../core/stats/bootstrap.ts';
export { fitClusteredLogit, type LogisticInput, type LogisticFit } from '../../core/stats/logistic.ts';
