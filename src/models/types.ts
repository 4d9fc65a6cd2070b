// One interface for every model backend. What a backend can do beyond `generate` is declared in
// `capabilities`, and each flag promises one typed interface of ./capabilities.ts, so experiments
// needing scoring, bans or the tokenizer check the flag and refuse cleanly instead of approximating.

import type { AttemptRecord, ChatMessage, GenerateResult } from '@revloop/revise';

// A chat message, a provider attempt's record and a generation's result are the revise package's
// (its kernel calls every backend), so that a revloop Model is a model `revise()` takes as it is.
export type { AttemptRecord, ChatMessage, GenerateResult };

/** What a backend can do besides `generate`; each flag promises the interface named (./capabilities.ts). */
export interface ModelCapabilities {
  /** Teacher-forced log-probabilities of given continuations: `ScoringModel`. */
  score: boolean;
  /** Per-step bans of token sequences during decoding: `generate` honours `bannedSequences`. */
  ban: boolean;
  /** Bans of complete answers (the end of the answer masked after a banned text): `generate` honours `bannedAnswers`. */
  banAnswers: boolean;
  /** The backend's own tokenizer: `TokenizingModel` (`tokenize`, `countTokens`). */
  tokenize: boolean;
  /** Token-level decoding in process (template → tokens, stop ids, per-step ban mask): `TokenDecodingModel`. */
  decode: boolean;
  /** `generate` honours `stopTokenIds` (e.g. vLLM `stop_token_ids`). */
  stopTokens: boolean;
  /** Cumulative scoring cost counters: `ScoringCostModel`. */
  counters: boolean;
  /** Facts about the backend to record with a run: `BackendInfoModel`. */
  info: boolean;
  /** The context window is sized to the work before it starts (GGUF in process): `ContextSizingModel`. */
  sizeContext: boolean;
  /** A simulated controller: every output that shows its numbers says so. */
  simulated: boolean;
}

/** Options of `Model.generate`: the token limit (required), sampling, and bans or stop tokens where the backend declares them. */
export interface GenerateOptions {
  maxTokens: number;
  /** 0 (greedy) unless set. */
  temperature?: number;
  seed?: number;
  /** Sequences the decoder must never complete (needs the `ban` capability). */
  bannedSequences?: string[];
  /**
   * Complete answers the decoder must not give (needs the `banAnswers` capability): while the answer
   * so far, stripped, equals one of these (stripped), every end-of-answer token is masked, so the
   * answer may extend such a text but never stop at it (src/models/ban.ts).
   */
  bannedAnswers?: string[];
  /** Extra token ids that end the reply (needs the `stopTokens` capability; others ignore it). */
  stopTokenIds?: readonly number[];
  /** Extra request-body keys for HTTP backends (e.g. chat_template_kwargs). */
  extraBody?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Called once per provider attempt (retries included), in order. */
  onAttempt?: (attempt: AttemptRecord) => void;
}

/** A teacher-forced score of one continuation after a rendered chat context (+ generation prompt). */
export interface ScoreResult {
  /** Summed log-probability of the continuation (nats). */
  logprob: number;
  tokenLogprobs: number[];
  /** Continuation tokens. */
  tokens: number;
  /** Positions where the continuation token is the argmax (`n_argmax_match`, docs/harness.md §3.4). */
  argmaxMatches: number;
  /** Greedy decoding would emit the continuation (every position is the argmax). */
  isGreedy: boolean;
  /** Tokens of the rendered context (`ctx_tokens`, docs/harness.md §3.6). */
  contextTokens: number;
}

/**
 * A language model behind one interface: `generate` always; scoring, bans and tokenization only where `capabilities` declares them (check
 * with `canScore`, `canBan`, …). Create one with `createModel(spec)`.
 */
export interface Model {
  /** The spec it was created from, e.g. `openai-compatible:http://localhost:8000/v1#qwen`. */
  spec: string;
  /** Human label used as the controller name in analyses. */
  label: string;
  capabilities: ModelCapabilities;
  generate(messages: ChatMessage[], options: GenerateOptions): Promise<GenerateResult>;
  close?(): Promise<void>;
}
