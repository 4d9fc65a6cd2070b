// One interface for every model backend. What a backend can do beyond `generate` is declared in
// `capabilities`, and each flag promises one typed interface of ./capabilities.ts, so experiments
// needing scoring, bans or the tokenizer check the flag and refuse cleanly instead of approximating.

/** One chat message as every backend receives it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

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

/** One provider call, successful or not. Failed attempts are never scored as text. */
export interface AttemptRecord {
  ok: boolean;
  /** Raw text as returned (before stripping); present only when ok. */
  text?: string;
  startedAt: string;
  latencyMs: number;
  status?: number;
  finishReason?: string | null;
  usage?: { promptTokens?: number; completionTokens?: number; totalTokens?: number };
  /** Short summary of the request (model, max_tokens, message count, …), never secrets. */
  request?: Record<string, unknown>;
  /** `retryable` says whether the backend's policy retried (or would have retried) this failure. */
  error?: { kind: string; message: string; raw?: unknown; retryable?: boolean };
  /** Backend-specific extras (response id, system fingerprint, provider, …). */
  meta?: Record<string, unknown>;
}

/** What `Model.generate` returns: the final text (null when every attempt failed) and every attempt, failed ones included. */
export interface GenerateResult {
  /** The final successful text (raw); null when every attempt failed. */
  text: string | null;
  attempts: AttemptRecord[];
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
