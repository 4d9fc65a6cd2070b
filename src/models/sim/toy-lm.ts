// The simulators' toy "language model": a reversible toy tokenizer, a toy chat template, toy
// log-probabilities and the bad-words ban, so that scoring and bans (the vLLM extensions) can be
// exercised end to end without weights. None of these numbers means anything about a real model.
//
// Tokenizer: text is cut into pieces (an optional single space plus a run of letters/digits/marks/_,
// an optional space plus one other non-space character, or a run of whitespace), and each piece into
// chunks of at most 6 UTF-8 bytes on character boundaries (about 1.5 tokens per English word). A
// chunk's id is 256^len + its bytes read big-endian (below 2^49, a safe integer), so ids are
// reversible without a vocabulary file. Ids 1–6 are special tokens.
//
// Chat template: every message renders as `<|role|>\n{content}<|end|>\n`; the generation prompt is
// `<|assistant|>\n`; with continue_final_message the last message is left open (no `<|end|>\n`).
//
// Log-probabilities: at each position the "greedy" token is the one that followed the most recent
// earlier occurrence of the previous token (an induction/copy rule), or "." when there is none. The
// greedy token scores −0.25 (rank 1); any other token t scores −(1.5 + 4·u) + (1 if t already occurs
// in the context), with u ∈ [0, 1) a hash of (previous token, t). Scores are ≤ −0.25, finite and
// deterministic, and copying from the context raises them: enough to exercise a probe pipeline.

import { endBanned } from '../ban.ts';

export const SPECIAL_TOKENS: Record<string, number> = {
  '<s>': 1,
  '</s>': 2,
  '<|user|>': 3,
  '<|assistant|>': 4,
  '<|system|>': 5,
  '<|end|>': 6,
};
const SPECIAL_BY_ID = new Map(Object.entries(SPECIAL_TOKENS).map(([k, v]) => [v, k]));
const BOS_ID = 1;

const PIECE = / ?[\p{L}\p{M}\p{N}_]+| ?[^\s\p{L}\p{M}\p{N}_]|\s+/gu;
const SPECIAL_SPLIT = /(<s>|<\/s>|<\|user\|>|<\|assistant\|>|<\|system\|>|<\|end\|>)/;
const MAX_CHUNK_BYTES = 6;
const decoder = new TextDecoder();

/** UTF-8 bytes of one code point, appended to `out` (written out by hand: TextEncoder per character is slow). */
function utf8(cp: number, out: number[]): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
}

function chunkId(bytes: number[], from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) v = v * 256 + bytes[i];
  return 256 ** (to - from) + v;
}

const scratch: number[] = [];

function pieceIds(piece: string, out: number[]): void {
  // Cut the piece's bytes into chunks of at most MAX_CHUNK_BYTES, never inside a character.
  scratch.length = 0;
  let start = 0;
  for (let i = 0; i < piece.length; i++) {
    const cp = piece.codePointAt(i)!;
    if (cp > 0xffff) i++;
    const before = scratch.length;
    utf8(cp, scratch);
    if (scratch.length - start > MAX_CHUNK_BYTES) {
      out.push(chunkId(scratch, start, before));
      start = before;
    }
  }
  if (scratch.length > start) out.push(chunkId(scratch, start, scratch.length));
}

/** Token ids of `text`. With `special`, marker strings such as `<|end|>` become their special ids. */
export function toyTokenize(text: string, opts: { special?: boolean; addBos?: boolean } = {}): number[] {
  const out: number[] = opts.addBos ? [BOS_ID] : [];
  const parts = opts.special ? text.split(SPECIAL_SPLIT) : [text];
  for (const part of parts) {
    if (!part) continue;
    if (opts.special && part in SPECIAL_TOKENS) {
      out.push(SPECIAL_TOKENS[part]);
      continue;
    }
    for (const m of part.matchAll(PIECE)) pieceIds(m[0], out);
  }
  return out;
}

/** The bytes of one token id (empty for special and unknown ids). */
function idBytes(id: number): number[] {
  if (!Number.isSafeInteger(id) || id < 256) return [];
  let len = 1;
  while (256 ** (len + 1) <= id) len++;
  let v = id - 256 ** len;
  const bytes: number[] = [];
  for (let i = 0; i < len; i++) {
    bytes.unshift(v % 256);
    v = Math.floor(v / 256);
  }
  return bytes;
}

export function toyDecodeToken(id: number): string {
  return SPECIAL_BY_ID.get(id) ?? decoder.decode(Uint8Array.from(idBytes(id)));
}

export function toyDetokenize(ids: number[], opts: { skipSpecial?: boolean } = {}): string {
  let bytes: number[] = [];
  let out = '';
  for (const id of ids) {
    const special = SPECIAL_BY_ID.get(id);
    if (special !== undefined) {
      out += decoder.decode(Uint8Array.from(bytes));
      bytes = [];
      if (!opts.skipSpecial) out += special;
    } else bytes.push(...idBytes(id));
  }
  return out + decoder.decode(Uint8Array.from(bytes));
}

interface ToyChatOptions {
  addGenerationPrompt?: boolean;
  continueFinalMessage?: boolean;
}

/** Renders messages with the toy chat template. */
export function toyRenderChat(messages: ReadonlyArray<{ role: string; content: string }>, opts: ToyChatOptions = {}): string {
  let s = '';
  messages.forEach((m, i) => {
    const open = opts.continueFinalMessage && i === messages.length - 1;
    s += `<|${m.role}|>\n${m.content}${open ? '' : '<|end|>\n'}`;
  });
  if (opts.addGenerationPrompt && !opts.continueFinalMessage) s += '<|assistant|>\n';
  return s;
}

