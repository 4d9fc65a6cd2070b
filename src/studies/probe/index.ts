// Public API of the corrective-gain probes (`revloop/studies/probe`, docs/probe.md): build probe items,
// score their counterfactual transcripts under the conditions with a scoring backend, run and
// resume a probe in the run store, check the scorer, and analyse the stored scores.
export {
  ALL_CONDITIONS,
  CORE_CONDITIONS,
  EXTENDED_CONDITIONS,
  conditionsOf,
  type Condition,
  type ConditionSet,
  type CandidateName,
  type ScoreRecord,
  type ProbeItem,
} from './probe-types.ts';
export { readItemsFile, itemsJsonl } from '../../envs/items/item-file.ts';
export { buildToolShedProbeItems, buildCodeRepairProbeItems } from './build.ts';
export { buildConditionMessages, ConditionUnavailableError } from './conditions.ts';
export { probeScorerFor, type ProbeScorer, type CandidateScore } from './backend.ts';
export { runProbe, type RunProbeOptions, type ProbeProgress, type ProbeSessionResult } from './runner.ts';
export { ProbeStore } from './probe-store.ts';
export { verifyProbeScoring, type ProbeVerifyReport } from './verify.ts';
export {
  analyzeProbeStore,
  type ProbeAnalysis,
  type ProbeAnalysisOptions,
  type ProbeRunAnalysis,
  type MeasureSummary,
} from './probe-analysis.ts';
export { renderProbeAnalysis } from './probe-tables.ts';
