// Public API of the run store (`revloop/store`, docs/store.md): open a store, read runs, their
// events, plans and trajectories (reduced from the events), check a run's hash chain, copy runs
// between stores (SQLite files and PostgreSQL URLs), check a run's derived rows against its events,
// tell a lost database connection from a refusal, and register a study's run kinds (run-kinds.ts).
// Studies write through the kit in store/study-runs.ts, which stays inside the repository.
export {
  openStore,
  withStore,
  redactLocation,
  LeaseLostError,
  RunExistsError,
  type Lease,
  type LeaseSupport,
  type WorkerInfo,
  type AppendOptions,
  type RunStore,
  type StoreOptions,
  type ReadEventsOptions,
  type RunSummary,
  type RunInfo,
  type RunStatus,
  type MaterializedRun,
  type EventSummary,
  type LockHolder,
} from './store.ts';
export type { TrajectoryRecord, RoundRecord, TrajectoryStatus } from './types.ts';
export type { NewEvent, StoredEvent, EventType, EventPayloads, RunPlannedPayload, PerCase } from './events.ts';
export type { Plan, RunPlan, StudyPlan } from './plan.ts';
export { registerRunKind, runKind, registeredRunKinds, planFormat, planProblems, type RunKind, type FrozenPrefix } from './run-kinds.ts';
export type { ReducedRun } from './reduce.ts';
export { verifyChain, type EventRow, type RawEventRow, type ChainProblem } from './chain.ts';
export { copyRuns, type CopiedRun, type CopyOptions, type CopyDestination } from './copy.ts';
export {
  checkRunIntegrity,
  checkRunSlices,
  type IntegrityReport,
  type ReadCheck,
  type RunRowsVisitor,
  type CaseRows,
  type ScanOptions,
  type LogHead,
  type TableProblem,
  type RunRows,
  type DerivedRows,
  type RunRowValues,
  type TrajectoryRowValues,
  type RoundRowValues,
} from './integrity.ts';
export { runIdProblem, MAX_RUN_ID_LENGTH } from './run-id.ts';
export { isConnectionLoss } from './connection-loss.ts';
