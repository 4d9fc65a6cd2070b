// The one owner of how simulated controllers are marked. A simulation's stored label always carries
// "[simulated]" (so a raw record can never pass for a model's, and a resumed run's plan still
// matches its stored one). Wherever a name is shown to people the label's own "[simulated]" is
// dropped and the mark is said exactly once, in capitals: "sim:steady [SIMULATED]" in terminals, a
// SIMULATED badge in HTML; ids built from a label never carry it (core/util/slug.ts).

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

/**
 * A text composed of labels ("a [simulated] → b [simulated]") as shown beside a SIMULATED mark:
 * every label's "[simulated]" dropped, so the mark is said once, by the badge or prefix.
 */
export function withoutSimulatedLabels(text: string): string {
  return text.replace(/\s*\[[Ss]imulated\]/g, '');
}

/** The name as terminal text: a simulated one ends in " [SIMULATED]", once. */
export function markedName(label: string, simulated: boolean): string {
  return simulated ? `${baseLabel(label)} [${SIMULATED}]` : label;
}

/** The prefix of progress and status lines about simulated work. */
export function simulatedPrefix(simulated: boolean): string {
  return simulated ? `[${SIMULATED}] ` : '';
}
