// The experiment designs' defaults for the options a caller leaves out (docs/protocol.md §3.10–3.13):
// one home, read by the designs and the states selection, by the app's experiment commands and by
// the command line for its flags' defaults. A light module: the command line reads it at start.
import type { SysidSplit } from './designs.ts';
import type { SelectRule, StateDesign } from './states.ts';

/** The history-intervention arms run when none are named: full, reset, last:1, last:2. */
export const DEFAULT_ARMS = 'full,reset,last:1,last:2';

/** The commanded length errors of system identification when none are named (−50 … 50 words). */
export const DEFAULT_ERRORS = [-50, -20, -10, -5, -2, -1, 1, 2, 5, 10, 20, 50];

/** Defaults of the designs' other options. */
export const DESIGN_DEFAULTS = Object.freeze({
  /** `experiment states`: the design the states are selected for. */
  design: 'history' as StateDesign,
  /** History: which recurrence events of a trajectory become states. */
  select: 'first' as SelectRule,
  /** Persist: the extended revision budget T each continuation runs to (§3.13). */
  persistBudget: 32,
  /** Persist: the most states selected (up to 24 per model, §3.13). */
  persistMaxStates: 24,
  /** System identification: the row field holding the fixed draft. */
  draftField: 'reference',
  /** System identification: which split's states are run. */
  split: 'both' as SysidSplit,
});
