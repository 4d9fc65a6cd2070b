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
// Speed: V8 compiles a `\p{…}` lookaround in ~150 µs, so the "not preceded / not followed by \w"
// conditions are checked by hand around each candidate match instead (anchorPresent, with chars.ts's
// table), with the same result: at a given start the tokens are literals separated by greedy
// whitespace runs, so each start position has at most one possible match end, and candidates are
// tried at every start in order. (A regex-free scanner over case-folded text was tried and measured
// slower than V8's compiled literal search, cold and warm: bench/verify.ts.)
import { bmpWordTable, wordCharBefore, wordCharLength } from './chars.ts';
import { pyCaselessLiteral, S } from '../py/re.ts';
import { wordMatches } from './words.ts';

const anchorCache = new Map<string, RegExp | null>();
const ANCHOR_CACHE_LIMIT = 65536;

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

/** Whether `text` contains the anchor (reference `contains_literal(text, anchor)`). */
export function anchorPresent(anchor: string, text: string): boolean {
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
  return anchors.filter((a) => !anchorPresent(a, text));
}
