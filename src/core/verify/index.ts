// Public API of the verifiers: the family registry, the built-in families, state serialisation.
export * from './types.ts';
export { getFamily, registerFamily, unregisterFamily, listFamilies, familyNames, hasFamily, type RegisterOptions } from './registry.ts';
export { exactLengthFamily, exactLengthAction, verifyExactLength } from './exact-length.ts';
export { c05Family, c07Family, c09Family, c10Family, c12Family, NO_WITNESS_MAX_TOKENS } from './structured/families.ts';
export { verifyC05, verifyC07, verifyC09, verifyC10, verifyC12, C05_POSITIONS } from './structured/verifiers.ts';
export { corruptionChecks, type StructureCode } from './structured/corruption.ts';
export { words as structuredWords, sentences as structuredSentences, normalizedLiteral } from './structured/units.ts';
export { violationEnergy, stateEnergy } from './energy.ts';
export { stateJson, verifyRecord } from './records.ts';
export { verifyBatch, verifyBatchToFile, verifyLine, type BatchOptions, type BatchSummary } from './batch.ts';
export { idleCores } from './batch-threads.ts';
export { caseFromRequest, type VerifyRequest, type RequestResult } from './input.ts';
export { loadFamilyPlugins } from './plugins.ts';
