// The in-process GGUF backend as a revloop `Model`, plus the lower-level API the probe and agent
// code needs (render to tokens, score many continuations under one context, generate with a ban
// list and stop tokens, counters). The model file is loaded lazily on first use, once per
// (path, load options) in the process, and shared by every GgufModel created for it.
import { escapeText, textFault } from '../../core/util/text-boundary.ts';
import type { Token } from 'node-llama-cpp';
import type { AttemptRecord, ChatMessage, GenerateOptions, GenerateResult, ModelCapabilities, ScoreResult } from '../types.ts';
import type {
  BackendInfoModel,
  BanningModel,
  ContextFit,
  ContextSizingModel,
  GenerateTokensOutput,
  GenerateTokensRequest,
  RenderedPrompt,
  ScoringCostModel,
  ScoringModel,
  StopTokenModel,
  TokenDecodingModel,
  VerifyReport,
  VerifyRow,
  VerifySample,
} from '../capabilities.ts';
import { VERIFY_TOLERANCE, verifyReport, verifyRow } from '../scoring.ts';
import { UserError, UsageError } from '../../core/errors.ts';
import { ChatRenderer, resolveChatTemplate } from './chat-template.ts';
import { resolveGgufSettings, type GgufModelOptions, type GgufSettings } from './options.ts';
import {
  acquireRuntime,
  releaseRuntime,
  emptyStats,
  ContextOverflowError,
  type GgufRuntime,
  type GgufStats,
  type TokenScore,
} from './runtime.ts';
import { answerBanSet, buildBanList, type TokenSeq } from '../ban.ts';
import { NumericGuardError } from './numeric-guard.ts';

/** A `ScoreResult` plus the GGUF backend's underflow count (docs/harness.md §3.4, §4.7). */
export interface GgufScoreResult extends ScoreResult {
  /** Positions whose probability underflowed float32 and was clamped (0 in healthy runs). */
  underflowClamps: number;
}

const CAPABILITIES = Object.freeze({
  score: true,
  ban: true,
  banAnswers: true,
  tokenize: true,
  decode: true,
  stopTokens: true,
  counters: true,
  info: true,
  sizeContext: true,
  simulated: false,
} as const satisfies ModelCapabilities);

/**
 * An in-process GGUF model (node-llama-cpp): generation, teacher-forced scoring, bans, stop tokens and token-level decoding on one
 * serialized context. Create one with `createGgufModel` or `createModel('gguf:…')`; `close()` when done.
 */
