// The parts of scoring every backend shares: one-at-a-time `scoreMany` for backends without a
// shared-prefix walk, and the cached-vs-fresh comparison of `verifyScoring` (docs/harness.md §3.7): a pair
// fails on any non-finite or positive value, or when |cached − fresh| exceeds the tolerance, and a
// NaN anywhere fails the whole report instead of vanishing in a max().
import type { VerifyReport, VerifyRow, VerifySample } from './capabilities.ts';
import type { ChatMessage, ScoreResult } from './types.ts';

/** The default tolerance of `verifyScoring`, in nats. */
export const VERIFY_TOLERANCE = 1e-3;

/** A ScoreResult from per-token log-probabilities and the count of argmax positions. */
export function scoreFromTokens(tokenLogprobs: number[], argmaxMatches: number, contextTokens: number): ScoreResult {
  return {
    logprob: tokenLogprobs.reduce((s, x) => s + x, 0),
    tokenLogprobs,
    tokens: tokenLogprobs.length,
    argmaxMatches,
    isGreedy: argmaxMatches === tokenLogprobs.length,
    contextTokens,
  };
}

/** Scores continuations one call at a time, in input order. */
export async function scoreEach(
  score: (context: readonly ChatMessage[], continuation: string) => Promise<ScoreResult>,
  context: readonly ChatMessage[],
  continuations: readonly string[],
): Promise<ScoreResult[]> {
  const out: ScoreResult[] = [];
  for (const c of continuations) out.push(await score(context, c));
  return out;
}

/**
 * One compared pair. `problem` is set when scoring itself failed; `differ` words the tolerance
 * failure (e.g. "cached and fresh scores differ").
 */
export function verifyRow(index: number, cached: number, fresh: number, tolerance: number, differ: string, problem?: string): VerifyRow {
  const diff = Math.abs(cached - fresh);
  if (!problem) {
    if (!Number.isFinite(cached) || !Number.isFinite(fresh)) problem = 'non-finite score';
    else if (cached > 0 || fresh > 0) problem = 'positive log-probability';
    else if (!(diff <= tolerance)) problem = `${differ} by ${diff.toExponential(3)} nats (> ${tolerance})`;
  }
  return { index, cached, fresh, diff, ok: !problem, ...(problem ? { problem } : {}) };
}

export function verifyReport(rows: VerifyRow[], tolerance: number, method: string): VerifyReport {
  const maxAbsDiff = rows.reduce((m, r) => (Number.isNaN(r.diff) || Number.isNaN(m) ? NaN : Math.max(m, r.diff)), 0);
  return { method, ok: rows.every((r) => r.ok) && !Number.isNaN(maxAbsDiff), n: rows.length, tolerance, maxAbsDiff, rows };
}

/**
 * Verification for backends with no prefix cache of ours to bypass (HTTP, sim): each sample is
 * scored twice in separate calls and must give the same answer (this catches non-deterministic
 * serving, e.g. batch-dependent kernels), plus the guards. A failing call fails its row.
 */
export async function verifyByRescoring(
  score: (context: readonly ChatMessage[], continuation: string) => Promise<ScoreResult>,
  sample: readonly VerifySample[],
  options: { tolerance?: number } = {},
): Promise<VerifyReport> {
  const tolerance = options.tolerance ?? VERIFY_TOLERANCE;
  const rows: VerifyRow[] = [];
  for (const [index, s] of sample.entries()) {
    let cached = NaN;
    let fresh = NaN;
    let problem: string | undefined;
    try {
      cached = (await score(s.context, s.continuation)).logprob;
      fresh = (await score(s.context, s.continuation)).logprob;
    } catch (e) {
      problem = (e as Error).message;
    }
    rows.push(verifyRow(index, cached, fresh, tolerance, 'two scorings differ', problem));
  }
  return verifyReport(
    rows,
    tolerance,
    'each triple scored twice in separate calls (no prefix cache of ours to bypass); guards on every value',
  );
}
