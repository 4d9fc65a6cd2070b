// Typed optional capabilities. Each flag of `ModelCapabilities` promises one interface below, and
// the guards check the declared flag (never the shape of an object), so code that needs scoring,
// bans or a tokenizer narrows a `Model` once and then calls typed methods: a signature change in a
// backend is a compile error in every study that uses it. Backends declare what they implement with
// `implements ScoringModel, …`; the `require…` helpers refuse cleanly instead of approximating.
import { CapabilityError } from '../core/errors.ts';
import type { TokenSeq } from './ban.ts';
import type { ChatMessage, Model, ModelCapabilities, ScoreResult } from './types.ts';

/** The capabilities with the flags in `K` known to be true. */
export type CapabilitiesWith<K extends keyof ModelCapabilities> = ModelCapabilities & { readonly [P in K]: true };

/** Every flag false except those given: a fake or a new backend states only what it adds. */
export function modelCapabilities(declared: Partial<ModelCapabilities> = {}): ModelCapabilities {
  return {
    score: false,
    ban: false,
    banAnswers: false,
    tokenize: false,
    decode: false,
    stopTokens: false,
    counters: false,
    info: false,
    sizeContext: false,
    simulated: false,
    ...declared,
  };
}

/** The flags a run plan records (the plan hash covers them, so the set stays fixed across versions). */
export interface RecordedCapabilities {
  score: boolean;
  ban: boolean;
  simulated: boolean;
}

export function recordedCapabilities(c: RecordedCapabilities): RecordedCapabilities {
  return { score: c.score, ban: c.ban, simulated: c.simulated };
}

// ---- scoring ------------------------------------------------------------------------------------

/** A context + continuation to score twice (cached-vs-fresh verification). */
export interface VerifySample {
  context: ChatMessage[];
  continuation: string;
}

/** One compared pair; `problem` says why it failed. */
export interface VerifyRow {
  index: number;
  cached: number;
  fresh: number;
  diff: number;
  ok: boolean;
  problem?: string;
}

/** The result of `verifyScoring`: whether every compared score pair agreed within the tolerance, with each pair. */
export interface VerifyReport {
  ok: boolean;
  n: number;
  tolerance: number;
  /** NaN when any pair could not be compared (a NaN never passes). */
  maxAbsDiff: number;
  rows: VerifyRow[];
  /** What was compared, in words (the check differs by backend). */
  method: string;
}

/** Teacher-forced scoring (`capabilities.score`): GGUF in process, vLLM prompt_logprobs, the sim toy LM. */
export interface ScoringModel extends Model {
  readonly capabilities: CapabilitiesWith<'score'>;
  /** Score of `continuation` after the rendered context + generation prompt. */
  score(context: readonly ChatMessage[], continuation: string): Promise<ScoreResult>;
  /** Scores of several continuations under one context, in input order (one KV walk where the backend can). */
  scoreMany(context: readonly ChatMessage[], continuations: readonly string[]): Promise<ScoreResult[]>;
  /**
   * Scores each sample twice — the normal path and an independent one (GGUF: an emptied KV cache;
   * HTTP and sim: a second call) — and fails on any non-finite or positive value or a difference
   * above the tolerance (default 1e-3 nats).
   */
  verifyScoring(sample: readonly VerifySample[], options?: { tolerance?: number }): Promise<VerifyReport>;
}

/** Cumulative cost of scoring: what was pushed through the network against a cache-free scorer. */
export interface ScoringCounters {
  /** Token positions actually pushed through the network. */
  forwardTokens: number;
  /** Decode calls issued. */
  forwardCalls: number;
  /** What a cache-free scorer would push: len(context) + len(continuation) per scored continuation. */
  naiveTokens: number;
  /** Continuations scored. */
  nScored: number;
}

/** Scoring cost counters (`capabilities.counters`): GGUF in process. */
export interface ScoringCostModel extends Model {
  readonly capabilities: CapabilitiesWith<'counters'>;
  /** Counters of this model object since creation or the last reset. */
  stats(): ScoringCounters;
}

// ---- decoding -----------------------------------------------------------------------------------

/** Bans in decoding (`capabilities.ban`): `generate` never completes a sequence in `bannedSequences`. */
export interface BanningModel extends Model {
  readonly capabilities: CapabilitiesWith<'ban'>;
}

/** Bans of complete answers (`capabilities.banAnswers`): `generate` never ends its answer at a text in `bannedAnswers`. */
export interface AnswerBanningModel extends Model {
  readonly capabilities: CapabilitiesWith<'banAnswers'>;
}

