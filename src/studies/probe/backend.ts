// What the probe needs from a model, behind one small interface: teacher-forced scores of several
// candidates under one chat context, a token counter (for neut_pad), cost counters where the
// backend keeps them, and the cached-vs-fresh check. Backends without the `score` capability are
// refused here, before any work starts.
import type { ChatMessage, Model } from '../../models/types.ts';
import { CapabilityError, UserError } from '../../core/errors.ts';
import { checkLogprob } from '../../models/gguf/numeric-guard.ts';

export interface CandidateScore {
  logprob: number;
  nTokens: number;
  nArgmaxMatch: number | null;
  isGreedy: boolean | null;
  ctxTokens: number | null;
}

export interface ScoringCounters {
  forwardTokens: number;
  forwardCalls: number;
  naiveTokens: number;
  nScored: number;
}

/** A context + continuation to score twice, and one compared pair (the GGUF backend's own types). */
export type { VerifySample as VerifyInput, VerifyRow as VerifyResultRow } from '../../models/gguf/model.ts';
import type { VerifySample as VerifyInput, VerifyRow as VerifyResultRow, VerifyReport } from '../../models/gguf/model.ts';

export interface VerifyResult extends VerifyReport {
  /** What was compared, in words (the check differs by backend). */
  method: string;
}

export interface ProbeScorer {
  readonly model: Model;
  /** Scores candidates after the rendered context (+ generation prompt), in input order. */
  scoreCandidates(context: ChatMessage[], candidates: readonly string[]): Promise<CandidateScore[]>;
  /** Tokens of `text` under the model's tokenizer, no special tokens (null: no tokenizer). */
  countTokens: ((text: string) => Promise<number>) | null;
  /** Cumulative cost counters (null: the backend keeps none). */
  counters(): ScoringCounters | null;
  verify(sample: readonly VerifyInput[], tolerance: number): Promise<VerifyResult>;
  /** Backend facts to record with a session. */
  info(): Promise<Record<string, unknown>>;
}

/** Throws unless a score is a finite log-probability ≤ 0 with a sane token count (HARNESS §3.7). */
export function guardScore(s: CandidateScore, where: string): CandidateScore {
  checkLogprob(s.logprob, where);
  if (!Number.isInteger(s.nTokens) || s.nTokens < 0)
    throw new UserError(`${where}: the backend returned an invalid token count ${s.nTokens}; refusing to record scores`);
  return s;
}

interface GgufLike extends Model {
  scoreMany(
    context: readonly ChatMessage[],
    continuations: readonly string[],
  ): Promise<Array<{ logprob: number; tokens: number; argmaxMatches: number; isGreedy: boolean; contextTokens: number }>>;
  tokenize(text: string, special?: boolean): Promise<number[]>;
  stats(): { forwardTokens: number; forwardCalls: number; naiveTokens: number; nScored: number };
  verifyScoring(sample: readonly VerifyInput[], options: { tolerance?: number }): Promise<VerifyReport>;
  backendInfo(): Promise<Record<string, unknown>>;
}

function isGguf(m: Model): m is GgufLike {
  const x = m as Partial<GgufLike>;
  return (
    typeof x.scoreMany === 'function' &&
    typeof x.tokenize === 'function' &&
    typeof x.verifyScoring === 'function' &&
    typeof x.stats === 'function'
  );
}

interface HttpLike extends Model {
  config: { baseUrl: string; model: string; vllm: boolean };
  withRetries(
    path: string,
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onAttempt: undefined,
    interpret: (raw: { body: string }) => { ok: true; parsed: unknown } | { ok: false; kind: string; message: string; raw?: unknown },
  ): Promise<{ ok: boolean; parsed?: unknown; record: { error?: { kind: string; message: string } }; attempts: unknown[] }>;
}

function isVllm(m: Model): m is HttpLike {
  const x = m as Partial<HttpLike>;
  return !!x.config && x.config.vllm === true && typeof x.withRetries === 'function';
}

/** The probe's view of a model; refuses backends that cannot score. */
export async function probeScorerFor(model: Model): Promise<ProbeScorer> {
  if (!model.capabilities.score || typeof model.score !== 'function') {
    throw new CapabilityError(
      `${model.label}: this backend cannot score a given continuation (teacher-forced log-probabilities), which the probe needs. ` +
        'Use a gguf:<path> model (in process) or a vllm:<base-url>#<model> server (prompt_logprobs); plain OpenAI-compatible chat APIs return log-probs of generated tokens only.',
    );
  }
  if (isGguf(model)) return ggufScorer(model);
  if (isVllm(model)) return vllmScorer(model);
  if (model.capabilities.simulated) return simScorer(model);
  return genericScorer(model, null);
}

