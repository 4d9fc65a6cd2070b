// Moved to the revise package (packages/revise/src/policy/recurrence.ts), which the lab and revise() share;
// this path re-exports it for revloop's modules and for imports by path.
export {
  normaliseDraft,
  draftKey,
  recurrenceOf,
  cycleAt,
  violationTag,
  violationSet,
  type DraftNormalisation,
  type AttemptShape,
  type CycleKind,
  type CycleFinding,
} from '@revloop/revise';
