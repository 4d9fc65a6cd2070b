// The remedy layer (docs/remedy.md, docs/revise.md): the policies every loop in revloop applies,
// for your own agents and revision loops as for the lab's. Failure abstraction (records in place of
// failed calls or drafts), message policies for agent loops and for revision loops, ban lists of
// failed outputs, and recurrence and cycle detection.
export {
  abstractFailureNote,
  abstractDraftNote,
  glossTable,
  defaultGloss,
  GENERIC_GLOSS,
  UNKNOWN_FAILURE_GLOSS,
  callName,
  ABSTRACT_MIN_NOTE,
  NEGATIVE_INSTRUCTION,
  OBSERVATION_PREFIX,
  type AgentStep,
  type GlossLookup,
} from './failure-record.ts';
export { buildAgentMessages, type AgentMessageOptions } from './agent-messages.ts';
export { AGENT_HARNESSES, AGENT_HARNESS_NAMES, getAgentHarness, type AgentHarness, type AgentHarnessName } from './agent-harness.ts';
export { banStrings, banTokenSequences, failedActions, type TokenSeq } from './ban.ts';
export {
  FailureLedger,
  abstractFailures,
  type FailureRecord,
  type LedgerOptions,
  type LedgerGenerateOptions,
  type LedgerGenerateResult,
} from './ledger.ts';
export {
  parseHistoryWindow,
  formatHistoryWindow,
  selectExchanges,
  buildHistoryMessages,
  type HistoryWindow,
  type Exchange,
} from './history-window.ts';
export {
  buildRevisionMessages,
  keptExchanges,
  windowStart,
  REVISION_FEEDBACKS,
  type RevisionFeedback,
  type MessageRules,
  type RevisionExchange,
} from './revision-messages.ts';
export {
  REVLOOP_DEFAULT_POLICY,
  POLICY_PRESETS,
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
} from '@revloop/revise';
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
} from './recurrence.ts';
