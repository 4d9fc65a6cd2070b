// Public API of the verifiers (`revloop/core/verify`, docs/verify.md): the family registry and plugins,
// the family and state types, the reference verifiers of the paper's families, energies, state
// records and batch verification. Everything else in core/verify is importable by path inside the
// repository but not part of the package's API (docs/library.md).

// The registry: look families up, add your own. Importing this module registers every built-in
// family (builtin-families.ts; the registry alone loads them on demand).
import './builtin-families.ts';
export {
  getFamily,
  listFamilies,
  familyNames,
  hasFamily,
  loadFamilies,
  registerFamily,
  unregisterFamily,
  type RegisterOptions,
} from './registry.ts';
export { loadFamilyPlugins } from './plugins.ts';

// Types of families, cases and states.
export {
  PROMPT_VARIANTS,
  BUILTIN_FAMILIES,
  type PromptVariant,
  type BuiltinFamily,
  type VerifierState,
  type ConstraintCase,
  type Family,
  type ExactLengthState,
  type C05State,
  type C07State,
  type C09State,
  type C10State,
  type C12State,
  type SentenceCountFields,
  type TextRule,
} from './types.ts';
export type { C01State, C02State, C03State, C04State, C06aState, C08State, C11State, C14State } from './collie/types.ts';
export { withIfevalMode, type IfevalState } from './ifeval/family.ts';
export { IFEVAL_MODES, type IfevalMode, type IfevalTargets, type InstructionOutcome } from './ifeval/evaluate.ts';

// The reference functions of the paper's families (the same as getFamily(name).verify).
export { verifyExactLength } from './exact-length.ts';
export { verifyC05, verifyC07, verifyC09, verifyC10, verifyC12 } from './structured/verifiers.ts';
export { corruptionChecks, type StructureCode } from './structured/corruption.ts';
export { words as structuredWords, sentences as structuredSentences } from './structured/units.ts';

// Energies, state records, batches.
export { violationEnergy, stateEnergy } from './energy.ts';
export { stateJson, verifyRecord } from './records.ts';
export { verifyBatch, verifyBatchToFile, type BatchOptions, type BatchSummary } from './batch.ts';
export type { VerifyRequest } from './input.ts';
