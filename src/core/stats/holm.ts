// Holm step-down adjustment (PROTOCOL §4): sort p ascending (stable), adjusted value = running
// maximum of (m − rank)·p, capped at 1. Returned in the input order.

export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => pValues[a] - pValues[b] || a - b);
  const adjusted = new Array<number>(m).fill(1);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, (m - rank) * pValues[index]);
    adjusted[index] = Math.min(1, running);
  });
  return adjusted;
}
