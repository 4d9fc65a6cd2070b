// The length-matched neutral observation of `neut_pad` (docs/harness.md §1.7): "Call recorded." plus k
// valence-free units `trace=<8 hex>` (ToolShed's `neutralObservation`), with k chosen so the
// observation's length in THIS model's tokens is closest to the failure observation's. Ties keep
// the earlier (shorter) candidate; the search stops at the first candidate at least as long as
// the target. (ToolShed's own `lengthMatchedNeutral` does the same with a synchronous counter;
// this one also serves tokenizers behind HTTP and reports the counts it chose by.)
import { neutralObservation } from '../../envs/toolshed/counterfactual.ts';
import type { ProbeItem } from './probe-types.ts';

const MAX_FILLER_UNITS = 23;

/** The neutral observation with `units` trace segments keyed by the failed action. */
export function paddedNeutral(action: string, units: number): string {
  return neutralObservation(action, { fillerUnits: units });
}

interface PaddedNeutral {
  observation: string;
  units: number;
  /** Tokens of obs_fail (the target) and of the chosen observation. */
  targetTokens: number;
  tokens: number;
}

/** Chooses the padded neutral observation for an item under a model's token counter. */
export async function lengthMatchedNeutral(item: ProbeItem, countTokens: (text: string) => Promise<number>): Promise<PaddedNeutral> {
  const target = await countTokens(item.obs_fail);
  let best: PaddedNeutral = { observation: item.obs_neutral, units: 0, targetTokens: target, tokens: await countTokens(item.obs_neutral) };
  let bestGap = Math.abs(best.tokens - target);
  for (let units = 1; units <= MAX_FILLER_UNITS; units++) {
    const cand = paddedNeutral(item.failed_action, units);
    const n = await countTokens(cand);
    const gap = Math.abs(n - target);
    if (gap < bestGap) {
      best = { observation: cand, units, targetTokens: target, tokens: n };
      bestGap = gap;
    }
    if (n >= target) break;
  }
  return best;
}
