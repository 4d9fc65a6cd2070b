// What the kernel needs of a language model: one chat call that reports every provider attempt.
// revloop's backends (`createModel(spec)`) implement it, and `aiSdkModel` wraps any AI SDK model
// in it; your own object works as well. Web APIs only: nothing here assumes Node.

/** One chat message as every backend receives it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
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

/** What one generation returns: the final text (null when every attempt failed) and every attempt, failed ones included. */
export interface GenerateResult {
  /** The final successful text (raw); null when every attempt failed. */
  text: string | null;
  attempts: AttemptRecord[];
}

/** Options of one generation: the token limit (left to the backend when unset), sampling, bans, extra body keys, abort, attempt reports. */
export interface ModelCallOptions {
  /** Completion tokens at most; unset: the backend's own limit (nothing is sent). */
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  /** Sequences the decoder must never complete (needs a backend that can ban: capability `ban`). */
  bannedSequences?: string[];
  /**
   * Complete answers the decoder must not give (capability `banAnswers`): while the answer so far,
   * stripped, equals one of these (stripped), every end-of-answer token is masked, so the answer may
   * extend such a text but never stop at it.
   */
  bannedAnswers?: string[];
  /** Extra request-body keys for HTTP backends (e.g. chat_template_kwargs). */
  extraBody?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Called once per provider attempt (retries included), in order. */
  onAttempt?: (attempt: AttemptRecord) => void;
}

/**
 * A chat model as the kernel calls it: `generate` reports every provider attempt through
 * `onAttempt` and resolves with the final text (null when every attempt failed). revloop's `Model`
 * is one; `aiSdkModel(model)` makes one of an AI SDK LanguageModel.
 */
export interface ReviseModel {
  /** What it was created from (a spec string), for records. */
  readonly spec?: string;
  /** A human label for records and errors. */
  readonly label: string;
  /** `ban`: the backend honours `bannedSequences`; `banAnswers`: it honours `bannedAnswers`; `simulated`: a simulated controller. */
  readonly capabilities?: { readonly ban?: boolean; readonly banAnswers?: boolean; readonly simulated?: boolean };
  generate(messages: ChatMessage[], options: ModelCallOptions): Promise<GenerateResult>;
  close?(): Promise<void>;
}

/** Whether the model declares that it can ban token sequences during decoding. */
export function modelCanBan(model: Pick<ReviseModel, 'capabilities'>): boolean {
  return model.capabilities?.ban === true;
}

/** Whether the model declares that it can ban complete answers (mask the end of the answer after a banned text). */
export function modelCanBanAnswers(model: Pick<ReviseModel, 'capabilities'>): boolean {
  return model.capabilities?.banAnswers === true;
}
