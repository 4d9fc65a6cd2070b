// Moved to the revise package (packages/revise/src/policy/revision-policy.ts), which the lab and revise() share;
// this path re-exports it for revloop's modules and for imports by path.
export {
  REVLOOP_DEFAULT_POLICY,
  POLICY_PRESETS,
  policyName,
  policyPreset,
  parseHistorySpec,
  messagePolicyOf,
  bansFailedDrafts,
  type HistorySpec,
  type BanSpec,
  type CycleAction,
  type RevisionPolicy,
  type PolicyName,
} from '@revloop/revise';
