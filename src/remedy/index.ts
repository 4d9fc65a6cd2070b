// The remedy for feedback inversion, as a library for your own agents (docs/remedy.md): abstract
// failed steps instead of echoing them, and ban previously failed actions at decoding time.
export {
  abstractFailureNote,
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
export { buildAgentMessages, FAILURE_POLICIES, type FailurePolicy, type HistoryPolicy } from './messages.ts';
export { banStrings, banTokenSequences, failedActions, type TokenSeq } from './ban.ts';
export {
  FailureLedger,
  abstractFailures,
  type FailureRecord,
  type LedgerOptions,
  type LedgerGenerateOptions,
  type LedgerGenerateResult,
} from './ledger.ts';
