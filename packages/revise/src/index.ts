// @revloop/revise: the revision loop of revloop as a package of its own (docs/revise.md). The kernel
// (one trajectory: model call, verifier, policy, stop conditions, guards, sink), revise() and its
// stream, the verifiers, the named policies the lab shares, and the AI SDK adapters. No runtime
// dependencies and no Node built-ins: `ai`, `zod`, `ajv` and `@opentelemetry/api` are optional peers.
export { revise, reviseStream, renderViolations, resolvePolicy, type ReviseStream, type ResolvedPolicy } from './revise/revise.ts';
export {
  zodVerifier,
  jsonSchemaVerifier,
  familyVerifier,
  parseJsonDraft,
  jsonText,
  type ZodLike,
  type PreparedVerifyFunction,
  type FamilyVerifyFunction,
} from './revise/verifiers.ts';
export {
  aiSdkModel,
  isAiSdkModel,
  aiSdkUsage,
  aiSdkText,
  toAiSdkPrompt,
  fromAiSdkPrompt,
  type AiSdkModelOptions,
  type AiSdkBackedModel,
} from './revise/ai-sdk.ts';
export {
  reviseMiddleware,
  repairToolCall,
  type ReviseMiddlewareOptions,
  type RepairToolCallOptions,
  type ReviseLanguageModelMiddleware,
  type ReviseCallOptions,
  type ToolCallRepairFunction,
  type ToolCallLike,
  type ModelMessageLike,
} from './revise/middleware.ts';
export type { LanguageModelLike, AiSdkPromptMessage, AiSdkGenerateResult } from './revise/ai-sdk-types.ts';
export { isRetryableError, retryDelayMs, type RetryPolicy } from './revise/retry.ts';
export { withTelemetry, type ReviseTelemetry } from './revise/telemetry.ts';
export type {
  ReviseOptions,
  ReviseResult,
  ReviseEvent,
  ReviseStatus,
  ReviseBudget,
  FeedbackRenderer,
  Attempt,
  Violation,
  VerifyResult,
  VerifyFunction,
  FamilyVerify,
  FamilyLike,
  FamilyCase,
  FamilyState,
  Pricing,
  Usage,
  CycleReport,
  CycleOutcome,
} from './revise/revise-types.ts';

// The kernel.
export { runLoop, INITIAL_TOKENS_PER_CHAR, type LoopOptions, type LoopVerifier, type LoopPolicy, type LoopGuard } from './kernel/loop.ts';
export {
  stopOnSuccess,
  stopAfterRevisions,
  stopOnCycle,
  stopAtTokens,
  stopAtUsd,
  stopAtMs,
  stopWhen,
  stopConditions,
  costOf,
  type StopCondition,
  type StopPredicate,
  type StopVerdict,
} from './kernel/stop.ts';
export type {
  Identity,
  LoopRequest,
  RequestAction,
  Verification,
  LoopRound,
  PriorRound,
  LoopUsage,
  LoopState,
  Projection,
  GenerationStart,
  NumberedAttempt,
  Generation,
  LoopEnd,
  LoopNote,
  LoopSink,
  LoopOutcome,
} from './kernel/loop-types.ts';
export {
  modelCanBan,
  modelCanBanAnswers,
  type ChatMessage,
  type AttemptRecord,
  type GenerateResult,
  type ModelCallOptions,
  type ReviseModel,
} from './model.ts';

// The policies (shared with the lab: `revloop run --harness NAME` runs the same ones).
export {
  REVLOOP_DEFAULT_POLICY,
  POLICY_PRESETS,
  PAPER_BUDGET,
  policyName,
  policyPreset,
  parseHistorySpec,
  messageRulesOf,
  banKindFor,
  type RevisionPolicy,
  type HistorySpec,
  type BanSpec,
  type BanKind,
  type CycleAction,
  type PolicyName,
} from './policy/revision-policy.ts';
export {
  buildRevisionMessages,
  planRevisionRequest,
  planWindow,
  keptExchanges,
  windowStart,
  REVISION_FEEDBACKS,
  type RevisionFeedback,
  type MessageRules,
  type RevisionExchange,
  type HistoryAction,
  type WindowPlan,
} from './policy/revision-messages.ts';
export {
  parseHistoryWindow,
  formatHistoryWindow,
  selectExchanges,
  buildHistoryMessages,
  type HistoryWindow,
  type Exchange,
} from './policy/history-window.ts';
export {
  normaliseDraft,
  draftKey,
  recurrenceOf,
  cycleAt,
  violationTag,
  violationSet,
  type DraftNormalisation,
  type AttemptShape,
  type CycleKind,
  type CycleFinding,
} from './policy/recurrence.ts';
export {
  abstractFailureNote,
  abstractDraftNote,
  glossTable,
  defaultGloss,
  GENERIC_GLOSS,
  UNKNOWN_FAILURE_GLOSS,
  callName,
  OBSERVATION_PREFIX,
  type AgentStep,
  type GlossLookup,
} from './policy/failure-record.ts';
export { banStrings } from './policy/ban.ts';
export { pyStrip, isPySpaceCode } from './py-strip.ts';
export {
  RevloopError,
  UserError,
  UsageError,
  CapabilityError,
  RevisionFailedError,
  markErrorClass,
  namingOption,
  namedOptions,
  messageNaming,
  type ErrorCode,
} from './errors.ts';
