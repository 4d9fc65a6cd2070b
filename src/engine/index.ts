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
  prepareRun,
  planRun,
  validateCases,
  checkSamePlan,
  type RunRequest,
  type RunResult,
  type RunProgress,
  type CaseSetInfo,
} from './run.ts';
export { runWorker, type WorkerOptions, type WorkerProgress, type WorkerResult } from './worker.ts';
export type { RunContext } from './trajectory-task.ts';
export {
  parseHistoryPolicy,
  formatHistoryPolicy,
  selectExchanges,
  buildHistoryMessages,
  type HistoryPolicy,
  type Exchange,
} from './history.ts';
export { PAPER_PROTOCOL, protocolName, protocolSpec, protocolFromSpec, type ProtocolConfig } from './protocol.ts';
export type { ProtocolSpec } from '../store/plan.ts';
export { verbatimPolicy, type MessagePolicy, type BanProvider, type RoundContext, type ExchangeRecord } from './harness.ts';
export { REVLOOP_VERSION } from '../core/version.ts';
