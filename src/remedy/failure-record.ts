// Moved to the revise package (packages/revise/src/policy/failure-record.ts), which the lab and revise() share;
// this path re-exports it for revloop's modules and for imports by path.
export {
  NEGATIVE_INSTRUCTION,
  OBSERVATION_PREFIX,
  UNKNOWN_FAILURE_GLOSS,
  GENERIC_GLOSS,
  glossTable,
  defaultGloss,
  callName,
  abstractFailureNote,
  ABSTRACT_MIN_NOTE,
  abstractDraftNote,
  type AgentStep,
  type GlossLookup,
} from '@revloop/revise';
