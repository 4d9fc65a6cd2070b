// Public API of the revision controller (docs/revise.md): revise(), its stream, built-in verifiers,
// the AI SDK adapters, and the named policies it shares with the lab.
export { revise, reviseStream, renderViolations, type ReviseStream } from './revise.ts';
export { zodVerifier, jsonSchemaVerifier, familyVerifier, parseJsonDraft, jsonText, type ZodLike } from './verifiers.ts';
export {
  aiSdkModel,
  isAiSdkModel,
  aiSdkUsage,
  aiSdkText,
  toAiSdkPrompt,
  fromAiSdkPrompt,
  type AiSdkModelOptions,
  type AiSdkBackedModel,
} from './ai-sdk.ts';
export { reviseMiddleware, repairToolCall, type ReviseMiddlewareOptions, type RepairToolCallOptions } from './middleware.ts';
export type { LanguageModelLike } from './ai-sdk-types.ts';
export { REVLOOP_DEFAULT_POLICY, POLICY_PRESETS, policyPreset, type RevisionPolicy } from '../remedy/revision-policy.ts';
export type {
  ReviseOptions,
  ReviseResult,
  ReviseEvent,
  ReviseStatus,
  ReviseBudget,
  RevisePolicy,
  Attempt,
  Violation,
  VerifyResult,
  VerifyFunction,
  FamilyVerify,
  Pricing,
  Usage,
  CycleReport,
} from './types.ts';

// Every built-in family, registered before the library's user calls anything here (the registry
// loads them on demand otherwise: core/verify/registry.ts).
import '../core/verify/builtin-families.ts';
