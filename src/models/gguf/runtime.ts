// One loaded GGUF: the llama.cpp binding, the model, one context with ONE sequence, and the exact
// token list its KV cache holds. Every operation on the sequence is serialized by a lock, because
// a sequence is a single KV state; concurrency across calls would interleave tokens. (Several
// sequences batched together also change the logits: llama.cpp #6583.)
//
// Numerics worth knowing (measured on CPU with the tiny model; see docs/gguf.md and
// bench/gguf.ts):
// - flash attention (node-llama-cpp "auto" enables it on CPU) makes a single-token decode differ
//   from a batched one by ~1e-4 nats, so it is off by default;
// - a matrix product with a single column takes llama.cpp's matrix-vector path, so a one-token
//   decode differs from a batched one (up to ~3e-4 nats on CPU, llama.cpp #4479), and a forward
//   that returns a single output row differs in the LM head (~1e-6). Every push here therefore
//   carries at least two tokens and asks for at least two output rows (an already-cached token is
//   replayed, a padding row is requested). Scoring through a reused prefix then agrees with one
//   fresh forward pass of context + continuation to ~1e-7 nats or better on this build (0 in the
//   tests and the benchmark); other batch sizes still differ at the 1e-6 level now and then.
//   Generation steps are one-token decodes by nature, so a greedy path's probabilities can differ
//   from teacher-forced ones by ~1e-4 (near-ties can flip; is_greedy is a teacher-forced statement).
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token, ControlledEvaluateInputItem } from 'node-llama-cpp';
import { markErrorClass, UserError } from '../../core/errors.ts';
import type { GgufSettings, GpuSetting } from './options.ts';
import { checkDistribution, probabilityToLogprob, NumericGuardError } from './numeric-guard.ts';
import { bannedNextTokens, endBanned, type TokenSeq } from '../ban.ts';
import type { GenerateTokensOutput } from '../capabilities.ts';

type NodeLlamaCpp = typeof import('node-llama-cpp');

/** The version of node-llama-cpp revloop is built and tested against (package.json peerDependencies). */
export const NODE_LLAMA_CPP_VERSION = '3.21.1';

let nodeLlamaCpp: Promise<NodeLlamaCpp> | null = null;

/**
 * node-llama-cpp, imported on first use by a gguf: model. It is an optional peer dependency of revloop
 * (a library install does not pull its native builds); when it is missing the error says how to add it.
 */
