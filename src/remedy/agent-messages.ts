// Turning an agent's steps into chat messages under a harness's message options (docs/harness.md §5.1). Successful
// steps are always an assistant turn (the action) followed by a user turn with the observation.
// Failed steps depend on the feedback form: `verbatim` keeps them like successful ones, `drop` deletes
// them, `abstract` replaces each with one user message carrying the abstracted failure note.
import type { ChatMessage } from '../models/types.ts';
import type { RevisionFeedback } from '@revloop/revise';
import {
  abstractFailureNote,
  defaultGloss,
  NEGATIVE_INSTRUCTION,
  OBSERVATION_PREFIX,
  type AgentStep,
  type GlossLookup,
} from './failure-record.ts';

/**
 * How an agent loop's context is built from its steps: an agent harness's message part (the revision
 * loop's counterpart is `MessageRules`).
 */
export interface AgentMessageOptions {
  /**
   * How failed steps appear in the next turn's context: kept (`verbatim`), replaced by an abstract
   * note (`abstract`), or removed (`drop`): the revision loop's feedback forms, applied to an agent's failed steps.
   */
  feedback: RevisionFeedback;
  /** Append the do-not-repeat instruction to the system prompt (system + "\n" + instruction). */
  negativeInstruction?: boolean;
  /** Prefix of observation messages (default "Observation: "). */
  observationPrefix?: string;
  /** Keep only the last N steps (default: all; unused in the reference study). */
  maxHistorySteps?: number | null;
  /** Gloss lookup for abstracted notes (default: the generic `defaultGloss`; ToolShed's is `errorGloss`). */
  gloss?: GlossLookup;
  /** Instruction text (default: the reference's do-not-repeat instruction). */
  instruction?: string;
}

/**
 * Messages for the next model turn: system, user(goal), then the steps under the options. The
 * failure counter of abstracted notes counts every kept failed step (1-based), as the reference's
 * does, so dropped or verbatim failures also advance it.
 */
export function buildAgentMessages(system: string, goal: string, steps: readonly AgentStep[], options: AgentMessageOptions): ChatMessage[] {
  const prefix = options.observationPrefix ?? OBSERVATION_PREFIX;
  const gloss = options.gloss ?? defaultGloss;
  const sys = options.negativeInstruction ? `${system}\n${options.instruction ?? NEGATIVE_INSTRUCTION}` : system;
  const messages: ChatMessage[] = [
    { role: 'system', content: sys },
    { role: 'user', content: goal },
  ];
  const max = options.maxHistorySteps;
  const kept = max != null ? (max > 0 ? steps.slice(-max) : []) : steps;
  let failedSeen = 0;
  for (const step of kept) {
    if (!step.ok) {
      failedSeen++;
      if (options.feedback === 'drop') continue;
      if (options.feedback === 'abstract') {
        messages.push({ role: 'user', content: abstractFailureNote(step, failedSeen, gloss) });
        continue;
      }
    }
    messages.push({ role: 'assistant', content: step.action });
    messages.push({ role: 'user', content: `${prefix}${step.observation}` });
  }
  return messages;
}
