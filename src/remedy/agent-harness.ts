// Harness variants for agent loops (docs/harness.md §5.1): how failed steps enter the context, an
// optional do-not-repeat instruction, and an optional decoder ban of earlier failed actions. The
// agent study runs these by name and `FailureLedger` takes them by name, so a harness means the same
// thing in the lab and in your own agent. The study compared six; `drop+ban` is registered but was
// not run.
import { UserError } from '../core/errors.ts';
import type { AgentMessageOptions } from './agent-messages.ts';

/** An agent harness: how its messages show failed steps, and whether earlier failed actions are banned at decoding. */
export interface AgentHarness {
  name: AgentHarnessName;
  messages: AgentMessageOptions;
  /** Ban previously failed actions at decoding time (needs the backend's `ban` capability). */
  ban: boolean;
}

/** The agent harnesses' names, in the reference's order (drop+ban registered but not run by the study). */
export const AGENT_HARNESS_NAMES = ['verbatim', 'verbatim+instr', 'abstract', 'drop', 'verbatim+ban', 'abstract+ban', 'drop+ban'] as const;
/** The name of an agent harness (verbatim, verbatim+instr, abstract, drop, and the +ban variants). */
export type AgentHarnessName = (typeof AGENT_HARNESS_NAMES)[number];

/** Every agent harness by name: how failed steps enter the context, and whether failed actions are banned at decoding. */
export const AGENT_HARNESSES: Readonly<Record<AgentHarnessName, AgentHarness>> = {
  verbatim: { name: 'verbatim', messages: { feedback: 'verbatim' }, ban: false },
  'verbatim+instr': { name: 'verbatim+instr', messages: { feedback: 'verbatim', negativeInstruction: true }, ban: false },
  abstract: { name: 'abstract', messages: { feedback: 'abstract' }, ban: false },
  drop: { name: 'drop', messages: { feedback: 'drop' }, ban: false },
  'verbatim+ban': { name: 'verbatim+ban', messages: { feedback: 'verbatim' }, ban: true },
  'abstract+ban': { name: 'abstract+ban', messages: { feedback: 'abstract' }, ban: true },
  'drop+ban': { name: 'drop+ban', messages: { feedback: 'drop' }, ban: true },
};

/** The agent harness of this name; throws a UserError naming the known ones for an unknown name. */
export function getAgentHarness(name: string): AgentHarness {
  if (!(AGENT_HARNESS_NAMES as readonly string[]).includes(name)) {
    throw new UserError(`unknown harness "${name}"; choose one of ${AGENT_HARNESS_NAMES.join(', ')}`);
  }
  return AGENT_HARNESSES[name as AgentHarnessName];
}
