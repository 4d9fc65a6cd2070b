// Public API of the run store (`revloop/store`, docs/store.md): open a store, read runs, their
// events, plans and trajectories (reduced from the events), check a run's hash chain, copy runs
// between stores (SQLite files and PostgreSQL URLs), and tell a lost database connection from a
// refusal. Studies write through the kit in store/study-runs.ts, which stays inside the repository.
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
  type ReadEventsOptions,
  type RunSummary,
  type RunInfo,
  type RunStatus,
  type MaterializedRun,
} from './store.ts';
export type { TrajectoryRecord, RoundRecord, TrajectoryStatus } from './types.ts';
export type { NewEvent, StoredEvent, EventType, EventPayloads, RunPlannedPayload, PerCase } from './events.ts';
export type { Plan, RunPlan, StudyPlan } from './plan.ts';
export type { ReducedRun } from './reduce.ts';
export { verifyChain, type EventRow, type ChainProblem } from './chain.ts';
export { copyRuns, type CopiedRun, type CopyOptions } from './copy.ts';
export { isConnectionLoss } from './connection-loss.ts';
