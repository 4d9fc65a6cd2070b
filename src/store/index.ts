// Public API of the run store (docs/store.md): open a store, append and read a run's events, list
// runs, read trajectories (reduced from events), plans and their immutability, and the kit other
// studies use for their runs, sessions and keyed records.
export type { RoundRecord, TrajectoryRecord, TrajectoryStatus } from './types.ts';
export {
  openStore,
  withStore,
  isPostgresLocation,
  redactLocation,
  SimulatedCrash,
  LeaseLostError,
  RunExistsError,
  type Lease,
  type LeaseSupport,
  type WorkerInfo,
  type AppendOptions,
  type RunStore,
  type StoreOptions,
  type RunSummary,
  type RunInfo,
  type RunStatus,
  type MaterializedRun,
} from './store.ts';
export type {
  EventType,
  NewEvent,
  StoredEvent,
  EventPayloads,
  RunPlannedPayload,
  TrajectoryRunPlanned,
  StudyRunPlanned,
  PerCase,
  RecordPayload,
  SessionStartedPayload,
  SessionFinishedPayload,
} from './events.ts';
export { eventKey } from './events.ts';
export { GENESIS_HASH, eventHash, verifyChain, type EventRow, type ChainProblem } from './chain.ts';
export { reduceRun, type ReducedRun } from './reduce.ts';
export {
  diffPlans,
  planSha256,
  assertSamePlan,
  familyFingerprint,
  isTrajectoryPlan,
  type Plan,
  type RunPlan,
  type StudyPlan,
  type StudyController,
  type PlanController,
  type FamilyFingerprint,
} from './plan.ts';
export {
  openStudyRun,
  studyRuns,
  startStudySession,
  finishStudySession,
  studySessions,
  readRecords,
  recordKeys,
  appendRecords,
  studyPlanned,
  type StudyRunRequest,
  type StudyRecord,
  type StudySession,
} from './study-runs.ts';
export { copyRuns, type CopiedRun, type CopyOptions } from './copy.ts';
