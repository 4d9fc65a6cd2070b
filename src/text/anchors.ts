// Anchor ("required content item") matching as the reference's `contains_literal` does it
// (PROTOCOL.md §6, pitfall 2): the anchor's word-pattern tokens, escaped, joined by Python `\s+`,
// not preceded or followed by a `\w`, matched with Python's `re.IGNORECASE`.
//
// Python's IGNORECASE is not JavaScript's `i` flag: sre compares simple lower-case mappings plus a
// few extra equivalences (re._casefix: i/ı, s/ſ, µ/μ, …), while JS `iu` uses simple case folding.
// So we compile without `i` and expand each cased anchor character into the explicit class of
// characters Python treats as equal (see pyCaselessLiteral). "ß" never matches "SS" in either
// engine, because both compare one character at a time.
import { pyCaselessLiteral, S, W } from './pyre.ts';
import { wordMatches } from './words.ts';

const anchorCache = new Map<string, RegExp | null>();
const ANCHOR_CACHE_LIMIT = 4096;

/** The compiled matcher for an anchor, or null when the anchor has no word tokens (never matches). */
export function anchorRegExp(anchor: string): RegExp | null {
  const hit = anchorCache.get(anchor);
  if (hit !== undefined) return hit;
  const tokens = wordMatches(anchor);
  const re = tokens.length ? new RegExp(`(?<!${W})${tokens.map(pyCaselessLiteral).join(`${S}+`)}(?!${W})`, 'u') : null;
  if (anchorCache.size >= ANCHOR_CACHE_LIMIT) anchorCache.clear();
  anchorCache.set(anchor, re);
  return re;
}

/** Whether `text` contains the anchor (reference `contains_literal(text, anchor)`). */
export function anchorPresent(anchor: string, text: string): boolean {
  const re = anchorRegExp(anchor);
  return re !== null && re.test(text);
}

/** The anchors `text` lacks, in the given order (an anchor without word tokens is always missing). */
export function missingAnchors(anchors: readonly string[], text: string): string[] {
  return anchors.filter((a) => !anchorPresent(a, text));
}
