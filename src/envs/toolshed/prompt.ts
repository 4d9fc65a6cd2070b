// The ToolShed system prompt (docs/harness.md §1.3), the agent-study format demo and the do-not-repeat
// instruction. Byte-exact: these strings are what the models were conditioned on.
import { TOOLS, toolDoc } from './tools.ts';
import { NEGATIVE_INSTRUCTION, OBSERVATION_PREFIX } from '../../remedy/failure-record.ts';

/** The remedy owns the do-not-repeat instruction and the observation prefix; ToolShed uses them as they are. */
export { NEGATIVE_INSTRUCTION, OBSERVATION_PREFIX };

/** Appended after the prompt's trailing newline in the free-running agent study (demo on). */
export const DEMO = "\nA valid reply looks exactly like this, with no prefix or explanation:\nlist_files(folder='notes')\n";

/** Options of `systemPrompt`. */
export interface SystemPromptOptions {
  /** Append the format demonstration (agent study); off for the probe. */
  demo?: boolean;
}

/** ToolShed's system prompt with every tool's signature and doc; with `demo` it ends with the agent study's format demonstration. */
export function systemPrompt(options: SystemPromptOptions = {}): string {
  const toolDocs = TOOLS.map(toolDoc).join('\n');
  const demo = options.demo ? DEMO : '';
  return (
    "You are a tool-using assistant working inside a small office workspace. Solve the user's request by calling tools one at a time.\n\n" +
    'Rules:\n' +
    '- Reply with exactly one tool call and nothing else.\n' +
    '- Use the form tool_name(arg=value), with keyword arguments.\n' +
    '- Dates are YYYY-MM-DD and times are HH:MM.\n' +
    '- When the request is fully satisfied, reply with finish().\n\n' +
    `Available tools:\n${toolDocs}\n${demo}`
  );
}

/** The system prompt with the do-not-repeat instruction appended (a blank line precedes it). */
export function withNegativeInstruction(system: string): string {
  return `${system}\n${NEGATIVE_INSTRUCTION}`;
}
