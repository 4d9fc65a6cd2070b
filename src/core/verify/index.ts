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
export { caseFromRequest, type VerifyRequest, type RequestResult, type RequestOptions } from './input.ts';
export { loadFamilyPlugins } from './plugins.ts';
export {
  c01Family,
  c02Family,
  c03Family,
  c04Family,
  c06aFamily,
  c08Family,
  c11Family,
  c14Family,
  COLLIE_FAMILIES,
} from './collie/families.ts';
export {
  verifyC01,
  verifyC02,
  verifyC03,
  verifyC04,
  verifyC06a,
  verifyC08,
  verifyC11,
  verifyC14,
  C02_POSITIONS,
} from './collie/verifiers.ts';
export { COLLIE_CODES, type CollieCode } from './collie/types.ts';
export type { C01State, C02State, C03State, C04State, C06aState, C08State, C11State, C14State } from './collie/types.ts';
export { ifevalFamily, verifyIfeval, ifevalMode, withIfevalMode, type IfevalState } from './ifeval/family.ts';
export {
  evaluateIfeval,
  looseVariants,
  IFEVAL_MODES,
  type IfevalMode,
  type IfevalTargets,
  type InstructionOutcome,
} from './ifeval/evaluate.ts';
export { INSTRUCTION_IDS, LANGUAGE_NAMES, buildInstruction, checkInstruction, createCheckContext } from './ifeval/instructions.ts';
export { detectLanguage, detectLangs, languageCodes, LangDetectError } from './ifeval/langdetect/detector.ts';
