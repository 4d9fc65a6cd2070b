// revloop's additions to the app library (`revloop/revise`, docs/revise.md §7): revise(),
// reviseStream(), familyVerifier(), reviseMiddleware() and repairToolCall() as `@revloop/revise` has
// them, plus model spec strings (`createModel`), families by name (the registry of 'revloop/core/verify')
// and recording in a store. They keep the package's names on purpose, so that code moves from the app
// to the lab by changing the import; everything else (verifiers, the kernel, stop conditions, policies,
// the AI SDK adapters, the result and event types) is imported from '@revloop/revise'.
export {
  revise,
  reviseStream,
  familyVerifier,
  reviseMiddleware,
  repairToolCall,
  type ReviseMiddlewareOptions,
  type RepairToolCallOptions,
} from './revise.ts';
export type { ReviseOptions, FamilyVerify } from './types.ts';

// Every built-in family, registered before the library's user calls anything here (the registry
// loads them on demand otherwise: core/verify/registry.ts).
import '../core/verify/builtin-families.ts';
