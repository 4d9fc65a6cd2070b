// What a simulated controller reads from a prompt or a report is a count it will write out: a
// target of 10^15 words must not become an array of 10^15 words (it killed `run` and serve-sim).
// The simulation writes at most this many words, sentences or positions, whatever it is asked.
export const MAX_SIM_COUNT = 100_000;

/** A count read from text, at most MAX_SIM_COUNT. */
export function simCount(digits: string): number {
  return Math.min(Number(digits), MAX_SIM_COUNT);
}
