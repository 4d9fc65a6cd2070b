// What the probe needs from a model, behind one small interface: teacher-forced scores of several
// candidates under one chat context, a token counter (for neut_pad), cost counters where the
// backend keeps them, and the cached-vs-fresh check. Each comes from a typed model capability
// (models/capabilities.ts); backends without the `score` capability are refused here, before any
// work starts.
import type { ChatMessage, Model } from '../../models/types.ts';
import {
  canScore,
  canSizeContext,
  canTokenize,
  hasBackendInfo,
  hasScoringCounters,
  type ContextFit,
  type ScoringCounters,
  type VerifyReport,
  type VerifySample,
} from '../../models/capabilities.ts';
import { CapabilityError, UserError } from '../../core/errors.ts';
import { checkLogprob } from '../../models/gguf/numeric-guard.ts';

export type { ScoringCounters };
/** A context + continuation to score twice, one compared pair, and the report (the models' own types). */
export type VerifyInput = VerifySample;
export type VerifyResult = VerifyReport;

/** A candidate continuation's score: its log-probability, token count and greedy-match count. */
export interface CandidateScore {
  logprob: number;
  nTokens: number;
  nArgmaxMatch: number | null;
  isGreedy: boolean | null;
  ctxTokens: number | null;
}

/**
 * What the probe scores with: teacher-forced log-probabilities of candidate actions after a context. Get one with
 * `probeScorerFor(model)`.
 */
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
  /** The context window, where the backend sizes it to the work (null: fixed elsewhere, e.g. a server). */
  contextWindow: {
    /** Tokens one scoreCandidates call holds. */
    length(context: ChatMessage[], candidates: readonly string[]): Promise<number>;
    fit(tokens: number): Promise<ContextFit>;
  } | null;
}

/** Throws unless a score is a finite log-probability ≤ 0 with a sane token count (docs/harness.md §3.7). */
export function guardScore(s: CandidateScore, where: string): CandidateScore {
  checkLogprob(s.logprob, where);
  if (!Number.isInteger(s.nTokens) || s.nTokens < 0)
    throw new UserError(`${where}: the backend returned an invalid token count ${s.nTokens}; refusing to record scores`);
  return s;
}

/** The probe's view of a model; refuses backends that cannot score. */
export async function probeScorerFor(model: Model): Promise<ProbeScorer> {
  if (!canScore(model)) {
    throw new CapabilityError(
      `${model.label}: this backend cannot score a given continuation (teacher-forced log-probabilities), which the probe needs. ` +
        'Use a gguf:<path> model (in process) or a vllm:<base-url>#<model> server (prompt_logprobs); plain OpenAI-compatible chat APIs return log-probs of generated tokens only.',
      { capability: 'score', model: model.label },
    );
  }
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
    countTokens: canTokenize(model) ? (text) => model.countTokens(text) : null,
    counters: () => {
      if (!hasScoringCounters(model)) return null;
      const s = model.stats();
      return { forwardTokens: s.forwardTokens, forwardCalls: s.forwardCalls, naiveTokens: s.naiveTokens, nScored: s.nScored };
    },
    verify: (sample, tolerance) => model.verifyScoring(sample, { tolerance }),
    info: () => (hasBackendInfo(model) ? model.backendInfo() : Promise.resolve({ backend: 'score()', spec: model.spec })),
    contextWindow: canSizeContext(model)
      ? { length: (context, candidates) => model.scoringLength(context, candidates), fit: (tokens) => model.fitContext(tokens) }
      : null,
  };
}
