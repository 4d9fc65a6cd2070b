// Violation energy: the plain left-to-right IEEE-754 sum of the violation vector, in vector order
// (the reference's `sum(state["violation_vector"])`). Order matters at equality: audits compare
// recorded floats with strict `<`, so never reorder or use compensated summation here.
import type { VerifierState } from './types.ts';

/** The energy of a violation vector: its plain left-to-right float sum (0 exactly when every constraint holds). */
export function violationEnergy(vector: readonly number[]): number {
  let total = 0;
  for (const v of vector) total += v;
  return total;
}

/** A state's energy: `violationEnergy(state.violation_vector)`. */
export function stateEnergy(state: VerifierState): number {
  return violationEnergy(state.violation_vector);
}
