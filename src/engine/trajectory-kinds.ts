// The trajectory run kinds the engine itself knows by name, registered with the store
// (src/store/run-kinds.ts): `run`, the closed loop it plans and runs (every round generated here, its
// requests rebuilt by the audit from the protocol's names); `import`, trajectories generated
// elsewhere (no attempts behind their rounds); and `revise`, a recorded `revise()` loop (the
// caller's prompt and verifier). A light module, so that reading commands register them without
// loading the engine.
import { trajectoryPlanProblems } from '../store/plan.ts';
import { registerRunKind, type RunKind } from '../store/run-kinds.ts';

const trajectoryKind = (kind: string): RunKind => ({ kind, study: 'revision', planVersion: 1, validatePlan: trajectoryPlanProblems });

/** The closed loop `executeRun` plans unless told otherwise. */
export const RUN_KIND = trajectoryKind('run');
/** Trajectories imported from elsewhere (src/studies/revision/import.ts). */
export const IMPORT_KIND = trajectoryKind('import');
/** A recorded `revise()` loop (src/revise/record.ts). */
export const REVISE_KIND = trajectoryKind('revise');

registerRunKind(RUN_KIND, IMPORT_KIND, REVISE_KIND);
