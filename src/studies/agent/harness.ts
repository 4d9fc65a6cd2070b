// The agent study's harnesses are the remedy layer's agent harnesses (src/remedy/agent-harness.ts,
// docs/harness.md §5.1); this module only names the six the study ran, in the reference's order.
import {
  AGENT_HARNESSES,
  AGENT_HARNESS_NAMES,
  getAgentHarness,
  type AgentHarness,
  type AgentHarnessName,
} from '../../remedy/agent-harness.ts';

/** A harness of the agent study (an agent harness of the remedy layer). */
export type Harness = AgentHarness;
/** The name of a harness of the agent study. */
export type HarnessName = AgentHarnessName;
/** The agent study's harness names. */
export const HARNESS_NAMES = AGENT_HARNESS_NAMES;
/** Every harness of the agent study by name (the remedy layer's agent harnesses). */
export const HARNESSES = AGENT_HARNESSES;
/** The harness of this name; throws a UserError naming the known harnesses for an unknown one. */
export const getHarness = getAgentHarness;

/** The six harnesses of the study, in the reference's reporting order. */
export const STUDY_HARNESSES: readonly HarnessName[] = ['verbatim', 'verbatim+instr', 'abstract', 'drop', 'verbatim+ban', 'abstract+ban'];