/** Extra stop tokens (`capabilities.stopTokens`): `generate` ends the reply at any of `stopTokenIds`. */
export interface StopTokenModel extends Model {
  readonly capabilities: CapabilitiesWith<'stopTokens'>;
}

/** The backend's own tokenizer (`capabilities.tokenize`): GGUF in process, vLLM `/tokenize`, the sim's toy tokenizer. */
export interface TokenizingModel extends Model {
  readonly capabilities: CapabilitiesWith<'tokenize'>;
  /** Token ids of `text` without added special tokens (no BOS). */
  tokenize(text: string): Promise<number[]>;
  /** `(await tokenize(text)).length`. */
  countTokens(text: string): Promise<number>;
  /**
   * Tokens of the prompt a generation from `messages` would send: the chat rendered with the
   * backend's own template and generation prompt, then tokenized (GGUF in process, vLLM's
   * /tokenize with messages, the sim's toy template and tokenizer). Context-window checks use it.
   */
  countPromptTokens(messages: readonly ChatMessage[]): Promise<number>;
}

/** A chat rendered by the model's template with the generation prompt: its text and token ids. */
export interface RenderedPrompt {
  text: string;
  tokens: number[];
}

/**
 * A token-level generation request of `TokenDecodingModel.generateTokens`: the token limit, sampling (default: the model's), stop ids and
 * bans.
 */
export interface GenerateTokensRequest {
  maxTokens: number;
  /** Defaults: the model's temperature / seed / topK / topP / minP. */
  temperature?: number;
  seed?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  /** Strings to ban (docs/harness.md §6: stripped, bare and leading-space variants). */
  bannedSequences?: readonly string[];
  /** Complete answers to ban: the end of the answer is masked while the text so far, stripped, is one of them. */
  bannedAnswers?: readonly string[];
  /** Already tokenized banned sequences (used as given, in addition to bannedSequences). */
  bannedTokenSequences?: readonly TokenSeq[];
  /** Stop tokens besides the model's end-of-generation tokens (e.g. single-token "\n"). */
  stopTokenIds?: readonly number[];
  signal?: AbortSignal;
}

/** What `generateTokens` returns: the generated tokens and text, why it stopped, and the ban mask's work. */
export interface GenerateTokensOutput {
  /** Generated tokens, the stop token excluded. */
  tokens: number[];
  text: string;
  finishReason: 'stop' | 'length';
  /** The token that stopped generation (an end-of-generation or extra stop token), if any. */
  stopToken: number | null;
  /** Ban mask applications (every sequence × step, as the reference's `n_banned_masked`). */
  nBannedMasked: number;
  /** Steps at which a complete-answer ban masked the end of the answer. */
  nEndsMasked: number;
  /** Prompt tokens actually pushed (the rest came from the KV cache). */
  promptTokensEvaluated: number;
  /** The banned token sequences that were in force. */
  banList: TokenSeq[];
}

/** Token-level decoding in process (`capabilities.decode`): the reference agent loop's exact path. */
export interface TokenDecodingModel extends TokenizingModel {
  readonly capabilities: CapabilitiesWith<'decode' | 'tokenize'>;
  /** `special` parses special-token markup such as <|im_end|>. */
  tokenize(text: string, special?: boolean): Promise<number[]>;
  /** The chat template rendered (+ generation prompt) and tokenized with special tokens parsed, no automatic BOS. */
  renderPrompt(messages: readonly ChatMessage[], addGenerationPrompt?: boolean): Promise<RenderedPrompt>;
  /** Generates after prompt tokens, with optional bans and stop tokens. */
  generateTokens(prompt: readonly number[], request: GenerateTokensRequest): Promise<GenerateTokensOutput>;
}

// ---- context window -----------------------------------------------------------------------------

/** What a context window holds after `fitContext`. */
export interface ContextFit {
  /** Tokens the context holds now. */
  size: number;
  /** Tokens it held before (differs when it was grown). */
  before: number;
  /** The model's training context (null when the file does not say). */
  trainContextSize: number | null;
}

/**
 * A context window sized to the work (`capabilities.sizeContext`): GGUF in process. Callers measure
 * the longest request first and fit the context once, before any work, instead of stopping part way.
 */
