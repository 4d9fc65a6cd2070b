// One agent turn from a model: render the messages, decode greedily (or seeded sampling) up to
// max_new_tokens, stop at end-of-turn ids and (ToolShed) single-token newlines, and optionally ban
// earlier failed actions (docs/harness.md §5.2, §6). Two paths:
//   - token-level decoding in process (the `decode` capability, gguf:): the exact reference loop —
//     the model's own template, token-level stop ids, the per-step ban mask, the KV cache reused
//     across steps;
//   - any other Model: `generate()` with `bannedSequences` (vLLM `bad_words`); where the backend
//     takes extra stop tokens and has a tokenizer (vllm:), the newline stop ids are sent as
//     `stopTokenIds` when "\n" and "\n\n" are single tokens.
import type { ChatMessage, Model } from '../../models/types.ts';
import {
  canBan,
  canDecodeTokens,
  canStopOnTokens,
  canTokenize,
  hasBackendInfo,
  type TokenDecodingModel,
} from '../../models/capabilities.ts';
import { CapabilityError, markErrorClass, UserError } from '../../core/errors.ts';

/** One turn to generate: token limit, sampling, and the actions to ban. */
export interface TurnRequest {
  maxNewTokens: number;
  temperature: number;
  seed: number;
  /** Failed actions to ban (stripped, de-duplicated); empty: no ban. */
  banned: readonly string[];
  /** Stop at single-token "\n" / "\n\n" (ToolShed; not CodeRepair). */
  newlineStops: boolean;
}

/** A generated turn: its text, tokens and usage, and how many ban-mask applications it took. */
export interface TurnResult {
  /** Decoded generation (special tokens skipped). */
  text: string;
  /** Generated tokens, stop token excluded (null: the backend did not say). */
  genTokens: number | null;
  /** Tokens of the full rendered context (what a cache-free implementation would prefill). */
  promptTokens: number | null;
  /** Ban mask applications (null: the backend does not report them). */
  nBannedMasked: number | null;
  finishReason: string | null;
  /** Generated token ids and the banned token sequences in force (in-process backends only; not stored). */
  tokenIds?: number[];
  banTokenSequences?: ReadonlyArray<readonly number[]>;
}

/**
 * Generates one agent turn with a model, with the harness's bans and the turn's stop tokens where the backend supports them. Get one with
 * `turnGeneratorFor`.
 */
export interface TurnGenerator {
  readonly model: Model;
  /** The path in words, recorded with the run. */
  readonly method: string;
  turn(messages: ChatMessage[], request: TurnRequest): Promise<TurnResult>;
  /** Facts recorded with the run (model parameters, backend versions). */
  info(): Promise<Record<string, unknown>>;
}

