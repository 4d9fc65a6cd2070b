// Moved to the revise package (packages/revise/src/policy/revision-messages.ts), which the lab and revise() share;
// this path re-exports it for revloop's modules and for imports by path.
export {
  REVISION_FEEDBACKS,
  planWindow,
  windowStart,
  keptExchanges,
  buildRevisionMessages,
  planRevisionRequest,
  type RevisionFeedback,
  type MessageRules,
  type RevisionExchange,
  type HistoryAction,
  type WindowPlan,
} from '@revloop/revise';
