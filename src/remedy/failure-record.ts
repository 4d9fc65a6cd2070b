// Moved to the revise package (packages/revise/src/policy/failure-record.ts), which the lab and revise() share;
// this path re-exports it for revloop's modules and for imports by path.
export {
  OBSERVATION_PREFIX,
  UNKNOWN_FAILURE_GLOSS,
  GENERIC_GLOSS,
  glossTable,
  defaultGloss,
  callName,
  abstractFailureNote,
  abstractDraftNote,
  type AgentStep,
  type GlossLookup,
} from '@revloop/revise';

// The lab's prompt texts, the reference's byte for byte (internal: not exported by any subpath).

/** Appended as system + "\n" + NEGATIVE_INSTRUCTION (harness verbatim+instr, probe fail_instr). */
export const NEGATIVE_INSTRUCTION =
  'Important: some of your earlier tool calls failed. Do not repeat a call that has already failed; change the call before trying again.';

/** The bare marker of the probe's `abstract_min` condition (no diagnosis, no call). */
export const ABSTRACT_MIN_NOTE = '[attempt 1 failed]';
