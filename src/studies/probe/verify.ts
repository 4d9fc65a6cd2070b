// `revloop probe verify` (docs/harness.md §3.7): re-score a sample of (item, core condition, candidate)
// triples without the prefix cache and require agreement within 1e-3 nats; any non-finite or
// positive value fails, and a NaN difference can never pass. The sample is Python's
// random.Random(0).sample(items, n), as the reference implementation draws it.
import { PyRandom } from '../../core/py/random.ts';
import { VERIFY_TOLERANCE } from '../../models/scoring.ts';
import { PROBE_VERIFY_DEFAULTS } from './defaults.ts';
import type { ProbeScorer, VerifyInput, VerifyResult } from './backend.ts';
import { buildConditionMessages } from './conditions.ts';
import { CORE_CONDITIONS, type Condition, type ProbeItem } from './probe-types.ts';

export { VERIFY_TOLERANCE };

interface VerifyTriple {
  item_id: string;
  condition: Condition;
  candidate: 'failed' | 'gold';
}

/** What `verifyProbeScoring` returns: whether cached and fresh scores agreed, with every compared triple. */
export interface ProbeVerifyReport extends VerifyResult {
  triples: Array<VerifyTriple & { cached: number | null; fresh: number | null; diff: number | null; ok: boolean; problem?: string }>;
}

export function verifySample(items: readonly ProbeItem[], n: number, seed = PROBE_VERIFY_DEFAULTS.seed): ProbeItem[] {
  return new PyRandom(seed).sample(items, Math.min(n, items.length));
}

/**
 * Checks a scorer before a probe: scores a sample of items (default 12, seed 0) under the core conditions twice — cached and fresh — and
 * compares within a tolerance (default 1e-3 nats).
 */
export async function verifyProbeScoring(
  scorer: ProbeScorer,
  items: readonly ProbeItem[],
  options: { n?: number; tolerance?: number; seed?: number } = {},
): Promise<ProbeVerifyReport> {
  const tolerance = options.tolerance ?? PROBE_VERIFY_DEFAULTS.tolerance;
  const sample = verifySample(items, options.n ?? PROBE_VERIFY_DEFAULTS.n, options.seed ?? PROBE_VERIFY_DEFAULTS.seed);
  const inputs: VerifyInput[] = [];
  const triples: VerifyTriple[] = [];
  for (const item of sample) {
    for (const condition of CORE_CONDITIONS) {
      const context = buildConditionMessages(item, condition);
      for (const [candidate, continuation] of [
        ['failed', item.failed_action],
        ['gold', item.gold_action],
      ] as const) {
        inputs.push({ context, continuation });
        triples.push({ item_id: item.item_id, condition, candidate });
      }
    }
  }
  const res = await scorer.verify(inputs, tolerance);
  const fin = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    ...res,
    triples: res.rows.map((r) => ({
      ...triples[r.index],
      cached: fin(r.cached),
      fresh: fin(r.fresh),
      diff: fin(r.diff),
      ok: r.ok,
      ...(r.problem ? { problem: r.problem } : {}),
    })),
  };
}