export function requireNodeLlamaCpp(spec = 'gguf:'): Promise<NodeLlamaCpp> {
  nodeLlamaCpp ??= import('node-llama-cpp').catch((e: NodeJS.ErrnoException) => {
    nodeLlamaCpp = null;
    if (e.code === 'ERR_MODULE_NOT_FOUND' && /node-llama-cpp/.test(e.message))
      throw new UserError(
        `${spec}: gguf: models run in process through node-llama-cpp, an optional peer dependency of revloop that is not installed here. ` +
          `Install it next to revloop: npm install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
      );
    throw e;
  });
  return nodeLlamaCpp;
}

/** Fewest tokens per push and output rows per forward (one column = the matrix-vector path, see above). */
const MIN_ROWS = 2;

/** First position whose output row is computed: `from`, or earlier (not below `floor`) so that at least MIN_ROWS rows come back. */
function outputsFrom(targetLength: number, from: number, floor: number): number {
  return Math.max(floor, Math.min(from, targetLength - MIN_ROWS));
}

/** Input item: full distribution at positions >= from, a cheap greedy token for padding outputs. */
function outputItem(t: Token, position: number, from: number, outFrom: number): ControlledEvaluateInputItem {
  if (position >= from) return [t, { generateNext: { probabilities: true } }];
  if (position >= outFrom) return [t, { generateNext: { token: true } }];
  return t;
}

/** How many of `target`'s tokens to keep cached (at most `limit`) so that at least MIN_ROWS are pushed. */
function keepForPush(targetLength: number, limit: number): number {
  return Math.max(0, Math.min(limit, targetLength - MIN_ROWS));
}

/** Default context size cap, so that "auto" never allocates a 128k-token KV cache by surprise. */
const DEFAULT_CONTEXT_CAP = 4096;

/** The request does not fit in the context window (a per-request problem, with advice). */
export class ContextOverflowError extends UserError {
  /** Whether `e` is a ContextOverflowError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<ContextOverflowError>(this, 'revloop.error.ContextOverflowError');

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'ContextOverflowError';
  }
}

/** Serializes async work (a promise chain). */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** Counters of work done, for cost accounting (docs/harness.md §3.7, §10). */
export interface GgufStats {
  /** Token positions actually pushed through the network (scoring, generation, self-check). */
  forwardTokens: number;
  /** Decode calls issued (one per push; generation counts one per generated step). */
  forwardCalls: number;
  /** What a cache-free scorer would push: len(context) + len(continuation) per scored continuation. */
  naiveTokens: number;
  /** Continuations scored. */
  nScored: number;
  /** Probabilities that underflowed float32 and were clamped (see numeric-guard.ts). */
  underflowClamps: number;
  /** Tokens generated (stop tokens excluded) and prompt tokens of generation calls (full length). */
  generatedTokens: number;
  promptTokens: number;
  /** Ban mask applications over all generation calls. */
  nBannedMasked: number;
  /** Steps at which the end of the answer was masked by a complete-answer ban. */
  nEndsMasked: number;
}

export function emptyStats(): GgufStats {
  return {
    forwardTokens: 0,
    forwardCalls: 0,
    naiveTokens: 0,
    nScored: 0,
    underflowClamps: 0,
    generatedTokens: 0,
    promptTokens: 0,
    nBannedMasked: 0,
    nEndsMasked: 0,
  };
}

/** Teacher-forced score of one token sequence after a context. */
export interface TokenScore {
  /** Summed log-probability (nats). */
  logprob: number;
  tokenLogprobs: number[];
  /** Number of continuation tokens. */
  tokens: number;
  /** Positions where the most probable token equals the target token. */
  nArgmaxMatch: number;
  /** True iff the most probable token matches at every position (greedy would emit this). */
  isGreedy: boolean;
  /** Positions whose probability underflowed and was clamped. */
  underflowClamps: number;
}

interface GenerateTokensOptions {
  maxTokens: number;
  temperature: number;
  seed: number;
  topK: number;
  topP: number;
  minP: number;
  /** Banned token sequences (see ban.ts); matched only against tokens generated in this call. */
  banned?: readonly TokenSeq[];
  /** Extra stop tokens besides the model's end-of-generation tokens (EOS, EOT, <|im_end|>, …). */
  stopTokens?: ReadonlySet<number>;
  /** Complete answers (stripped): while the text so far is one of them, every end token is masked. */
  bannedAnswers?: ReadonlySet<string>;
  signal?: AbortSignal;
}

/** What one token-level generation returns before detokenizing (see GenerateTokensOutput). */
type GenerateTokensResult = Omit<GenerateTokensOutput, 'text' | 'banList'>;

/** The settings that make a loaded runtime (one per distinct key in the process). */
type LoadKey = Pick<GgufSettings, 'path' | 'gpu' | 'gpuLayers' | 'contextSize' | 'batchSize' | 'threads' | 'flashAttention' | 'selfCheck'>;

const llamaCache = new Map<string, Promise<Llama>>();
const runtimeCache = new Map<string, { runtime: Promise<GgufRuntime>; refs: number }>();

async function getLlamaFor(nlc: NodeLlamaCpp, gpu: GpuSetting): Promise<Llama> {
  const key = String(gpu);
  let p = llamaCache.get(key);
  if (!p) {
    const level = (process.env.REVLOOP_LLAMA_LOG ?? 'error') as keyof typeof nlc.LlamaLogLevel;
    p = nlc
      .getLlama({ gpu, build: 'never', logLevel: nlc.LlamaLogLevel[level] ?? nlc.LlamaLogLevel.error, progressLogs: false })
      .catch((e: Error) => {
        llamaCache.delete(key);
        const what = gpu === false ? 'the CPU build' : `the ${gpu} build`;
        throw new UserError(
          `node-llama-cpp could not load ${what} of llama.cpp: ${e.message}. ` +
            (gpu === false
              ? 'Reinstall node-llama-cpp (its prebuilt @node-llama-cpp/* binaries).'
              : 'Run `npx --no node-llama-cpp inspect gpu` to see what is detected; use gpu=auto to fall back, or gpu=cpu.'),
        );
      });
    llamaCache.set(key, p);
  }
  return p;
}

function cacheKey(k: LoadKey): string {
  return JSON.stringify(k);
}

/** Loads (or reuses) the runtime for these settings; pair every call with `releaseRuntime`. */
export function acquireRuntime(settings: GgufSettings): { key: string; runtime: Promise<GgufRuntime> } {
  const k: LoadKey = {
    path: settings.path,
    gpu: settings.gpu,
    gpuLayers: settings.gpuLayers,
    contextSize: settings.contextSize,
    batchSize: settings.batchSize,
    threads: settings.threads,
    flashAttention: settings.flashAttention,
    selfCheck: settings.selfCheck,
  };
  const key = cacheKey(k);
  let entry = runtimeCache.get(key);
  if (!entry) {
    const runtime = GgufRuntime.load(k);
    entry = { runtime, refs: 0 };
    runtimeCache.set(key, entry);
    runtime.catch(() => runtimeCache.delete(key));
  }
  entry.refs++;
  return { key, runtime: entry.runtime };
}

/** Drops one reference; the last one disposes the context and the model. */
export async function releaseRuntime(key: string): Promise<void> {
  const entry = runtimeCache.get(key);
  if (!entry) return;
  entry.refs--;
  if (entry.refs > 0) return;
  runtimeCache.delete(key);
  const rt = await entry.runtime.catch(() => null);
  await rt?.dispose();
}

/** Disposes every loaded GGUF runtime (tests, process shutdown). */
export async function disposeAllGgufRuntimes(): Promise<void> {
  const entries = [...runtimeCache.values()];
  runtimeCache.clear();
  for (const e of entries) {
    const rt = await e.runtime.catch(() => null);
    await rt?.dispose();
  }
}

export class GgufRuntime {
  readonly lock = new Mutex();
  readonly stats: GgufStats = emptyStats();
  /** Distribution after the most recent context seek (the reference's Node.next_logprobs). */
  private root: { tokens: Token[]; probs: Map<Token, number> } | null = null;

  private constructor(
    readonly nlc: NodeLlamaCpp,
    readonly llama: Llama,
    readonly model: LlamaModel,
    readonly context: LlamaContext,
    readonly sequence: LlamaContextSequence,
    readonly key: LoadKey,
    readonly versions: { nodeLlamaCpp: string },
  ) {}

  static async load(key: LoadKey): Promise<GgufRuntime> {
    const nlc = await requireNodeLlamaCpp(key.path);
    const llama = await getLlamaFor(nlc, key.gpu);
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: key.path, gpuLayers: llama.gpu === false ? 0 : key.gpuLayers });
    } catch (e) {
      throw new UserError(`cannot load GGUF ${key.path}: ${(e as Error).message}`);
    }
    const train = model.trainContextSize;
    const contextSize = key.contextSize ?? Math.min(train > 0 ? train : DEFAULT_CONTEXT_CAP, DEFAULT_CONTEXT_CAP);
    let context: LlamaContext;
    try {
      context = await model.createContext({
        contextSize,
        sequences: 1,
        flashAttention: key.flashAttention,
        ...(key.batchSize ? { batchSize: key.batchSize } : {}),
        threads: key.threads ?? llama.cpuMathCores,
        failedCreationRemedy: false,
      });
    } catch (e) {
      await model.dispose();
      throw new UserError(
        `cannot create a ${contextSize}-token context for ${key.path}: ${(e as Error).message}. Try a smaller contextSize.`,
      );
    }
    const version = await nlc.getModuleVersion().catch(() => 'unknown');
    const rt = new GgufRuntime(nlc, llama, model, context, context.getSequence(), key, { nodeLlamaCpp: version });
    if (key.selfCheck) {
      try {
        await rt.lock.run(() => rt.selfCheck());
        Object.assign(rt.stats, emptyStats()); // the check is not part of anyone's cost accounting
      } catch (e) {
        await rt.dispose();
        throw e;
      }
    }
    return rt;
  }

  async dispose(): Promise<void> {
    if (!this.context.disposed) await this.context.dispose();
    if (!this.model.disposed) await this.model.dispose();
  }

  /** Model-load check (docs/harness.md §3.7): a forward of a fixed text must give a finite distribution summing to 1. */
  private async selfCheck(): Promise<void> {
    const tokens = this.tokenize('The capital of France is', false);
    if (tokens.length === 0) return;
    const probs = await this.distributionsFor(tokens, tokens.length - 1);
    const dist = probs[0];
    let sum = 0;
    for (const p of dist.values()) {
      if (!Number.isFinite(p)) {
        throw new NumericGuardError(
          `${this.key.path}: the self-check forward pass produced non-finite probabilities (gpu=${String(this.llama.gpu)}, threads=${this.context.currentThreads}); refusing to run experiments with a broken numerical path`,
        );
      }
      sum += p;
    }
    if (Math.abs(sum - 1) > 1e-3) {
      throw new NumericGuardError(
        `${this.key.path}: the self-check distribution sums to ${sum}, not 1; refusing to run experiments with a broken numerical path`,
      );
    }
  }

  tokenize(text: string, special: boolean): Token[] {
    return this.model.tokenize(text, special) as Token[];
  }

  detokenize(tokens: readonly number[], special = false): string {
    return this.model.detokenize(tokens as Token[], special);
  }

  isEndOfGeneration(token: number): boolean {
    return this.model.isEogToken(token as Token);
  }

  /** The exact tokens the KV cache holds now. */
  heldTokens(): Token[] {
    return this.sequence.contextTokens;
  }

  /** Static facts to record with every attempt and score (reproducibility). */
  backendInfo(): Record<string, unknown> {
    let bytes: number | null = null;
    try {
      bytes = statSync(this.key.path).size;
    } catch {
      /* recorded as null */
    }
    const general = (this.model.fileInfo.metadata as { general?: { name?: string; architecture?: string } }).general ?? {};
    return {
      backend: 'node-llama-cpp',
      nodeLlamaCppVersion: this.versions.nodeLlamaCpp,
      llamaCppRelease: this.llama.llamaCppRelease.release,
      buildType: this.llama.buildType,
      gpu: this.llama.gpu,
      gpuLayers: this.model.gpuLayers,
      contextSize: this.context.contextSize,
      batchSize: this.context.batchSize,
      threads: this.context.idealThreads,
      sequences: 1,
      flashAttention: this.context.flashAttention,
      model: {
        file: basename(this.key.path),
        bytes,
        name: general.name ?? null,
        architecture: general.architecture ?? null,
        trainContextSize: this.model.trainContextSize,
        parameters: this.model.fileInsights.totalParameters,
        // Quantization shifts scores by ~1e-2 nats (docs/harness.md §13.3): F32/F16 files are preferred for probes.
        dominantTensorType: tensorTypeName(this.nlc, this.model.fileInsights.dominantTensorType),
      },
    };
  }

  /** Longest common prefix of two token lists. */
  private static lcp(a: readonly number[], b: readonly number[]): number {
    const n = Math.min(a.length, b.length);
    let i = 0;
    while (i < n && a[i] === b[i]) i++;
    return i;
  }

  private checkFits(n: number, what: string): void {
    if (n > this.context.contextSize - 1) {
      throw new ContextOverflowError(
        `${what} needs ${n} tokens but the context holds ${this.context.contextSize}; raise contextSize (e.g. gguf:<path>?contextSize=${2 ** Math.ceil(Math.log2(n + 1))})`,
      );
    }
  }

  /**
   * Makes the KV cache hold exactly `target` and returns the next-token distributions at output
   * positions `from … target.length-1` (position i = the distribution of the token after
   * target[0..i]). Reuses the longest common prefix with what the cache holds; a push never
   * carries a single token or asks for a single output row. Caller holds the lock.
   */
  async distributionsFor(target: readonly Token[], from: number): Promise<Array<Map<Token, number>>> {
    this.checkFits(target.length, 'this evaluation');
    if (from > target.length - 1) {
      // Nothing to compute: just align the cache with the longest prefix it shares with `target`.
      await this.sequence.adaptStateToTokens(target.slice(0, Math.min(target.length, this.sequence.nextTokenIndex)) as Token[], false);
      return [];
    }
    const keep = keepForPush(target.length, Math.min(GgufRuntime.lcp(this.heldTokens(), target), from));
    await this.sequence.adaptStateToTokens(target.slice(0, keep) as Token[], false);
    const kept = this.sequence.nextTokenIndex;
    if (kept > keep) throw new Error(`internal: KV cache kept ${kept} tokens, expected at most ${keep}`);
    const push = target.slice(kept);
    const outFrom = outputsFrom(target.length, from, kept);
    const input: ControlledEvaluateInputItem[] = push.map((t, i) => outputItem(t, kept + i, from, outFrom));
    const res = await this.sequence.controlledEvaluate(input);
    this.stats.forwardTokens += push.length;
    this.stats.forwardCalls += 1;
    const out: Array<Map<Token, number>> = [];
    for (let i = from; i < target.length; i++) {
      const probs = res[i - kept]?.next.probabilities;
      if (!probs) throw new NumericGuardError(`no next-token distribution returned at position ${i}; refusing to record scores`);
      checkDistribution(probs, `position ${i}`);
      out.push(probs);
    }
    return out;
  }

  /** Distribution after `context`; the one for the most recent context is kept (it depends on the tokens only). */
  private async contextDistribution(context: readonly Token[]): Promise<Map<Token, number>> {
    if (context.length === 0) throw new UserError('cannot score after an empty context (render a prompt first)');
    const root = this.root;
    if (root && root.tokens.length === context.length && GgufRuntime.lcp(root.tokens, context) === context.length) {
      return root.probs;
    }
    const [probs] = await this.distributionsFor(context, context.length - 1);
    this.root = { tokens: [...context], probs };
    return probs;
  }

  /**
   * Teacher-forced scores of several continuations after one context (docs/harness.md §3.4, §3.7).
   * Continuations are visited in lexicographic token order, so each shared prefix is pushed once
   * (a depth-first walk of their trie); results come back in the input order. Caller holds the lock.
   */
  async scoreTokens(context: readonly Token[], candidates: ReadonlyArray<readonly Token[]>): Promise<TokenScore[]> {
    const longest = Math.max(0, ...candidates.map((c) => c.length));
    this.checkFits(context.length + longest, 'scoring this context and continuation');
    const order = candidates.map((_, i) => i).sort((a, b) => compareTokens(candidates[a], candidates[b]));
    // For each trie node (a continuation prefix), the next tokens some candidate needs there.
    const needed = new Map<string, Set<number>>();
    for (const c of candidates) {
      for (let d = 0; d < c.length; d++) {
        const key = c.slice(0, d).join(',');
        let s = needed.get(key);
        if (!s) needed.set(key, (s = new Set()));
        s.add(c[d]);
      }
    }
    // Per computed node: probabilities of the needed tokens and the argmax token.
    const memo = new Map<string, { probs: Map<number, number>; argmax: number }>();
    const remember = (key: string, dist: Map<Token, number>) => {
      const want = needed.get(key);
      const probs = new Map<number, number>();
      if (want) for (const t of want) probs.set(t, dist.get(t as Token) ?? 0);
      const argmax = dist.keys().next().value as number;
      memo.set(key, { probs, argmax });
    };

    const results: TokenScore[] = new Array(candidates.length);
    for (const idx of order) {
      const cand = candidates[idx];
      this.stats.naiveTokens += context.length + cand.length;
      this.stats.nScored += 1;
      if (cand.length === 0) {
        results[idx] = { logprob: 0, tokenLogprobs: [], tokens: 0, nArgmaxMatch: 0, isGreedy: false, underflowClamps: 0 };
        continue;
      }
      if (!memo.has('')) remember('', await this.contextDistribution(context));
      // First depth whose distribution is not known yet.
      let a = 0;
      while (a < cand.length && memo.has(cand.slice(0, a).join(','))) a++;
      if (a < cand.length) {
        const target = [...context, ...cand.slice(0, cand.length - 1)] as Token[];
        const dists = await this.distributionsFor(target, context.length - 1 + a);
        dists.forEach((dist, j) => remember(cand.slice(0, a + j).join(','), dist));
      }
      const tokenLogprobs: number[] = [];
      let nArgmaxMatch = 0;
      let clamps = 0;
      for (let d = 0; d < cand.length; d++) {
        const node = memo.get(cand.slice(0, d).join(','))!;
        const { logprob, clamped } = probabilityToLogprob(node.probs.get(cand[d]), `continuation token ${d}`);
        if (clamped) clamps++;
        tokenLogprobs.push(logprob);
        if (node.argmax === cand[d]) nArgmaxMatch++;
      }
      this.stats.underflowClamps += clamps;
      results[idx] = {
        logprob: tokenLogprobs.reduce((s, x) => s + x, 0),
        tokenLogprobs,
        tokens: cand.length,
        nArgmaxMatch,
        isGreedy: nArgmaxMatch === cand.length,
        underflowClamps: clamps,
      };
    }
    return results;
  }

  /**
   * Reference scorer: empties the KV cache and pushes context + continuation in one call (no
   * reuse, no caches). Used by verifyScoring; does not touch the counters. Caller holds the lock.
   */
  async scoreFresh(context: readonly Token[], continuation: readonly Token[]): Promise<number> {
    if (continuation.length === 0) return 0;
    this.checkFits(context.length + continuation.length, 'scoring this context and continuation');
    await this.sequence.clearHistory();
    const all = [...context, ...continuation.slice(0, -1)] as Token[];
    const first = context.length - 1;
    const outFrom = outputsFrom(all.length, first, 0);
    const res = await this.sequence.controlledEvaluate(all.map((t, i) => outputItem(t, i, first, outFrom)));
    let total = 0;
    for (let j = 0; j < continuation.length; j++) {
      const probs = res[first + j]?.next.probabilities;
      if (!probs) throw new NumericGuardError(`no next-token distribution returned at position ${first + j}`);
      total += probabilityToLogprob(probs.get(continuation[j] as Token), `continuation token ${j}`).logprob;
    }
    return total;
  }

  /**
   * Decodes after `prompt`: greedy when temperature is 0, otherwise seeded sampling. Bans are
   * applied before every sampled token through node-llama-cpp's per-step tokenBias function.
   * Caller holds the lock.
   */
  async generateTokens(prompt: readonly Token[], o: GenerateTokensOptions): Promise<GenerateTokensResult> {
    if (prompt.length === 0) throw new UserError('cannot generate after an empty prompt');
    this.checkFits(prompt.length + o.maxTokens, `generating ${o.maxTokens} tokens after this prompt`);
    if (o.maxTokens <= 0)
      return { tokens: [], finishReason: 'length', stopToken: null, nBannedMasked: 0, nEndsMasked: 0, promptTokensEvaluated: 0 };
    const keep = keepForPush(prompt.length, Math.min(GgufRuntime.lcp(this.heldTokens(), prompt), prompt.length - 1));
    await this.sequence.adaptStateToTokens(prompt.slice(0, keep) as Token[], false);
    const remainder = prompt.slice(this.sequence.nextTokenIndex) as Token[];

    const generated: number[] = [];
    const banned = o.banned ?? [];
    const answers = o.bannedAnswers ?? new Set<string>();
    const ends = answers.size ? [...this.endOfGenerationTokens(), ...(o.stopTokens ?? [])] : [];
    let nBannedMasked = 0;
    let nEndsMasked = 0;
    let lastBiasStep = -1;
    const nlc = this.nlc;
    const model = this.model;
    const tokenBias =
      banned.length || answers.size
        ? () => {
            const { tokens, applications } = bannedNextTokens(banned, generated);
            const endMasked = endBanned(answers, answers.size ? model.detokenize(generated as Token[], false) : '');
            // Count once per decoding step even if the sampler asks twice.
            if (lastBiasStep !== generated.length) {
              nBannedMasked += applications;
              if (endMasked) nEndsMasked++;
              lastBiasStep = generated.length;
            }
            const bias = new nlc.TokenBias(model.tokenizer);
            for (const t of tokens) bias.set(t as Token, 'never');
            if (endMasked) for (const t of ends) maskToken(bias, t);
            return bias;
          }
        : undefined;

    let finishReason: 'stop' | 'length' = 'length';
    let stopToken: number | null = null;
    let yields = 0;
    const it = this.sequence.evaluate(remainder, {
      temperature: o.temperature,
      seed: o.seed,
      topK: o.topK,
      topP: o.topP,
      minP: o.minP,
      tokenBias,
      yieldEogToken: true,
    });
    for await (const t of it) {
      yields++;
      if (o.signal?.aborted) throw o.signal.reason ?? new Error('aborted');
      if (this.model.isEogToken(t) || o.stopTokens?.has(t)) {
        finishReason = 'stop';
        stopToken = t;
        break;
      }
      generated.push(t);
      if (generated.length >= o.maxTokens) break;
    }
    if (yields === 0) finishReason = 'stop';
    const evaluated = remainder.length + Math.max(0, yields - 1);
    this.stats.forwardTokens += evaluated;
    this.stats.forwardCalls += Math.max(1, yields);
    this.stats.generatedTokens += generated.length;
    this.stats.promptTokens += prompt.length;
    this.stats.nBannedMasked += nBannedMasked;
    this.stats.nEndsMasked += nEndsMasked;
    return { tokens: generated, finishReason, stopToken, nBannedMasked, nEndsMasked, promptTokensEvaluated: remainder.length };
  }

  private eogTokens: number[] | null = null;

  /** Every end-of-generation token of the vocabulary (EOS, EOT, <|im_end|>, …), found once per runtime. */
  endOfGenerationTokens(): readonly number[] {
    if (!this.eogTokens) {
      this.eogTokens = [];
      for (const t of this.model.iterateAllTokens()) if (this.model.isEogToken(t)) this.eogTokens.push(t);
    }
    return this.eogTokens;
  }
}

/**
 * Masks one token in a TokenBias, end-of-generation tokens included. `TokenBias.set` silently skips
 * EOG tokens (node-llama-cpp 3.21), but the sampler applies whatever the bias map holds, so the
 * complete-answer ban writes the map itself; a version without that map is refused, never ignored.
 */
function maskToken(bias: object, token: number): void {
  const map = (bias as { _biases?: unknown })._biases;
  if (!(map instanceof Map))
    throw new UserError(
      'this node-llama-cpp version gives no way to mask end-of-generation tokens, which a complete-answer ban needs (revloop pins node-llama-cpp 3.21)',
    );
  map.set(token, -Infinity);
}

function tensorTypeName(nlc: NodeLlamaCpp, t: number | undefined): string | null {
  if (t === undefined) return null;
  return (nlc.GgmlType as unknown as Record<number, string>)[t] ?? String(t);
}

/** Lexicographic order of token lists (a prefix sorts before its extensions). */
function compareTokens(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
