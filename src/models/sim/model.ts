// `sim:<profile>` as an in-process Model. The reply, the toy scores and the ban are pure functions
// of (profile, parameters, messages), and serve-sim answers HTTP requests with the same functions,
// so a sim behaves identically in process and behind the server.
import { simulatedLabel } from '../../core/simulated.ts';
import type { ChatMessage, GenerateOptions, GenerateResult, ModelCapabilities, ScoreResult } from '../types.ts';
import type { BackendInfoModel, BanningModel, ScoringModel, TokenizingModel, VerifyReport, VerifySample } from '../capabilities.ts';
import { scoreEach, scoreFromTokens, verifyByRescoring } from '../scoring.ts';
import { realClock, type Clock } from '../options.ts';
import { simulate, SIM_VERSION, type SimOutput } from './controller.ts';
import { resolveSim, type ResolvedSim, type SimParams } from './profiles.ts';
import { applyAnswerBan, applyBan, banSequences, toyDetokenize, toyPromptLogprobs, toyRenderChat, toyTokenize } from './toy-lm.ts';
import { answerBanSet } from '../ban.ts';

interface SimReply {
  /** The raw reply (after the ban and the token limit). */
  text: string;
  finishReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
  bannedMasked: number;
  /** Steps at which a complete-answer ban masked the end (only with banned answers). */
  endsMasked?: number;
  decision: SimOutput['decision'];
}

/**
 * The reply of a simulated controller to `messages` under a token limit, an optional ban list
 * (bad-words rule) and optional banned complete answers (the end masked after them, toy-lm.ts).
 */
export function simReply(
  messages: ChatMessage[],
  params: SimParams,
  maxTokens: number,
  bannedWords: string[] = [],
  bannedAnswers: string[] = [],
): SimReply {
  const out = simulate(messages, params);
  let ids = toyTokenize(out.text);
  let bannedMasked = 0;
  const sequences = bannedWords.length ? banSequences(bannedWords) : [];
  if (sequences.length) {
    const banned = applyBan(ids, sequences);
    ids = banned.ids;
    bannedMasked = banned.masked;
  }
  let finishReason: SimReply['finishReason'] = 'stop';
  let endsMasked: number | undefined;
  if (bannedAnswers.length) {
    const r = applyAnswerBan(ids, answerBanSet(bannedAnswers), maxTokens, sequences);
    ids = r.ids;
    endsMasked = r.masked;
    if (r.exhausted) finishReason = 'length';
  }
  if (maxTokens >= 0 && ids.length > maxTokens) {
    ids = ids.slice(0, maxTokens);
    finishReason = 'length';
  }
  const text = bannedMasked || endsMasked || finishReason === 'length' ? toyDetokenize(ids) : out.text;
  const promptTokens = toyTokenize(toyRenderChat(messages, { addGenerationPrompt: true }), { special: true }).length;
  return {
    text,
    finishReason,
    promptTokens,
    completionTokens: ids.length,
    bannedMasked,
    ...(endsMasked !== undefined ? { endsMasked } : {}),
    decision: out.decision,
  };
}

/** Teacher-forced toy scoring of `continuation` after the rendered context (docs/harness.md §3.4 layout). */
export function simScore(context: readonly ChatMessage[], continuation: string): ScoreResult {
  const ctx = toyTokenize(toyRenderChat(context, { addGenerationPrompt: true }), { special: true });
  const cont = toyTokenize(continuation);
  const positions = toyPromptLogprobs([...ctx, ...cont], ctx.length);
  const tokenLogprobs = positions.map((p) => p.logprob);
  return scoreFromTokens(tokenLogprobs, positions.filter((p) => p.rank === 1).length, ctx.length);
}

/** "sim:steady [simulated]", or "sim:steady?gain=0.7 [simulated]" with the spec's overrides. */
function simLabel(resolved: ResolvedSim, given?: string): string {
  if (given) return simulatedLabel(given);
  const q = Object.entries(resolved.overrides)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return simulatedLabel(`sim:${resolved.profile.name}${q ? '?' + q : ''}`);
}

