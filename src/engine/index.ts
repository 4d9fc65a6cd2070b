// Public API of the revision engine: one trajectory (runTrajectory), a whole run with plan,
// resume and store (executeRun), history policies, protocol configuration and harness hooks.
// See docs/running.md.
export {
  runTrajectory,
  acceptDraft,
  stopReason,
  messagesSha256,
  type TrajectorySink,
  type TrajectoryJob,
  type TrajectoryOutcome,
  type AcceptedRound,
  type AttemptStart,
  type NumberedAttempt,
  type EngineOptions,
  type StopReason,
} from './loop.ts';
export {
  executeRun,
  planRun,
  validateCases,
  checkSamePlan,
  REVLOOP_VERSION,
  type RunRequest,
  type RunResult,
  type RunProgress,
  type CaseSetInfo,
} from './run.ts';
export {
  parseHistoryPolicy,
  formatHistoryPolicy,
  selectExchanges,
  buildHistoryMessages,
  type HistoryPolicy,
  type Exchange,
} from './history.ts';
export { PAPER_PROTOCOL, protocolName, protocolSpec, protocolFromSpec, type ProtocolConfig, type ProtocolSpec } from './protocol.ts';
export { verbatimPolicy, type MessagePolicy, type BanProvider, type RoundContext, type ExchangeRecord } from './harness.ts';
export { createProgressReporter, progressLine } from '../cli/progress/run-progress.ts';
