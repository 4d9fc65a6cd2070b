// Public API of the controlled experiments (docs/experiments.md): state selection, the designs as
// trajectory plans, running them through the engine, the arms' message policies, and the analysis.
export {
  selectStates,
  statesJsonl,
  statesSha256,
  readStatesFile,
  terminalRegion,
  type ExperimentState,
  type SelectOptions,
  type SelectRule,
  type StateDesign,
} from './states.ts';
export {
  buildHistory,
  buildCrossover,
  buildPersist,
  buildSysid,
  frozenPrefix,
  DEFAULT_ERRORS,
  MIN_SYSID_TARGET,
  type ExperimentBuild,
  type SourceRun,
  type StatesInput,
  type SysidSplit,
} from './designs.ts';
export {
  experimentOf,
  EXPERIMENT_KINDS,
  type ExperimentPlan,
  type ExperimentRunPlan,
  type ExperimentTrajectory,
  type ExperimentSource,
  type ExperimentKind,
  type ExperimentDesign,
} from './plan.ts';
export { executeExperiment, loadSourceRun, type ExperimentRunRequest, type Decoding } from './experiment-run.ts';
export { parseArm, parseArms, formatArm, DEFAULT_ARMS, type HistoryArm } from './arms.ts';
export { freezePredictionSpec } from './sysid-spec.ts';
export { analyzeExperimentRuns } from './analysis/experiment-analysis.ts';
export type * from './analysis/experiment-analysis-types.ts';
export { experimentsStudy } from './study.ts';

// Every built-in family, registered before the library's user calls anything here (the registry
// loads them on demand otherwise: core/verify/registry.ts).
import '../../core/verify/builtin-families.ts';
