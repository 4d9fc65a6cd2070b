// Public API of the corrective-gain probes (docs/probe.md): probe items and conditions, scoring
// backends, the resumable runner, the probe tables of the run store, and the analysis.
export * from './types.ts';
export { itemSha256, ITEM_FIELDS, validateItem, parseItems, readItemsFile, itemJsonLine, itemsJsonl } from './items.ts';
export { buildToolShedProbeItems, buildCodeRepairProbeItems, BUILD_MAX_PER_TASK } from './build.ts';
export {
  probeScorerFor,
  guardScore,
  vllmTokenize,
  type ProbeScorer,
  type CandidateScore,
  type ScoringCounters,
  type VerifyInput,
  type VerifyResult,
  type VerifyResultRow,
} from './backend.ts';
export {
  buildConditionMessages,
  conditionAvailable,
  candidatesFor,
  conditionPasses,
  ConditionUnavailableError,
  type ConditionOptions,
} from './conditions.ts';
export { lengthMatchedNeutral, paddedNeutral, MAX_FILLER_UNITS, type PaddedNeutral } from './padding.ts';
export { runProbe, type RunProbeOptions, type ProbeProgress, type ProbeSessionResult } from './runner.ts';
export {
  ProbeStore,
  ensureProbeSchema,
  hasProbeTables,
  scoreKey,
  defaultProbeRunId,
  PROBE_SCHEMA_VERSION,
  type ProbeRunRow,
  type ProbeSessionStart,
  type ProbeSessionEnd,
  type ScoreRow,
} from './store.ts';
export { itemMeasures, pRepeat, groupScores, MEASURE_ORDER, MEASURE_DOC, EXTENDED_CONTRASTS, type ItemScores } from './metrics.ts';
export {
  clusterBootstrap,
  holm,
  sampleSd,
  bootstrapRng,
  BOOTSTRAP_SEED,
  BOOTSTRAP_RESAMPLES,
  MIN_PUBLISHED_ITEMS,
  type Estimate,
  type BootstrapOptions,
} from '../../core/stats/cluster-bootstrap.ts';
export {
  analyzeProbeStore,
  probeItemRecords,
  PROBE_ANALYSIS_SCHEMA,
  type ProbeAnalysis,
  type ProbeAnalysisOptions,
  type ProbeRunAnalysis,
  type ProbeItemRecord,
  type MeasureSummary,
  type GroupSummary,
} from './analyze.ts';
export { renderProbeAnalysis, MAIN_MEASURES, REPEAT_MEASURES, MANIPULATION_MEASURES } from './render.ts';
export {
  verifyProbeScoring,
  verifySample,
  VERIFY_TOLERANCE,
  VERIFY_SAMPLE,
  VERIFY_SEED,
  type VerifyTriple,
  type ProbeVerifyReport,
} from './verify.ts';
export {
  studyRunIds,
  loadStudySections,
  renderStudySections,
  studySectionsJson,
  studyHtmlSections,
  type StudySections,
  type StudyRunIds,
  type StudyOptions,
} from '../study-sections.ts';
