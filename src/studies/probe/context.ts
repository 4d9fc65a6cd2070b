// Sizing the context window to the probe before it starts (docs/probe.md, context window): every
// (item, condition) the session will score is rendered and tokenized, and the longest request sets
// the context once, so a run never stops part way at "needs N tokens but the context holds M".
import type { ContextFit } from '../../models/capabilities.ts';
import type { ProbeScorer } from './backend.ts';
import { buildConditionMessages, candidatesFor, conditionAvailable } from './conditions.ts';
import { lengthMatchedNeutral } from './padding.ts';
import type { Condition, ProbeItem } from './probe-types.ts';

export interface ContextSizing {
  /** Tokens of the longest request (context + longest candidate). */
  tokens: number;
  /** Which request that is: "item …, condition …". */
  longest: string;
  fit: ContextFit;
}

/** Measures every request and fits the scorer's context to the longest; null when the backend's context is fixed elsewhere. */
export async function sizeProbeContext(
  scorer: ProbeScorer,
  items: readonly ProbeItem[],
  conditions: readonly Condition[],
): Promise<ContextSizing | null> {
  const window = scorer.contextWindow;
  if (!window || !items.length) return null;
  let tokens = 0;
  let longest = '';
  for (const item of items) {
    for (const condition of conditions) {
      if (!conditionAvailable(item, condition)) continue;
      let padded: string | null = null;
      if (condition === 'neut_pad') {
        if (!scorer.countTokens) continue; // refused by the runner before any work
        padded = (await lengthMatchedNeutral(item, scorer.countTokens)).observation;
      }
      const messages = buildConditionMessages(item, condition, { neutralPadded: padded });
      const n = await window.length(
        messages,
        candidatesFor(item, condition).map(([, text]) => text),
      );
      if (n > tokens) {
        tokens = n;
        longest = `item ${item.item_id}, condition ${condition}`;
      }
    }
  }
  return { tokens, longest, fit: await window.fit(tokens) };
}

/** The note said before the first score. */
export function describeSizing(s: ContextSizing): string {
  const { size, before, trainContextSize } = s.fit;
  const held = size !== before ? `the context was grown from ${before} to ${size} tokens` : `the context holds ${size} tokens`;
  const train = trainContextSize !== null ? ` (trained for ${trainContextSize})` : '';
  return `the longest request needs ${s.tokens} tokens (${s.longest}); ${held}${train}`;
}
