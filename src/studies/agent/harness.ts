// The agent study's harnesses are the remedy layer's agent harnesses (src/remedy/agent-harness.ts,
// docs/harness.md §5.1); this module only names the six the study ran, in the reference's order.
import {
  AGENT_HARNESSES,
  AGENT_HARNESS_NAMES,
  getAgentHarness,
  type AgentHarness,
  type AgentHarnessName,
} from '../../remedy/agent-harness.ts';

export type Harness = AgentHarness;
export type HarnessName = AgentHarnessName;
export const HARNESS_NAMES = AGENT_HARNESS_NAMES;
export const HARNESSES = AGENT_HARNESSES;
export const getHarness = getAgentHarness;

/** The six harnesses of the study, in the reference's reporting order. */
export const STUDY_HARNESSES: readonly HarnessName[] = ['verbatim', 'verbatim+instr', 'abstract', 'drop', 'verbatim+ban', 'abstract+ban'];