function ggufScorer(model: GgufLike): ProbeScorer {
  return {
    model,
    async scoreCandidates(context, candidates) {
      const res = await model.scoreMany(context, candidates);
      return res.map((r) => ({
        logprob: r.logprob,
        nTokens: r.tokens,
        nArgmaxMatch: r.argmaxMatches,
        isGreedy: r.isGreedy,
        ctxTokens: r.contextTokens,
      }));
    },
    countTokens: async (text) => (await model.tokenize(text, false)).length,
    counters: () => {
      const s = model.stats();
      return { forwardTokens: s.forwardTokens, forwardCalls: s.forwardCalls, naiveTokens: s.naiveTokens, nScored: s.nScored };
    },
    async verify(sample, tolerance) {
      const r = await model.verifyScoring(sample, { tolerance });
      return { method: 'prefix-cached scoring vs one fresh forward pass of context + continuation on an emptied KV cache', ...r };
    },
    info: () => model.backendInfo(),
  };
}

/** Scores one candidate at a time through `model.score` (vLLM, sims, other scoring backends). */
function genericScorer(model: Model, countTokens: ProbeScorer['countTokens']): ProbeScorer {
  const one = async (context: ChatMessage[], c: string): Promise<CandidateScore> => {
    const r = await model.score!(context, c);
    return {
      logprob: r.logprob,
      nTokens: r.tokens,
      nArgmaxMatch: r.argmaxMatches ?? null,
      isGreedy: r.isGreedy ?? null,
      ctxTokens: r.contextTokens ?? null,
    };
  };
  return {
    model,
    async scoreCandidates(context, candidates) {
      const out: CandidateScore[] = [];
      for (const c of candidates) out.push(await one(context, c));
      return out;
    },
    countTokens,
    counters: () => null,
    // No KV cache of ours to bypass: score each sample twice in separate requests and require the
    // same answer (catches non-deterministic serving, e.g. batch-dependent kernels), plus the guards.
    async verify(sample, tolerance) {
      const rows: VerifyResultRow[] = [];
      for (const [index, s] of sample.entries()) {
        let cached = NaN;
        let fresh = NaN;
        let problem: string | undefined;
        try {
          cached = (await one(s.context, s.continuation)).logprob;
          fresh = (await one(s.context, s.continuation)).logprob;
        } catch (e) {
          problem = (e as Error).message;
        }
        const diff = Math.abs(cached - fresh);
        if (!problem) {
          if (!Number.isFinite(cached) || !Number.isFinite(fresh)) problem = 'non-finite score';
          else if (cached > 0 || fresh > 0) problem = 'positive log-probability';
          else if (!(diff <= tolerance)) problem = `two scorings differ by ${diff.toExponential(3)} nats (> ${tolerance})`;
        }
        rows.push({ index, cached, fresh, diff, ok: !problem, ...(problem ? { problem } : {}) });
      }
      const maxAbsDiff = rows.reduce((m, r) => (Number.isNaN(r.diff) || Number.isNaN(m) ? NaN : Math.max(m, r.diff)), 0);
      return {
        method: 'each triple scored twice in separate calls (no prefix cache of ours to bypass); guards on every value',
        ok: rows.every((r) => r.ok) && !Number.isNaN(maxAbsDiff),
        n: rows.length,
        tolerance,
        maxAbsDiff,
        rows,
      };
    },
    info: async () => ({ backend: 'score()', spec: model.spec }),
  };
}

/** Token ids of `text` from a vLLM server's /tokenize (no special tokens), through the model's retries and auth. */
export async function vllmTokenize(model: Model, text: string): Promise<number[]> {
  if (!isVllm(model)) throw new UserError(`${model.label}: not a vLLM model (use a vllm:<url>#<model> spec)`);
  const root = model.config.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const res = await model.withRetries(
    root + '/tokenize',
    { model: model.config.model, prompt: text, add_special_tokens: false },
    undefined,
    undefined,
    (raw) => {
      try {
        return { ok: true, parsed: JSON.parse(raw.body) as unknown };
      } catch (e) {
        return { ok: false, kind: 'malformed_json', message: (e as Error).message };
      }
    },
  );
  const tokens = (res.parsed as { tokens?: unknown } | undefined)?.tokens;
  if (!res.ok || !Array.isArray(tokens) || !tokens.every((t) => Number.isInteger(t))) {
    throw new UserError(
      `${model.label}: tokenizing through ${root}/tokenize failed (${res.record.error?.message ?? 'no "tokens" list in the response'})`,
    );
  }
  return tokens as number[];
}

function vllmScorer(model: HttpLike): ProbeScorer {
  const countTokens = async (text: string): Promise<number> => (await vllmTokenize(model, text)).length;
  const base = genericScorer(model, countTokens);
  return {
    ...base,
    info: async () => ({ backend: 'vllm (prompt_logprobs over HTTP)', baseUrl: model.config.baseUrl, model: model.config.model }),
  };
}

async function simScorer(model: Model): Promise<ProbeScorer> {
  const { toyTokenize } = await import('../../models/sim/toy-lm.ts');
  const base = genericScorer(model, async (text) => toyTokenize(text).length);
  return { ...base, info: async () => ({ backend: 'simulated toy LM (numbers mean nothing about any real model)', spec: model.spec }) };
}
