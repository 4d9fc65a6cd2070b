// Abstracted failure records (HARNESS §3.3, §5.1): a failed step is described by the tool it called
// and a gloss of its error family, never by the failed call itself, so the failed token sequence is
// not placed back in the model's context. The note text is the reference's byte for byte.
import { errorGloss } from '../envs/toolshed/errors.ts';
import { NEGATIVE_INSTRUCTION, OBSERVATION_PREFIX } from '../envs/toolshed/prompt.ts';

export { NEGATIVE_INSTRUCTION, OBSERVATION_PREFIX };

/** One executed step of an agent: what it emitted and what the environment answered. */
export interface AgentStep {
  /** The action as the harness records it (the extracted call, not the raw model output). */
  action: string;
  observation: string;
  ok: boolean;
  /** Error family of a failed step (e.g. `file_not_found`); unknown families read "the call failed". */
  errorType?: string | null;
  /** Name of the tool the action called, when it parsed (misspelled names included). */
  tool?: string | null;
}

/** Maps an error family to its short gloss; the default is the ToolShed/CodeRepair table. */
export type GlossLookup = (errorType: string | null | undefined) => string;

export const defaultGloss: GlossLookup = errorGloss;

/** A gloss lookup from your own table, falling back to `fallback` for unknown families. */
export function glossTable(table: Readonly<Record<string, string>>, fallback = 'the call failed'): GlossLookup {
  return (kind) => (kind && Object.prototype.hasOwnProperty.call(table, kind) ? table[kind] : fallback);
}

/**
 * The abstracted note for the `index`-th failed step (1-based):
 * `[attempt {index} failed: {tool or "the tool"} — {gloss}; that call is not repeatable]`
 * (em dash U+2014 with spaces, as the reference models saw it).
 */
export function abstractFailureNote(step: Pick<AgentStep, 'tool' | 'errorType'>, index: number, gloss: GlossLookup = defaultGloss): string {
  const tool = step.tool ? step.tool : 'the tool';
  return `[attempt ${index} failed: ${tool} \u2014 ${gloss(step.errorType ?? null)}; that call is not repeatable]`;
}

/** The bare marker of the probe's `abstract_min` condition (no diagnosis, no call). */
export const ABSTRACT_MIN_NOTE = '[attempt 1 failed]';
