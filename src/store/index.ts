// Public API of the run store: open a store, list runs, read trajectories (reduced from events),
// audit, export and import. See docs/store.md.
export type { RoundRecord, TrajectoryRecord, TrajectoryStatus } from './types.ts';
export { openStore, RunStore, SimulatedCrash, type StoreOptions, type RunSummary, type RunInfo, type RunStatus } from './store.ts';
export type { EventType, NewEvent, StoredEvent, EventPayloads, RunPlannedPayload, PerCase } from './events.ts';
export { reduceRun, type ReducedRun } from './reduce.ts';
export { diffPlans, planSha256, familyFingerprint, type RunPlan, type FamilyFingerprint } from './plan.ts';
export { auditRun, formatDiscrepancy, type AuditReport, type Discrepancy } from '../engine/audit.ts';
export { paperRow, paperJsonl } from '../studies/revision/export-paper.ts';
export { importTrajectories, parseImportLines, type ImportLine, type ImportSummary } from '../studies/revision/import.ts';
export { convertCollieLog, controllerFromLogName, type CollieLogConversion } from '../studies/revision/collie-log.ts';