export class GgufModel
  implements ScoringModel, ScoringCostModel, TokenDecodingModel, BanningModel, StopTokenModel, BackendInfoModel, ContextSizingModel
{
  readonly capabilities = CAPABILITIES;
  /** The resolved settings; `contextSize` changes only through fitContext. */
  settings: GgufSettings;
  readonly label: string;
  private runtimeKey: string | null = null;
  private runtimePromise: Promise<GgufRuntime> | null = null;
  private renderer: ChatRenderer | null = null;
  private closed = false;
  /** Whether the spec (or options) set contextSize: then fitContext never changes it. */
  private readonly contextSizeSet: boolean;
  /** Counters of this model object (the shared runtime keeps process-wide ones). */
  private readonly counters: GgufStats = emptyStats();

  constructor(
    readonly spec: string,
    options: GgufModelOptions = {},
  ) {
    this.settings = resolveGgufSettings(spec, options);
    this.contextSizeSet = this.settings.contextSize !== null;
    this.label = this.settings.label;
  }

  /** Loads the model (once per path + load options in this process). */
  async load(): Promise<GgufRuntime> {
    if (this.closed) throw new UserError(`${this.spec}: model is closed`);
    if (!this.runtimePromise) {
      const { key, runtime } = acquireRuntime(this.settings);
      this.runtimeKey = key;
      this.runtimePromise = runtime;
    }
    return this.runtimePromise;
  }

  /** The chat renderer, built on first use (a GGUF without a template can still score raw tokens). */
  private async chat(): Promise<ChatRenderer> {
    if (this.renderer) return this.renderer;
    const rt = await this.load();
    const meta = rt.model.fileInfo.metadata as { tokenizer?: { chat_template?: string } };
    const source = resolveChatTemplate(meta.tokenizer?.chat_template, this.settings.chatTemplate ?? undefined, this.settings.path);
    const special: Record<string, string> = {};
    const t = rt.model.tokens;
    if (t.bosString != null) special.bos_token = t.bosString;
    if (t.eosString != null) special.eos_token = t.eosString;
    this.renderer = new ChatRenderer(source, {
      specialTokens: special,
      kwargs: this.settings.templateKwargs,
      date: this.settings.templateDate === 'now' ? null : new Date(`${this.settings.templateDate}T00:00:00Z`),
    });
    return this.renderer;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.runtimeKey) await releaseRuntime(this.runtimeKey);
  }

  /** Everything to record for reproducibility: binary, device, context, template, sampler defaults. */
  async backendInfo(): Promise<Record<string, unknown>> {
    const rt = await this.load();
    const chat = await this.chat().then(
      (r) => r.describe(),
      (e: Error) => ({ origin: null, problem: e.message }),
    );
    return {
      ...rt.backendInfo(),
      chatTemplate: chat,
      scoreTokenization: this.settings.scoreTokenization,
      sampler: {
        temperature: this.settings.temperature,
        seed: this.settings.seed,
        topK: this.settings.topK,
        topP: this.settings.topP,
        minP: this.settings.minP,
        repeatPenalty: 'off',
      },
    };
  }

  /** Counters of this model object since creation or the last reset. */
  stats(): GgufStats {
    return { ...this.counters };
  }

  resetStats(): void {
    Object.assign(this.counters, emptyStats());
  }

  /** Runs `fn` under the sequence lock and adds the runtime's counter deltas to this model's. */
  private async exclusive<T>(fn: (rt: GgufRuntime) => Promise<T>): Promise<T> {
    const rt = await this.load();
    return rt.lock.run(async () => {
      const before = { ...rt.stats };
      try {
        return await fn(rt);
      } finally {
        for (const k of Object.keys(before) as Array<keyof GgufStats>) this.counters[k] += rt.stats[k] - before[k];
      }
    });
  }

  // ---- text and tokens ---------------------------------------------------------------------

  /** Renders messages with the chat template (+ generation prompt) and tokenizes the text with special tokens parsed and no automatic BOS. */
  async renderPrompt(messages: readonly ChatMessage[], addGenerationPrompt = true): Promise<RenderedPrompt> {
    const rt = await this.load();
    const text = (await this.chat()).render(messages, addGenerationPrompt);
    return { text, tokens: rt.tokenize(text, true) };
  }

  /** Tokenizes text; `special` parses special-token markup such as <|im_end|>. */
  async tokenize(text: string, special = false): Promise<number[]> {
    return (await this.load()).tokenize(text, special);
  }

  /** Tokens of `text` without special tokens. */
  async countTokens(text: string): Promise<number> {
    return (await this.tokenize(text, false)).length;
  }

  /** The prompt tokens `generate(messages)` sends: the rendered template + generation prompt. */
  async countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    return (await this.renderPrompt(messages, true)).tokens.length;
  }

  async detokenize(tokens: readonly number[], special = false): Promise<string> {
    return (await this.load()).detokenize(tokens, special);
  }

  /** Ban list for strings under this model's tokenizer (docs/harness.md §6). */
  async banList(strings: readonly string[]): Promise<TokenSeq[]> {
    const rt = await this.load();
    return buildBanList(strings, (s) => rt.tokenize(s, false));
  }

  /**
   * Context and continuation tokens for scoring. `separate` (default, docs/harness.md §3.4): the
   * continuation is tokenized alone and appended. `lm-eval`: the context's trailing whitespace
   * moves to the continuation, the whole string is tokenized, and the split is at the length of
   * the tokenized context.
   */
  async scoringTokens(contextText: string, continuation: string): Promise<{ context: number[]; continuation: number[] }> {
    const rt = await this.load();
    if (this.settings.scoreTokenization === 'separate') {
      return { context: rt.tokenize(contextText, true), continuation: rt.tokenize(continuation, false) };
    }
    const trailing = /\s*$/.exec(contextText)![0];
    const ctx = contextText.slice(0, contextText.length - trailing.length);
    const whole = rt.tokenize(ctx + trailing + continuation, true);
    const n = rt.tokenize(ctx, true).length;
    return { context: whole.slice(0, n), continuation: whole.slice(n) };
  }

  // ---- context window ------------------------------------------------------------------------

  /** Tokens one scoreMany call holds: the rendered context and its longest continuation. */
  async scoringLength(context: readonly ChatMessage[], continuations: readonly string[]): Promise<number> {
    const { text } = await this.renderPrompt(context, true);
    let longest = 0;
    for (const c of continuations) {
      const p = await this.scoringTokens(text, c);
      longest = Math.max(longest, p.context.length + p.continuation.length);
    }
    return longest;
  }

  /**
   * Makes the context hold `tokens` (docs/gguf.md, context size): a size left to revloop grows to
   * the next power of two, up to the model's training context; a size set in the spec is kept, and
   * a need beyond it (or beyond the training context) is refused before any work.
   */
  async fitContext(tokens: number): Promise<ContextFit> {
    const rt = await this.load();
    const before = rt.context.contextSize;
    const train = rt.model.trainContextSize > 0 ? rt.model.trainContextSize : null;
    if (tokens <= before - 1) return { size: before, before, trainContextSize: train };
    const want = 2 ** Math.ceil(Math.log2(tokens + 1));
    const hint = `gguf:${this.settings.path}?contextSize=${want}`;
    if (this.contextSizeSet)
      throw new UserError(
        `${this.label}: the longest request needs ${tokens} tokens but contextSize=${before} was set in the spec; set a larger one (e.g. ${hint}) or give fewer or shorter items`,
      );
    if (train !== null && tokens + 1 > train)
      throw new UserError(
        `${this.label}: the longest request needs ${tokens} tokens, more than the model's training context (${train}); ` +
          `scores beyond it are extrapolations, so revloop does not grow the context there by itself. Set it explicitly to accept that (${hint}), or give fewer or shorter items`,
      );
    const size = train !== null ? Math.min(want, train) : want;
    // A new runtime for the new size (runtimes are shared per settings); the old one is released.
    const old = this.runtimeKey;
    this.settings = { ...this.settings, contextSize: size };
    this.runtimeKey = null;
    this.runtimePromise = null;
    if (old) await releaseRuntime(old);
    const grown = await this.load();
    return { size: grown.context.contextSize, before, trainContextSize: train };
  }

  // ---- scoring -------------------------------------------------------------------------------

  /** Teacher-forced scores of token continuations after context tokens (one KV walk, trie order). */
  async scoreTokens(context: readonly number[], candidates: ReadonlyArray<readonly number[]>): Promise<TokenScore[]> {
    return this.exclusive((rt) => rt.scoreTokens(context as Token[], candidates as Token[][]));
  }

  /** Scores several continuations under one rendered chat context. */
  async scoreMany(context: readonly ChatMessage[], continuations: readonly string[]): Promise<GgufScoreResult[]> {
    const { text } = await this.renderPrompt(context, true);
    const pairs = await Promise.all(continuations.map((c) => this.scoringTokens(text, c)));
    // With lm-eval tokenization a seam merge can change the context tokens per continuation.
    const groups = new Map<string, number[]>();
    pairs.forEach((p, i) => {
      const key = p.context.join(',');
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    const out: GgufScoreResult[] = new Array(continuations.length);
    for (const idxs of groups.values()) {
      const ctx = pairs[idxs[0]].context;
      const scores = await this.scoreTokens(
        ctx,
        idxs.map((i) => pairs[i].continuation),
      );
      idxs.forEach((i, j) => {
        const s = scores[j];
        out[i] = {
          logprob: s.logprob,
          tokenLogprobs: s.tokenLogprobs,
          tokens: s.tokens,
          argmaxMatches: s.nArgmaxMatch,
          isGreedy: s.isGreedy,
          contextTokens: ctx.length,
          underflowClamps: s.underflowClamps,
        };
      });
    }
    return out;
  }

  /** Summed log-probability of `continuation` after the rendered context + generation prompt. */
  async score(context: readonly ChatMessage[], continuation: string): Promise<GgufScoreResult> {
    return (await this.scoreMany(context, [continuation]))[0];
  }

  /**
   * Re-scores each sample on an emptied KV cache with one forward pass of context + continuation
   * and compares it with the cached scorer (docs/harness.md §3.7). NaN never passes.
   */
  async verifyScoring(sample: readonly VerifySample[], options: { tolerance?: number } = {}): Promise<VerifyReport> {
    const tolerance = options.tolerance ?? VERIFY_TOLERANCE;
    const rows: VerifyRow[] = [];
    for (const [index, s] of sample.entries()) {
      const { text } = await this.renderPrompt(s.context, true);
      const toks = await this.scoringTokens(text, s.continuation);
      let cached = NaN;
      let fresh = NaN;
      let problem: string | undefined;
      try {
        [{ logprob: cached }] = await this.scoreTokens(toks.context, [toks.continuation]);
        fresh = await this.exclusive((rt) => rt.scoreFresh(toks.context as Token[], toks.continuation as Token[]));
      } catch (e) {
        if (!(e instanceof NumericGuardError)) throw e;
        problem = e.message;
      }
      rows.push(verifyRow(index, cached, fresh, tolerance, 'cached and fresh scores differ', problem));
    }
    return verifyReport(
      rows,
      tolerance,
      'prefix-cached scoring vs one fresh forward pass of context + continuation on an emptied KV cache',
    );
  }

  // ---- generation ----------------------------------------------------------------------------

  /** Generates after prompt tokens, with optional bans and stop tokens. */
  async generateTokens(prompt: readonly number[], request: GenerateTokensRequest): Promise<GenerateTokensOutput> {
    const rt = await this.load();
    const banList: TokenSeq[] = [
      ...(request.bannedSequences?.length ? buildBanList(request.bannedSequences, (s) => rt.tokenize(s, false)) : []),
      ...(request.bannedTokenSequences ?? []).filter((s) => s.length > 0),
    ];
    const temperature = request.temperature ?? this.settings.temperature;
    if (!(temperature >= 0)) throw new UsageError(`temperature must be >= 0, got ${temperature}`, { option: 'temperature' });
    if (!Number.isInteger(request.maxTokens) || request.maxTokens < 0)
      throw new UsageError(`maxTokens must be a non-negative integer, got ${request.maxTokens}`, { option: 'maxTokens' });
    const res = await this.exclusive((r) =>
      r.generateTokens(prompt as Token[], {
        maxTokens: request.maxTokens,
        temperature,
        seed: request.seed ?? this.settings.seed,
        topK: request.topK ?? this.settings.topK,
        topP: request.topP ?? this.settings.topP,
        minP: request.minP ?? this.settings.minP,
        banned: banList,
        bannedAnswers: request.bannedAnswers?.length ? answerBanSet(request.bannedAnswers) : undefined,
        stopTokens: request.stopTokenIds ? new Set(request.stopTokenIds) : undefined,
        signal: request.signal,
      }),
    );
    // Object.assign, not a spread: docs/performance.md#hidden-classes
    return Object.assign({}, res, { text: rt.detokenize(res.tokens, false), banList });
  }

  /** Chat generation: greedy unless a temperature is set; one attempt (no retries in process). */
  async generate(messages: ChatMessage[], options: GenerateOptions): Promise<GenerateResult> {
    const startedAt = new Date().toISOString();
    const t0 = performance.now();
    const temperature = options.temperature ?? this.settings.temperature;
    const seed = options.seed ?? this.settings.seed;
    const request: Record<string, unknown> = {
      model: this.label,
      maxTokens: options.maxTokens,
      temperature,
      seed,
      messages: messages.length,
      bannedSequences: options.bannedSequences?.length ?? 0,
      ...(options.bannedAnswers?.length ? { bannedAnswers: options.bannedAnswers.length } : {}),
      ...(options.stopTokenIds?.length ? { stopTokenIds: [...options.stopTokenIds] } : {}),
    };
    let attempt: AttemptRecord;
    try {
      const prompt = await this.renderPrompt(messages, true);
      const out = await this.generateTokens(prompt.tokens, {
        maxTokens: options.maxTokens,
        temperature,
        seed,
        bannedSequences: options.bannedSequences,
        bannedAnswers: options.bannedAnswers,
        stopTokenIds: options.stopTokenIds,
        signal: options.signal,
      });
      const rt = await this.load();
      // The text boundary (core/util/text-boundary.ts): NUL or a lone surrogate is a fault, never a draft.
      const fault = textFault(out.text);
      if (fault) {
        const failed: AttemptRecord = {
          ok: false,
          startedAt,
          latencyMs: performance.now() - t0,
          finishReason: out.finishReason,
          request,
          error: {
            kind: 'invalid_text',
            message: `the generated text ${fault.problem}: not text, so it was not verified`,
            raw: escapeText(out.text),
          },
        };
        options.onAttempt?.(failed);
        return { text: null, attempts: [failed] };
      }
      attempt = {
        ok: true,
        text: out.text,
        startedAt,
        latencyMs: performance.now() - t0,
        finishReason: out.finishReason,
        usage: {
          promptTokens: prompt.tokens.length,
          completionTokens: out.tokens.length,
          totalTokens: prompt.tokens.length + out.tokens.length,
        },
        request,
        meta: {
          ...(await this.backendInfo()),
          promptTokensEvaluated: out.promptTokensEvaluated,
          stopToken: out.stopToken == null ? null : rt.detokenize([out.stopToken], true),
          nBannedMasked: out.nBannedMasked,
          banListSize: out.banList.length,
          ...(options.bannedAnswers?.length ? { nEndsMasked: out.nEndsMasked } : {}),
        },
      };
    } catch (e) {
      if (options.signal?.aborted) throw e;
      // A configuration problem (bad template, unreadable file) is the user's to fix: stop the run.
      // A prompt too long for the context is a failed attempt of this request, like an HTTP 400.
      if (e instanceof UserError && !(e instanceof ContextOverflowError)) throw e;
      const kind =
        e instanceof ContextOverflowError ? 'context_overflow' : e instanceof NumericGuardError ? 'numeric_guard' : 'backend_error';
      attempt = { ok: false, startedAt, latencyMs: performance.now() - t0, request, error: { kind, message: (e as Error).message } };
    }
    options.onAttempt?.(attempt);
    return { text: attempt.ok ? attempt.text! : null, attempts: [attempt] };
  }
}

/**
 * Creates the GGUF backend for a spec `gguf:<path>[?key=value&…]` (see docs/gguf.md). Returns at
 * once after validating the spec and the file; the model loads on first use (or `await model.load()`).
 */
export function createGgufModel(spec: string, options: GgufModelOptions = {}): GgufModel {
  return new GgufModel(spec, options);
}