const CAPABILITIES = Object.freeze({
  score: true,
  ban: true,
  banAnswers: true,
  tokenize: true,
  decode: false,
  stopTokens: false,
  counters: false,
  info: true,
  sizeContext: false,
  simulated: true,
} as const satisfies ModelCapabilities);

class SimModel implements ScoringModel, TokenizingModel, BanningModel, BackendInfoModel {
  readonly capabilities = CAPABILITIES;
  readonly label: string;

  constructor(
    readonly spec: string,
    readonly resolved: ResolvedSim,
    label: string | undefined,
    private readonly clock: Clock = realClock,
  ) {
    this.label = simLabel(resolved, label);
  }

  get params(): SimParams {
    return this.resolved.params;
  }

  async generate(messages: ChatMessage[], options: GenerateOptions): Promise<GenerateResult> {
    const startedAt = new Date(this.clock.now()).toISOString();
    const t0 = performance.now();
    if (this.params.latency_ms > 0) await this.clock.sleep(this.params.latency_ms, options.signal);
    else if (options.signal?.aborted) throw options.signal.reason;
    const reply = simReply(messages, this.params, options.maxTokens, options.bannedSequences ?? [], options.bannedAnswers ?? []);
    const attempt = {
      ok: true,
      text: reply.text,
      startedAt,
      latencyMs: Math.round((performance.now() - t0) * 1000) / 1000,
      finishReason: reply.finishReason,
      usage: {
        promptTokens: reply.promptTokens,
        completionTokens: reply.completionTokens,
        totalTokens: reply.promptTokens + reply.completionTokens,
      },
      request: {
        model: this.spec,
        max_tokens: options.maxTokens,
        message_count: messages.length,
        banned: options.bannedSequences?.length ?? 0,
        ...(options.bannedAnswers?.length ? { banned_answers: options.bannedAnswers.length } : {}),
      },
      meta: {
        simulated: true,
        simVersion: SIM_VERSION,
        profile: this.resolved.profile.name,
        params: this.params,
        decision: reply.decision,
        bannedMasked: reply.bannedMasked,
        ...(reply.endsMasked !== undefined ? { endsMasked: reply.endsMasked } : {}),
      },
    };
    options.onAttempt?.(attempt);
    return { text: reply.text, attempts: [attempt] };
  }

  async score(context: readonly ChatMessage[], continuation: string): Promise<ScoreResult> {
    return simScore(context, continuation);
  }

  scoreMany(context: readonly ChatMessage[], continuations: readonly string[]): Promise<ScoreResult[]> {
    return scoreEach((c, x) => this.score(c, x), context, continuations);
  }

  verifyScoring(sample: readonly VerifySample[], options: { tolerance?: number } = {}): Promise<VerifyReport> {
    return verifyByRescoring((c, x) => this.score(c, x), sample, options);
  }

  /** The toy tokenizer; special-token markup is text here (no special tokens are parsed or added). */
  async tokenize(text: string): Promise<number[]> {
    return toyTokenize(text);
  }

  async countTokens(text: string): Promise<number> {
    return toyTokenize(text).length;
  }

  /** The prompt tokens a generation would send (the same count as its usage.promptTokens). */
  async countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    return toyTokenize(toyRenderChat(messages as ChatMessage[], { addGenerationPrompt: true }), { special: true }).length;
  }

  async backendInfo(): Promise<Record<string, unknown>> {
    return { backend: 'simulated toy LM (numbers mean nothing about any real model)', spec: this.spec };
  }
}

export function createSimModel(
  spec: string,
  profile: string,
  query: Record<string, string>,
  options: { seed?: number; label?: string; clock?: Clock } = {},
): SimModel {
  const resolved = resolveSim(spec, profile, query, options.seed !== undefined ? { seed: options.seed } : {});
  return new SimModel(spec, resolved, options.label, options.clock);
}
