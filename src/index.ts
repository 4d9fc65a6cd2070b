// revloop's root entry point (`import … from 'revloop'`): the main entry of each module and the
// typed errors every module throws. Each module's full API is its own subpath — 'revloop/verify',
// 'revloop/models', 'revloop/remedy', … (package.json `exports`; docs/library.md). The names here are
// the same bindings as the subpaths', not copies.
export {
  getFamily,
  listFamilies,
  registerFamily,
  loadFamilyPlugins,
  type Family,
  type VerifierState,
  type ConstraintCase,
  type PromptVariant,
} from './core/verify/index.ts';
export { loadCaseSet, validateCaseFile, writeCaseSet } from './core/cases/index.ts';
export { countWords, sentTokenize, wordTokenize } from './core/text/index.ts';
export { createModel, type Model, type ModelOptions, type ChatMessage, type GenerateOptions, type GenerateResult } from './models/index.ts';
export { executeRun, runTrajectory, PAPER_PROTOCOL, type RunRequest, type RunResult, type ProtocolConfig } from './engine/index.ts';
export { openStore, type RunStore, type TrajectoryRecord, type RoundRecord } from './store/index.ts';
export { analyzeTrajectories, renderAnalysis, type AnalysisResult } from './studies/revision/analysis/index.ts';
export { renderReport, writeReportFile } from './report/index.ts';
export { FailureLedger, type FailureRecord, type LedgerOptions } from './remedy/index.ts';
export {
  revise,
  reviseStream,
  zodVerifier,
  jsonSchemaVerifier,
  familyVerifier,
  reviseMiddleware,
  repairToolCall,
  aiSdkModel,
  REVLOOP_DEFAULT_POLICY,
  type ReviseOptions,
  type ReviseResult,
  type ReviseEvent,
  type Attempt,
  type Violation,
  type VerifyResult,
} from './revise/index.ts';
export {
  RevloopError,
  UserError,
  UsageError,
  InputError,
  NotFoundError,
  PlanMismatchError,
  RunLockedError,
  CapabilityError,
  StoreError,
  ProviderError,
  DataMissingError,
  RevisionFailedError,
  type ErrorCode,
} from './core/errors.ts';
