// Public API of case sets: readers for the paper's, COLLIE's and revloop's formats, validation,
// manifests and the native writer.
export * from './types.ts';
export { loadCaseSet, validateCaseFile, parseFormat, type LoadOptions, type ValidationReport } from './load.ts';
export { computeManifest, manifestHash, manifestIsIntact, rowSha256, type ManifestInput } from './manifest.ts';
export { writeCaseSet, caseProblems } from './write.ts';
export { CaseSetError, renderProblems } from './errors.ts';
export { detectRowFormat } from './detect.ts';
export { nativeRow, NATIVE_FIELDS, DEFAULT_NATIVE_SOURCE } from './formats/native.ts';
