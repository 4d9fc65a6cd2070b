// Abstracted failure records (docs/harness.md §3.3, §5.1): a failed step is described by the tool it called
// and a gloss of its error family, never by the failed call itself, so the failed token sequence is
// not placed back in the model's context. The note text is the reference's byte for byte.
//
// Nothing here knows a particular environment: the gloss table and the tool-name parser are
// parameters (an environment supplies its own, as envs/toolshed does), and the defaults are generic.

/** Prefix of every observation message (always in the user role). */
export const OBSERVATION_PREFIX = 'Observation: ';

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

/** Maps an error family to its short gloss. */
export type GlossLookup = (errorType: string | null | undefined) => string;

/** What an unknown family reads. */
/** The gloss of a failure family the table does not know. */
export const UNKNOWN_FAILURE_GLOSS = 'the call failed';

/** Glosses of the families any tool-calling harness meets (the reference's wording). */
export const GENERIC_GLOSS: Readonly<Record<string, string>> = {
  parse_error: 'the call could not be parsed',
  unknown_tool: 'no such tool',
  missing_argument: 'a required argument was missing',
  unexpected_argument: 'an argument name was not recognised',
  arity_error: 'wrong number of arguments',
  type_error: 'an argument had the wrong type',
  format_error: 'an argument was badly formatted',
  permission_error: 'the target was read-only',
  state_error: 'the target was already in the requested state',
};

/** A gloss lookup from your own table, falling back to `fallback` for unknown families. */
export function glossTable(table: Readonly<Record<string, string>>, fallback = UNKNOWN_FAILURE_GLOSS): GlossLookup {
  return (kind) => (kind && Object.prototype.hasOwnProperty.call(table, kind) ? table[kind] : fallback);
}

const genericTable = glossTable(GENERIC_GLOSS, '');

/**
 * The generic default: GENERIC_GLOSS, then `<thing>_not_found` → "no such <thing>" (underscores
 * read as spaces), else "the call failed". Environments pass their own table (envs/toolshed:
 * `errorGloss`), which is what the studies use.
 */
export const defaultGloss: GlossLookup = (kind) => {
  const known = genericTable(kind);
  if (known) return known;
  const thing = kind ? /^([a-z][a-z0-9_]*)_not_found$/.exec(kind)?.[1] : undefined;
  return thing ? `no such ${thing.replace(/_/g, ' ')}` : UNKNOWN_FAILURE_GLOSS;
};

/**
 * The generic default tool name of an action: the identifier of a single `name(...)` call, else
 * null. Environments with a real parser pass their own (envs/toolshed: `actionToolName`).
 */
export function callName(action: string): string | null {
  return /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\([\s\S]*\)\s*$/.exec(action)?.[1] ?? null;
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

/**
 * The abstracted record of the `index`-th failed draft of a revision loop (1-based), in place of the
 * draft itself (docs/revise.md §3): the marker line, then the verifier's report on that draft, so
 * the model keeps what was wrong without the failed text back in its context.
 */
export function abstractDraftNote(index: number, report: string): string {
  return `[attempt ${index} failed; that draft is not repeatable]\n${report}`;
}
