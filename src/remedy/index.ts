// The remedy layer (docs/remedy.md): the lab's policies for agent loops, for your own agents as for
// the lab's: failure ledgers (records in place of failed calls), agent message policies and the
// harness variants, and ban lists of failed actions as token sequences. The policies revision loops
// share with revise() (failure records, history windows, revision messages, recurrence and cycles,
// the named revision policies) are the app library's: import them from '@revloop/revise'.
export { buildAgentMessages, type AgentMessageOptions } from './agent-messages.ts';
export { AGENT_HARNESSES, AGENT_HARNESS_NAMES, getAgentHarness, type AgentHarness, type AgentHarnessName } from './agent-harness.ts';
export { banTokenSequences, failedActions, type TokenSeq } from './ban.ts';
export {
  FailureLedger,
  abstractFailures,
  type FailureRecord,
  type LedgerOptions,
  type LedgerGenerateOptions,
  type LedgerGenerateResult,
} from './ledger.ts';
