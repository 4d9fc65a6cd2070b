// Public API of the revision engine (`revloop/engine`, docs/running.md): a whole run with plan,
// resume and store (executeRun), one trajectory without a store (runTrajectory), the protocol and
// message policies, the harness hooks (message policies, bans), the replay audit of a stored run, and a
// worker that shares a PostgreSQL run with others (runWorker).
export { executeRun, type RunRequest, type RunResult, type RunProgress, type CaseSetInfo } from './trajectory-run.ts';
export {
  runTrajectory,
  type TrajectoryJob,
  type TrajectorySink,
  type TrajectoryOutcome,
  type EngineOptions,
  type AcceptedRound,
  type AttemptStart,
  type StopReason,
  type GenerationGuard,
  type GuardStop,
} from './loop.ts';
export { PAPER_PROTOCOL, type ProtocolConfig } from './protocol.ts';
export {
  verbatimMessages,
  messageBuilderNamed,
  banProviderNamed,
  type MessageBuilder,
  type BanProvider,
  type RoundContext,
  type ExchangeRecord,
} from './round-policy.ts';
export { auditRun, type AuditReport, type Discrepancy } from './audit.ts';
export { runWorker, type WorkerOptions, type WorkerProgress, type WorkerResult } from './worker.ts';
