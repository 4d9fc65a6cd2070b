// One interface for every model backend. Capabilities are declared so that experiments needing
// teacher-forced scoring or decoder bans can refuse cleanly instead of approximating.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ModelCapabilities {
  /** Teacher-forced log-probabilities of a given continuation. */
  score: boolean;
  /** Per-step bans of token sequences during decoding. */
  ban: boolean;
  /** A simulated controller: every output that shows its numbers says so. */
  simulated: boolean;
}

export interface GenerateOptions {
  maxTokens: number;
  /** 0 (greedy) unless set. */
  temperature?: number;
  seed?: number;
  /** Sequences the decoder must never complete (needs the `ban` capability). */
  bannedSequences?: string[];
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

export interface GenerateResult {
  /** The final successful text (raw); null when every attempt failed. */
  text: string | null;
  attempts: AttemptRecord[];
}

export interface ScoreResult {
  /** Summed log-probability of the continuation. */
  logprob: number;
  tokenLogprobs: number[];
  tokens: number;
  /** Positions where the continuation token is the argmax (`n_argmax_match`, docs/harness.md §3.4), where known. */
  argmaxMatches?: number;
  /** Greedy decoding would emit the continuation (every position is the argmax), where known. */
  isGreedy?: boolean;
  /** Tokens of the rendered context (`ctx_tokens`, docs/harness.md §3.6), where known. */
  contextTokens?: number;
}

export interface Model {
  /** The spec it was created from, e.g. `openai-compatible:http://localhost:8000/v1#qwen`. */
  spec: string;
  /** Human label used as the controller name in analyses. */
  label: string;
  capabilities: ModelCapabilities;
  generate(messages: ChatMessage[], options: GenerateOptions): Promise<GenerateResult>;
  score?(context: ChatMessage[], continuation: string): Promise<ScoreResult>;
  close?(): Promise<void>;
}
