// The project's tiny random-weight test model: a llama-architecture GGUF (F32, 2 blocks, embedding
// 64, grouped-query attention) with a small SentencePiece vocabulary (byte tokens <0xNN>, printable
// ASCII, a few word pieces, ChatML control tokens) and a ChatML-like Jinja chat template. It is
// generated deterministically from a seed at test time (never committed, never downloaded); its
// outputs are meaningless text, but loading, templating, generation, scoring and bans all run
// through the real llama.cpp code paths.
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../core/util/hash.ts';
import { REFERENCE_SEED } from '../core/reference-seed.ts';
import { serializeGguf, type GgufTensor, type GgufValue } from '../models/gguf/gguf-writer.ts';

/**
 * ChatML-like template. It emits BOS itself (so BOS handling is exercised: the rendered text is
 * tokenized with special tokens on and no automatic BOS) and honours `enable_thinking` the way
 * Qwen3 templates do (an empty think block in the generation prompt when thinking is off).
 */
export const TINY_CHAT_TEMPLATE =
  "{{ bos_token }}{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% if enable_thinking is defined and enable_thinking is false %}{{ '<think>\\n\\n</think>\\n\\n' }}{% endif %}{% endif %}";

/** Options of the tiny random-weight test model (default: the project's, the reference's seed). */
export interface TinyModelOptions {
  /** Seed of the weight generator (default REFERENCE_SEED). */
  seed?: number;
  embedding?: number;
  layers?: number;
  heads?: number;
  kvHeads?: number;
  feedForward?: number;
  contextLength?: number;
  /** Jinja chat template stored as `tokenizer.chat_template`; null stores none. */
  chatTemplate?: string | null;
  /** Standard deviation of the output projection: larger = more peaked next-token distributions. */
  outputScale?: number;
}

const DEFAULTS = {
  seed: REFERENCE_SEED,
  embedding: 64,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  feedForward: 128,
  contextLength: 2048,
  outputScale: 0.35,
};

// SentencePiece token types (llama.cpp LLAMA_TOKEN_TYPE_*).
const TYPE_NORMAL = 1;
const TYPE_UNKNOWN = 2;
const TYPE_CONTROL = 3;
const TYPE_BYTE = 6;
const SPACE = '\u2581'; // SentencePiece's visible space

// Word pieces so that ordinary English text tokenizes into multi-character tokens. Every prefix of
// every piece is added too, because SentencePiece merges only pairs of existing symbols.
const WORDS = [
  'the',
  'and',
  'to',
  'of',
  'in',
  'is',
  'it',
  'that',
  'for',
  'on',
  'with',
  'as',
  'was',
  'at',
  'be',
  'this',
  'have',
  'from',
  'or',
  'by',
  'not',
  'are',
  'but',
  'call',
  'file',
  'read',
  'write',
  'tool',
  'error',
  'name',
  'note',
  'draft',
  'text',
  'word',
  'quiet',
  'period',
  'revise',
  'model',
  'failed',
];

interface TinyVocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
  bos: number;
  eos: number;
  unk: number;
  imStart: number;
  imEnd: number;
}

/** The tiny model's vocabulary (deterministic, no randomness). */
export function tinyVocabulary(): TinyVocabulary {
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const seen = new Set<string>();
  const add = (piece: string, score: number, type: number): number => {
    if (seen.has(piece)) return tokens.indexOf(piece);
    seen.add(piece);
    tokens.push(piece);
    scores.push(score);
    types.push(type);
    return tokens.length - 1;
  };
  const unk = add('<unk>', 0, TYPE_UNKNOWN);
  const bos = add('<s>', 0, TYPE_CONTROL);
  const eos = add('</s>', 0, TYPE_CONTROL);
  const imStart = add('<|im_start|>', 0, TYPE_CONTROL);
  const imEnd = add('<|im_end|>', 0, TYPE_CONTROL);
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, 0, TYPE_BYTE);
  // Single characters: the space symbol and printable ASCII (space itself is the ▁ symbol).
  add(SPACE, -1, TYPE_NORMAL);
  for (let c = 0x21; c <= 0x7e; c++) add(String.fromCharCode(c), -1, TYPE_NORMAL);
  // Longer pieces score higher, so SentencePiece prefers them (it merges the best-scoring pair first).
  for (const w of WORDS) {
    for (const form of [w, SPACE + w]) {
      for (let n = 2; n <= form.length; n++) add(form.slice(0, n), n, TYPE_NORMAL);
    }
  }
  return { tokens, scores, types, bos, eos, unk, imStart, imEnd };
}

/** mulberry32: a tiny, fast, seedable 32-bit generator (deterministic across platforms). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Uniform values with the given standard deviation (uniform on [-a, a] has sd a/sqrt(3)). */
function randomTensor(rand: () => number, count: number, sd: number): Float32Array {
  const a = sd * Math.sqrt(3);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (rand() * 2 - 1) * a;
  return out;
}