const DOT_ID = toyTokenize('.')[0];

function hashUnit(a: number, b: number): number {
  // FNV-1a over the decimal forms: stable across processes and platforms.
  let h = 0x811c9dc5;
  const s = `${a}|${b}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) / 0x1_0000_0000;
}

interface ToyPosition {
  token: number;
  logprob: number;
  rank: number;
  greedy: number;
  greedyLogprob: number;
}

/**
 * Toy log-probabilities of ids[from..] given everything before each position (teacher forcing).
 * Position i (i ≥ 1) is predicted from ids[0..i-1]; `from` must be ≥ 1.
 */
export function toyPromptLogprobs(ids: number[], from = 1): ToyPosition[] {
  const lastSeen = new Map<number, number>();
  const seen = new Set<number>();
  const out: ToyPosition[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i >= Math.max(1, from)) {
      const prev = ids[i - 1];
      const earlier = lastSeen.get(prev);
      const greedy = earlier !== undefined && earlier + 1 < i ? ids[earlier + 1] : DOT_ID;
      const t = ids[i];
      const logprob = t === greedy ? -0.25 : -(1.5 + 4 * hashUnit(prev, t)) + (seen.has(t) ? 1 : 0);
      const rank = t === greedy ? 1 : 2 + Math.floor((-logprob - 0.25) * 100);
      out.push({ token: t, logprob, rank, greedy, greedyLogprob: -0.25 });
    }
    // Record position i-1 → i only after predicting i, so the copy rule never peeks at itself.
    if (i >= 1) lastSeen.set(ids[i - 1], i - 1);
    seen.add(ids[i]);
  }
  return out;
}

/** Token sequences a bad word bans: the word and " " + word, as vLLM builds them (deduplicated). */
export function banSequences(words: string[]): number[][] {
  const out: number[][] = [];
  const keys = new Set<string>();
  for (const w of words) {
    for (const v of [w, ' ' + w]) {
      const ids = toyTokenize(v);
      const key = ids.join(',');
      if (ids.length && !keys.has(key)) {
        keys.add(key);
        out.push(ids);
      }
    }
  }
  return out;
}

/** Replacement tokens tried in order after the case-swapped chunk. */
const FALLBACKS = ['_', '~', '#', '^'].map((c) => toyTokenize(c)[0]);

function swapCase(s: string): string {
  return [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

/**
 * Applies the bad-words rule to generated ids: at each step, a banned sequence whose prefix equals
 * the tail of the tokens generated so far has its last token masked (single-token sequences are
 * masked everywhere). The toy's replacement for a masked token is the same chunk with its case
 * swapped, else the first of "_", "~", "#", "^" that is not banned there. Returns the new ids and the mask count.
 */
export function applyBan(ids: number[], banned: number[][]): { ids: number[]; masked: number } {
  const out: number[] = [];
  let masked = 0;
  for (const original of ids) {
    let t = original;
    const blocked = (cand: number) =>
      banned.some((s) => {
        const L = s.length;
        if (s[L - 1] !== cand || out.length < L - 1) return false;
        for (let k = 0; k < L - 1; k++) if (out[out.length - (L - 1) + k] !== s[k]) return false;
        return true;
      });
    if (blocked(t)) {
      masked++;
      const swapped = toyTokenize(swapCase(toyDecodeToken(t)));
      const candidates = [...(swapped.length === 1 && swapped[0] !== t ? swapped : []), ...FALLBACKS];
      t = candidates.find((c) => !blocked(c)) ?? FALLBACKS[FALLBACKS.length - 1];
    }
    out.push(t);
  }
  return { ids: out, masked };
}

/** What the toy writes when its end is masked: ")", else "#", else "'" (the first not banned there). */
const END_FALLBACKS = [')', '#', "'"].map((c) => toyTokenize(c)[0]);

/**
 * The complete-answer ban on the toy (src/models/ban.ts): while the answer so far, stripped, is a
 * banned answer, the end of the answer is masked, and the toy writes one more token, ")" (else "#",
 * else "'", the first not banned there), then tries to end again. A complete repeat of a failed
 * draft therefore ends as the draft followed by ")" (or "))" if that was a failed draft too).
 * ")" was chosen because no revloop verifier's state changes with it (not a word for the
 * exact-length counter, a separate punctuation token the COLLIE counters drop, no sentence break;
 * checked on every demo case and on 6,979 simulated drafts): the forced continuation changes the
 * text, not the verdict, so the simulation credits the ban with no lucky fix. (`applyBan`'s first
 * fallback "_" is a word character: appended, it adds one word, which fixes a draft one word short;
 * "~" sticks to the last word in NLTK's tokenizer.) The toy stops at `maxTokens` (negative: no
 * limit), with `exhausted` set if the end was still banned there.
 */
export function applyAnswerBan(
  ids: number[],
  answers: ReadonlySet<string>,
  maxTokens: number,
  banned: number[][] = [],
): { ids: number[]; masked: number; exhausted: boolean } {
  const out = [...ids];
  let masked = 0;
  while (endBanned(answers, toyDetokenize(out))) {
    if (maxTokens >= 0 && out.length >= maxTokens) return { ids: out, masked, exhausted: true };
    masked++;
    const blocked = (cand: number) =>
      banned.some(
        (s) =>
          s[s.length - 1] === cand &&
          s.length - 1 <= out.length &&
          s.slice(0, -1).every((t, k) => out[out.length - (s.length - 1) + k] === t),
      );
    out.push(END_FALLBACKS.find((c) => !blocked(c)) ?? END_FALLBACKS[END_FALLBACKS.length - 1]);
  }
  return { ids: out, masked, exhausted: false };
}