/** Thrown when a turn could not be generated (the backend's attempts all failed). */
export class TurnFailedError extends UserError {
  /** Whether `e` is a TurnFailedError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<TurnFailedError>(this, 'revloop.error.TurnFailedError');

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'TurnFailedError';
  }
}

/** End-of-turn markers the reference adds to the stop set when they are single vocabulary tokens. */
const END_OF_TURN_MARKERS = ['<|im_end|>', '<|eot_id|>', '<|endoftext|>', '<|end|>'];

/** A generator for the model; refuses up front when a ban is needed and the backend cannot ban. */
export async function turnGeneratorFor(model: Model, options: { needsBan: boolean }): Promise<TurnGenerator> {
  if (options.needsBan && !canBan(model)) {
    throw new CapabilityError(
      `${model.label}: this backend cannot ban token sequences during decoding, which the +ban harnesses need. ` +
        'Use a gguf:<path> model (per-step token bias in process) or a vllm:<url>#<model> server (bad_words), or a harness without +ban.',
      { capability: 'ban', model: model.label },
    );
  }
  if (canDecodeTokens(model)) return tokenGenerator(model);
  return chatGenerator(model);
}

async function tokenGenerator(model: TokenDecodingModel): Promise<TurnGenerator> {
  const stopIds = new Map<boolean, number[]>();
  const stops = async (newlines: boolean): Promise<number[]> => {
    const cached = stopIds.get(newlines);
    if (cached) return cached;
    const ids = new Set<number>();
    for (const m of END_OF_TURN_MARKERS) {
      const t = await model.tokenize(m, true);
      if (t.length === 1) ids.add(t[0]);
    }
    if (newlines) {
      for (const s of ['\n', '\n\n']) {
        const t = await model.tokenize(s, false);
        if (t.length === 1) ids.add(t[0]);
      }
    }
    const list = [...ids].sort((a, b) => a - b);
    stopIds.set(newlines, list);
    return list;
  };
  return {
    model,
    method: 'in process: chat template → tokens, KV cache reused across steps, token-level stop ids, per-step ban mask',
    async turn(messages, r) {
      const prompt = await model.renderPrompt(messages, true);
      const out = await model.generateTokens(prompt.tokens, {
        maxTokens: r.maxNewTokens,
        temperature: r.temperature,
        seed: r.seed,
        // The reference's sampling path (temperature > 0, unused in the study) is nucleus sampling with top_p 0.95.
        ...(r.temperature > 0 ? { topP: 0.95 } : {}),
        bannedSequences: r.banned.length ? r.banned : undefined,
        stopTokenIds: await stops(r.newlineStops),
      });
      return {
        text: out.text,
        genTokens: out.tokens.length,
        promptTokens: prompt.tokens.length,
        nBannedMasked: out.nBannedMasked,
        finishReason: out.finishReason,
        tokenIds: out.tokens,
        banTokenSequences: out.banList,
      };
    },
    async info() {
      const info = hasBackendInfo(model) ? await model.backendInfo() : {};
      return { ...info, stopTokenIds: await stops(true) };
    },
  };
}

function chatGenerator(model: Model): TurnGenerator {
  // Newline stops need both the server's tokenizer and its extra stop tokens (vLLM).
  const tokenStops = canStopOnTokens(model) && canTokenize(model) ? model : null;
  let newlineIds: number[] | null | undefined;
  const newlineStopIds = async (): Promise<number[] | null> => {
    if (!tokenStops) return null;
    if (newlineIds !== undefined) return newlineIds;
    const ids: number[] = [];
    try {
      for (const s of ['\n', '\n\n']) {
        const t = await tokenStops.tokenize(s);
        if (t.length === 1) ids.push(t[0]);
      }
      newlineIds = ids;
    } catch {
      newlineIds = null; // no /tokenize: generate to the token limit and take the first line
    }
    return newlineIds;
  };
  return {
    model,
    method: tokenStops
      ? 'HTTP chat completions (server-side chat template), bad_words for the ban, stop_token_ids for single-token newlines'
      : 'HTTP chat completions (server-side chat template); no token-level newline stop (the first line is taken)',
    async turn(messages, r) {
      const nl = r.newlineStops ? await newlineStopIds() : null;
      const res = await model.generate(messages, {
        maxTokens: r.maxNewTokens,
        temperature: r.temperature,
        seed: r.seed,
        ...(r.banned.length ? { bannedSequences: [...r.banned] } : {}),
        ...(nl && nl.length ? { stopTokenIds: nl } : {}),
      });
      if (res.text === null) {
        const last = res.attempts[res.attempts.length - 1];
        throw new TurnFailedError(
          `${model.label}: generation failed after ${res.attempts.length} attempt(s): ${last?.error?.kind ?? 'error'}: ${last?.error?.message ?? 'no text'}`,
        );
      }
      const ok = [...res.attempts].reverse().find((a) => a.ok);
      const masked = ok?.meta?.bannedMasked;
      return {
        text: res.text,
        genTokens: ok?.usage?.completionTokens ?? null,
        promptTokens: ok?.usage?.promptTokens ?? null,
        nBannedMasked: typeof masked === 'number' ? masked : null,
        finishReason: ok?.finishReason ?? null,
      };
    },
    info: async () => ({ backend: tokenStops ? 'vllm' : 'chat', spec: model.spec, newlineStopTokenIds: await newlineStopIds() }),
  };
}