/** Builds the tiny model's GGUF bytes. Same options → byte-identical output. */
export function buildTinyLlamaGguf(options: TinyModelOptions = {}): Uint8Array {
  const o = { ...DEFAULTS, ...options };
  const template = options.chatTemplate === undefined ? TINY_CHAT_TEMPLATE : options.chatTemplate;
  if (o.embedding % o.heads !== 0) throw new Error('embedding must be a multiple of heads');
  if (o.heads % o.kvHeads !== 0) throw new Error('heads must be a multiple of kvHeads');
  const vocab = tinyVocabulary();
  const nVocab = vocab.tokens.length;
  const headDim = o.embedding / o.heads;
  const kvDim = headDim * o.kvHeads;
  const rand = mulberry32(o.seed);

  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'revloop-tiny-random' }],
    ['general.description', { type: 'string', value: `random weights for tests, seed ${o.seed}; outputs are meaningless` }],
    ['general.alignment', { type: 'u32', value: 32 }],
    ['llama.context_length', { type: 'u32', value: o.contextLength }],
    ['llama.embedding_length', { type: 'u32', value: o.embedding }],
    ['llama.block_count', { type: 'u32', value: o.layers }],
    ['llama.feed_forward_length', { type: 'u32', value: o.feedForward }],
    ['llama.attention.head_count', { type: 'u32', value: o.heads }],
    ['llama.attention.head_count_kv', { type: 'u32', value: o.kvHeads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.rope.dimension_count', { type: 'u32', value: headDim }],
    ['llama.rope.freq_base', { type: 'f32', value: 10000 }],
    ['llama.vocab_size', { type: 'u32', value: nVocab }],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'array', itemType: 'string', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'array', itemType: 'f32', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'array', itemType: 'i32', value: vocab.types }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: vocab.bos }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: vocab.eos }],
    ['tokenizer.ggml.eot_token_id', { type: 'u32', value: vocab.imEnd }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: vocab.unk }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
    ['tokenizer.ggml.add_eos_token', { type: 'bool', value: false }],
    // Candidates are tokenized alone with no leading space (docs/harness.md §3.4), so no SPM space prefix.
    ['tokenizer.ggml.add_space_prefix', { type: 'bool', value: false }],
  ];
  if (template != null) metadata.push(['tokenizer.chat_template', { type: 'string', value: template }]);

  const ones = (n: number) => new Float32Array(n).fill(1);
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [o.embedding, nVocab], data: randomTensor(rand, o.embedding * nVocab, 1) },
  ];
  const proj = 1 / Math.sqrt(o.embedding);
  for (let l = 0; l < o.layers; l++) {
    const p = `blk.${l}.`;
    tensors.push(
      { name: p + 'attn_norm.weight', dims: [o.embedding], data: ones(o.embedding) },
      { name: p + 'attn_q.weight', dims: [o.embedding, o.embedding], data: randomTensor(rand, o.embedding * o.embedding, proj) },
      { name: p + 'attn_k.weight', dims: [o.embedding, kvDim], data: randomTensor(rand, o.embedding * kvDim, proj) },
      { name: p + 'attn_v.weight', dims: [o.embedding, kvDim], data: randomTensor(rand, o.embedding * kvDim, proj) },
      { name: p + 'attn_output.weight', dims: [o.embedding, o.embedding], data: randomTensor(rand, o.embedding * o.embedding, proj) },
      { name: p + 'ffn_norm.weight', dims: [o.embedding], data: ones(o.embedding) },
      { name: p + 'ffn_gate.weight', dims: [o.embedding, o.feedForward], data: randomTensor(rand, o.embedding * o.feedForward, proj) },
      { name: p + 'ffn_up.weight', dims: [o.embedding, o.feedForward], data: randomTensor(rand, o.embedding * o.feedForward, proj) },
      {
        name: p + 'ffn_down.weight',
        dims: [o.feedForward, o.embedding],
        data: randomTensor(rand, o.feedForward * o.embedding, 1 / Math.sqrt(o.feedForward)),
      },
    );
  }
  // Damp the output rows of byte and control tokens (except <|im_end|>), so greedy text is mostly
  // printable pieces that round-trip through the tokenizer, and an end of turn occurs now and then.
  const output = randomTensor(rand, o.embedding * nVocab, o.outputScale);
  for (let id = 0; id < nVocab; id++) {
    const damped = vocab.types[id] === TYPE_BYTE || (vocab.types[id] !== TYPE_NORMAL && id !== vocab.imEnd);
    if (damped) for (let j = 0; j < o.embedding; j++) output[id * o.embedding + j] *= 0.25;
  }
  tensors.push(
    { name: 'output_norm.weight', dims: [o.embedding], data: ones(o.embedding) },
    { name: 'output.weight', dims: [o.embedding, nVocab], data: output },
  );
  return serializeGguf(metadata, tensors);
}

/** Writes the tiny model atomically (temp file + rename); returns its path, size and SHA-256. */
export function writeTinyLlamaGguf(path: string, options: TinyModelOptions = {}): { path: string; bytes: number; sha256: string } {
  const data = buildTinyLlamaGguf(options);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
  return { path, bytes: data.length, sha256: sha256Hex(data) };
}

/** Default location for test models: the git-ignored `test/.tmp/` of this checkout. */
export const TINY_MODEL_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../test/.tmp');

/**
 * Path of the tiny random-weight test model with the given options in `dir` (default: `test/.tmp/`
 * of the checkout, or of the installed package: pass a folder of your own there), writing it if it
 * is missing or stale (content is compared, so a changed generator never leaves an old file in place).
 */
export function ensureTinyModel(options: TinyModelOptions = {}, dir = TINY_MODEL_DIR): string {
  const data = buildTinyLlamaGguf(options);
  const hash = sha256Hex(data);
  const path = join(dir, `tiny-llama-${hash.slice(0, 12)}.gguf`);
  if (existsSync(path) && sha256Hex(readFileSync(path)) === hash) return path;
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
  return path;
}
