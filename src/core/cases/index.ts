// Public API of case sets (`revloop/core/cases`, docs/cases.md): load and validate the paper's, COLLIE's,
// IFEval's and revloop's own formats, check a case set's manifest, and write native case files.

export { loadCaseSet, validateCaseFile, type LoadOptions, type ValidationReport } from './load.ts';
export { writeCaseSet, caseProblems } from './write.ts';
export { manifestIsIntact } from './manifest.ts';
export { CaseSetError } from './errors.ts';
export { CASE_FORMATS, type CaseFormat, type CaseProblem, type UnsupportedRow, type CaseSetManifest, type LoadedCaseSet } from './types.ts';

// Every built-in family, registered before the library's user calls anything here (the registry
// loads them on demand otherwise: core/verify/registry.ts).
import '../verify/builtin-families.ts';
