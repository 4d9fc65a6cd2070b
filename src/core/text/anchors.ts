// Anchor ("required content item") matching as the reference's `contains_literal` does it
// (docs/protocol.md §6.2): the anchor's word-pattern tokens, escaped, joined by Python `\s+`,
// not preceded or followed by a `\w`, matched with Python's `re.IGNORECASE`.
//
// Python's IGNORECASE is not JavaScript's `i` flag: sre compares simple lower-case mappings plus a
// few extra equivalences (re._casefix: i/ı, s/ſ, µ/μ, …), while JS `iu` uses simple case folding.
// So we compile without `i` and expand each cased anchor character into the explicit class of
// characters Python treats as equal (see pyCaselessLiteral). "ß" never matches "SS" in either
// engine, because both compare one character at a time.
//
// The "not preceded / not followed by \w" conditions are checked by hand around each candidate
// match (anchorPresent, with chars.ts's table) rather than as `\p{…}` lookarounds
// (docs/performance.md#regular-expressions), with the same result: at a given start the tokens are
// literals separated by greedy whitespace runs, so each start position has at most one possible
// match end, and candidates are tried at every start in order.
//
// A pattern is compiled on its first use, which costs far more than a search (a batch of real model
// outputs meets thousands of distinct anchors about twice each). An anchor whose tokens are ASCII is
// therefore first looked for in the lower-cased text (quickReject): if a token is not there, the
// anchor is absent and its pattern is never compiled. The test is exact only as a necessary
// condition: under Python's IGNORECASE an ASCII letter equals its other case and, for i, k and s,
// also İ, ı, K (Kelvin) and ſ, which lower-case to something else; so a text holding one of those four
// skips the quick test.
import { bmpWordTable, wordCharBefore, wordCharLength } from './chars.ts';
import { pyCaselessLiteral, S } from '../py/re.ts';
import { wordMatches } from './words.ts';

const anchorCache = new Map<string, RegExp | null>();
const ANCHOR_CACHE_LIMIT = 65536;
/** Per anchor: its tokens lower-cased when every one is ASCII, else null (no quick test). */
const asciiTokenCache = new Map<string, string[] | null>();

/** Non-ASCII characters equal to an ASCII letter under Python's IGNORECASE (İ ı ſ K). */
const ASCII_TWINS = /[\u0130\u0131\u017f\u212a]/;

/**
 * The text as quickReject needs it: lower-cased, or null when it holds a character that equals an
 * ASCII letter without being one (the quick test would not be exact). Compute once per text.
 */
export function anchorSearchText(text: string): string | null {
  return ASCII_TWINS.test(text) ? null : text.toLowerCase();
}

function asciiTokens(anchor: string): string[] | null {
  let hit = asciiTokenCache.get(anchor);
  if (hit === undefined) {
    const tokens = wordMatches(anchor);
    hit = tokens.every((t) => /^[\x00-\x7f]*$/.test(t)) ? tokens.map((t) => t.toLowerCase()) : null;
    if (asciiTokenCache.size >= ANCHOR_CACHE_LIMIT) asciiTokenCache.delete(asciiTokenCache.keys().next().value as string);
    asciiTokenCache.set(anchor, hit);
  }
  return hit;
}

/** True when the anchor certainly does not occur: one of its ASCII tokens is not in the lower-cased text. */
function quickReject(anchor: string, lowered: string): boolean {
  const tokens = asciiTokens(anchor);
  if (tokens === null) return false;
  for (const t of tokens) if (!lowered.includes(t)) return true;
  return false;
}

/**
 * The compiled matcher for an anchor's token sequence (global, no boundary conditions), or null when
 * the anchor has no word tokens (never matches). Use anchorPresent for the reference semantics.
 */
export function anchorRegExp(anchor: string): RegExp | null {
  const hit = anchorCache.get(anchor);
  if (hit !== undefined) return hit;
  const tokens = wordMatches(anchor);
  const re = tokens.length ? new RegExp(tokens.map(pyCaselessLiteral).join(`${S}+`), 'gu') : null;
  // Evict the oldest entry rather than clearing, so a working set larger than the cache degrades gently.
  if (anchorCache.size >= ANCHOR_CACHE_LIMIT) anchorCache.delete(anchorCache.keys().next().value as string);
  anchorCache.set(anchor, re);
  return re;
}

/**
 * Whether `text` contains the anchor (reference `contains_literal(text, anchor)`). `searchText` is
 * anchorSearchText(text), when the caller checks several anchors against one text.
 */
export function anchorPresent(anchor: string, text: string, searchText: string | null = null): boolean {
  if (searchText !== null && quickReject(anchor, searchText)) return false;
  const re = anchorRegExp(anchor);
  if (re === null) return false;
  const word = bmpWordTable();
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const end = m.index + m[0].length;
    if (!wordCharBefore(text, m.index, word) && wordCharLength(text, end, word) === 0) return true;
    // Retry from the next start position (code point), as a regex search would.
    re.lastIndex = m.index + (text.codePointAt(m.index)! > 0xffff ? 2 : 1);
  }
  return false;
}

/** The anchors `text` lacks, in the given order (an anchor without word tokens is always missing). */
export function missingAnchors(anchors: readonly string[], text: string): string[] {
  const searchText = anchors.length > 0 ? anchorSearchText(text) : null;
  return anchors.filter((a) => !anchorPresent(a, text, searchText));
}