export interface ContextSizingModel extends Model {
  readonly capabilities: CapabilitiesWith<'sizeContext'>;
  /** Tokens one scoring call holds: the rendered context (+ generation prompt) and its longest continuation. */
  scoringLength(context: readonly ChatMessage[], continuations: readonly string[]): Promise<number>;
  /**
   * Makes the context hold `tokens` (+1 for the next position): grows it up to the training context
   * when the size was left to revloop; otherwise (a size set in the spec, or more than the model was
   * trained for) throws a UserError that says what to do.
   */
  fitContext(tokens: number): Promise<ContextFit>;
}

// ---- records ------------------------------------------------------------------------------------

/** Facts to record with a run (`capabilities.info`): binary, device, server, template, sampler. */
export interface BackendInfoModel extends Model {
  readonly capabilities: CapabilitiesWith<'info'>;
  backendInfo(): Promise<Record<string, unknown>>;
}

// ---- guards -------------------------------------------------------------------------------------

/** Whether the model declares the `score` capability (teacher-forced log-probabilities); narrows it to `ScoringModel`. */
export function canScore(model: Model): model is ScoringModel {
  return model.capabilities.score === true;
}

/** Whether the model declares the `ban` capability (`generate` honours `bannedSequences`); narrows it to `BanningModel`. */
export function canBan(model: Model): model is BanningModel {
  return model.capabilities.ban === true;
}

/** Whether the model declares the `banAnswers` capability (`generate` honours `bannedAnswers`); narrows it to `AnswerBanningModel`. */
export function canBanAnswers(model: Model): model is AnswerBanningModel {
  return model.capabilities.banAnswers === true;
}

/** Whether the model declares the `stopTokens` capability (`generate` honours `stopTokenIds`); narrows it to `StopTokenModel`. */
export function canStopOnTokens(model: Model): model is StopTokenModel {
  return model.capabilities.stopTokens === true;
}

/** Whether the model declares the `tokenize` capability (its own tokenizer, no special tokens); narrows it to `TokenizingModel`. */
export function canTokenize(model: Model): model is TokenizingModel {
  return model.capabilities.tokenize === true;
}

/** Whether the model declares both `decode` and `tokenize` (token-level generation in process); narrows it to `TokenDecodingModel`. */
export function canDecodeTokens(model: Model): model is TokenDecodingModel {
  return model.capabilities.decode === true && model.capabilities.tokenize === true;
}

/** Whether the model declares the `counters` capability (`stats()` of forward tokens and calls); narrows it to `ScoringCostModel`. */
export function hasScoringCounters(model: Model): model is ScoringCostModel {
  return model.capabilities.counters === true;
}

/** Whether the model declares the `info` capability (`backendInfo()` facts to record with a run); narrows it to `BackendInfoModel`. */
export function hasBackendInfo(model: Model): model is BackendInfoModel {
  return model.capabilities.info === true;
}

export function canSizeContext(model: Model): model is ContextSizingModel {
  return model.capabilities.sizeContext === true;
}

const HOW =
  'Use a gguf: model (in-process llama.cpp) or a vllm: spec (a vLLM server: prompt_logprobs scoring, bad_words bans); sim: models emulate both with a toy LM.';

/** Throws a CapabilityError unless the model can score continuations (teacher forcing). */
export function requireScore(model: Model, purpose = 'this experiment'): asserts model is ScoringModel {
  if (!canScore(model)) {
    throw new CapabilityError(
      `${model.label} cannot score a given continuation (no teacher-forced log-probabilities), which ${purpose} needs. ${HOW}`,
      { capability: 'score', model: model.label },
    );
  }
}

/** Throws a CapabilityError unless the model can ban token sequences during decoding. */
export function requireBan(model: Model, purpose = 'this harness'): asserts model is BanningModel {
  if (!canBan(model)) {
    throw new CapabilityError(`${model.label} cannot ban token sequences during decoding, which ${purpose} needs. ${HOW}`, {
      capability: 'ban',
      model: model.label,
    });
  }
}

/** Throws a CapabilityError unless the model exposes its own tokenizer (token counts, context-window checks). */
export function requireTokenize(model: Model, purpose = 'this check'): asserts model is TokenizingModel {
  if (!canTokenize(model)) throw tokenizerRefusal(model, purpose);
}

/** The refusal of `requireTokenize`: `model` cannot count tokens, which `purpose` needs. */
export function tokenizerRefusal(model: Model, purpose: string): CapabilityError {
  return new CapabilityError(
    `${model.label} does not expose its tokenizer, which ${purpose} needs. ` +
      "gguf: models tokenize in process, vllm: specs through the server's /tokenize, sim: models with their toy tokenizer; plain OpenAI-compatible APIs cannot count tokens.",
    { capability: 'tokenize', model: model.label },
  );
}
