// Public API of the remedy for feedback inversion (`revloop/remedy`, docs/remedy.md), for your own
// agents: abstract failed steps instead of echoing them, and ban previously failed actions at
// decoding time. `FailureLedger` is the one-object form; the functions below are its parts.
export {
  FailureLedger,
  abstractFailures,
  type FailureRecord,
  type LedgerOptions,
  type LedgerGenerateOptions,
  type LedgerGenerateResult,
} from './ledger.ts';
export {
  abstractFailureNote,
  callName,
  glossTable,
  defaultGloss,
  GENERIC_GLOSS,
  NEGATIVE_INSTRUCTION,
  OBSERVATION_PREFIX,
  type AgentStep,
  type GlossLookup,
} from './failure-record.ts';
export { buildAgentMessages, FAILURE_POLICIES, type FailurePolicy, type AgentHistoryPolicy } from './messages.ts';
export { failedActions, banStrings, banTokenSequences, type TokenSeq } from './ban.ts';
