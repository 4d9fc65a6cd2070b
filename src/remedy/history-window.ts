// Moved to the revise package (packages/revise/src/policy/history-window.ts), which the lab and revise() share;
// this path re-exports it for revloop's modules and for imports by path.
export {
  parseHistoryWindow,
  formatHistoryWindow,
  selectExchanges,
  buildHistoryMessages,
  type HistoryWindow,
  type Exchange,
} from '@revloop/revise';
