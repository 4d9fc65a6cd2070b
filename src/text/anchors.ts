// Anchor ("required content item") matching as the reference's `contains_literal` does it
// (PROTOCOL.md §6, pitfall 2): the anchor's word-pattern tokens, escaped, joined by Python `\s+`,
// not preceded or followed by a `\w`, matched with Python's `re.IGNORECASE`.
//
// Python's IGNORECASE is not JavaScript's `i` flag: sre compares simple lower-case mappings plus a
// few extra equivalences (re._casefix: i/ı, s/ſ, µ/μ, …), while JS `iu` uses simple case folding.
// anchorRegExp therefore expands each cased anchor character into the explicit class of characters
// Python treats as equal (pyCaselessLiteral); "ß" never matches "SS" in either engine, because both
// compare one character at a time.
//
// anchorPresent does not run that regex: it folds each character to its IGNORECASE representative
// (chars.ts) and scans. At a given start the tokens are literals separated by greedy whitespace runs,
// and a token starts with a `\w` character, which no whitespace equals, so each start has at most
// one possible match end; a regex search tries the starts in order, and so does the scanner. The
// compiled form of an anchor (its folded tokens) is cached, so a case's anchors are prepared once,
// not once per text; test/text/words.test.ts checks the scanner against Python and the regex.
import { isPySpaceCode } from '../util/python.ts';
import { bmpFoldTable, bmpWordTable, foldAstral, foldString, wordCharBefore, wordCharLength } from './chars.ts';
import { pyCaselessLiteral, S } from './pyre.ts';
import { wordMatches } from './words.ts';

const regexCache = new Map<string, RegExp | null>();
const foldedCache = new Map<string, readonly string[] | null>();
const ANCHOR_CACHE_LIMIT = 65536;

/** Caches with oldest-first eviction, so a working set larger than the cache degrades gently. */
function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  if (cache.size >= ANCHOR_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

/**
 * The compiled matcher for an anchor's token sequence (global, no boundary conditions), or null when
 * the anchor has no word tokens (never matches). Use anchorPresent for the reference semantics.
 */
export function anchorRegExp(anchor: string): RegExp | null {
  const hit = regexCache.get(anchor);
  if (hit !== undefined) return hit;
  const tokens = wordMatches(anchor);
  return remember(regexCache, anchor, tokens.length ? new RegExp(tokens.map(pyCaselessLiteral).join(`${S}+`), 'gu') : null);
}

/** The anchor's word tokens, each folded to IGNORECASE representatives; null when it has none. */
function foldedTokens(anchor: string): readonly string[] | null {
  const hit = foldedCache.get(anchor);
  if (hit !== undefined) return hit;
  const tokens = wordMatches(anchor);
  return remember(foldedCache, anchor, tokens.length ? tokens.map(foldString) : null);
}

/** End of `token` (folded) matched case-insensitively at text[j], or -1. */
function matchFolded(text: string, j: number, token: string, fold: Uint16Array): number {
  const n = text.length;
  const m = token.length;
  let k = 0;
  while (k < m) {
    if (j >= n) return -1;
    const c = text.charCodeAt(j);
    if (c >= 0xd800 && c <= 0xdbff && j + 1 < n) {
      const d = text.charCodeAt(j + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        if (token.codePointAt(k) !== foldAstral(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000)) return -1;
        j += 2;
        k += 2;
        continue;
      }
    }
    if (fold[c] !== token.charCodeAt(k)) return -1;
    j++;
    k++;
  }
  return j;
}

/** Whether `text` contains the anchor (reference `contains_literal(text, anchor)`). */
export function anchorPresent(anchor: string, text: string): boolean {
  const tokens = foldedTokens(anchor);
  if (tokens === null) return false;
  const fold = bmpFoldTable();
  const word = bmpWordTable();
  const first = tokens[0];
  // A BMP first character is compared before anything else; an astral one goes to matchFolded.
  const head = first.charCodeAt(0) < 0xd800 || first.charCodeAt(0) > 0xdfff ? first.charCodeAt(0) : -1;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (head >= 0 && fold[text.charCodeAt(i)] !== head) continue;
    let j = matchFolded(text, i, first, fold);
    if (j < 0 || wordCharBefore(text, i, word)) continue;
    for (let t = 1; t < tokens.length && j >= 0; t++) {
      const gap = j;
      while (j < n && isPySpaceCode(text.charCodeAt(j))) j++;
      j = j === gap ? -1 : matchFolded(text, j, tokens[t], fold);
    }
    if (j >= 0 && wordCharLength(text, j, word) === 0) return true;
  }
  return false;
}

/** The anchors `text` lacks, in the given order (an anchor without word tokens is always missing). */
export function missingAnchors(anchors: readonly string[], text: string): string[] {
  return anchors.filter((a) => !anchorPresent(a, text));
}
