// The six agent harnesses the study ran (docs/harness.md §5.1), in the reference's reporting order.
// The harnesses themselves are the remedy layer's (src/remedy/agent-harness.ts: AgentHarness,
// AGENT_HARNESSES, getAgentHarness), which `FailureLedger` takes by the same names.
import type { AgentHarnessName } from '../../remedy/agent-harness.ts';

/** The six harnesses of the study, in the reference's reporting order. */
export const STUDY_HARNESSES: readonly AgentHarnessName[] = [
  'verbatim',
  'verbatim+instr',
  'abstract',
  'drop',
  'verbatim+ban',
  'abstract+ban',
];
