// The one owner of how simulated controllers are marked. A simulation's label always carries
// "[simulated]" (so it can never pass for a model in any table), and wherever its numbers are
// shown to people the mark is said exactly once, in capitals: "sim:steady [SIMULATED]".
import { printable } from './util/printable.ts';

/** The word that marks simulated numbers in every output. */
export const SIMULATED = 'SIMULATED';

const SUFFIX = /\s*\[simulated\]$/i;

/** A simulated controller's label: `label [simulated]`, added once. */
export function simulatedLabel(label: string): string {
  return SUFFIX.test(label) ? label : `${label} [simulated]`;
}

/** The label without its "[simulated]" suffix (for display next to a separate SIMULATED badge). */
export function baseLabel(label: string): string {
  return label.replace(SUFFIX, '');
}

/** The name as terminal text, on one line (core/util/printable.ts): a simulated one ends in " [SIMULATED]", once. */
export function markedName(label: string, simulated: boolean): string {
  return printable(simulated ? `${baseLabel(label)} [${SIMULATED}]` : label);
}

/** The prefix of progress and status lines about simulated work. */
export function simulatedPrefix(simulated: boolean): string {
  return simulated ? `[${SIMULATED}] ` : '';
}
