// The exact-length word counter: the matches of the Python `re` pattern `\b\w+(?:[-']\w+)*\b` on a
// `str`, as the reference's `word_count` computes them (PROTOCOL.md §6, pitfall 1).
//
// Python's `\w` for str patterns is `[\p{L}\p{N}_]` (JavaScript's `\w` is ASCII-only, even with `u`).
// Python's `\b` sits between a `\w` and a non-`\w` character. We drop both `\b`s from the compiled
// pattern because they can never fail here: a match starts at the first `\w` after a non-`\w` (the
// scanner only reaches a `\w` preceded by a `\w` inside an earlier match) and the greedy `\w+` runs to
// the next non-`\w`. test/text/words.test.ts checks this against a literal translation with lookarounds.

/** Python `\w` (str patterns), as a character class for `u`-flag regexes. */
export const PY_WORD_CHAR = '[\\p{L}\\p{N}_]';

/** The reference word pattern with Python `\b` written out as lookarounds (reference semantics). */
export const WORD_PATTERN_LITERAL =
  `(?:(?<!${PY_WORD_CHAR})(?=${PY_WORD_CHAR}))${PY_WORD_CHAR}+(?:[-']${PY_WORD_CHAR}+)*(?:(?<=${PY_WORD_CHAR})(?!${PY_WORD_CHAR}))`;

const WORD_RE = new RegExp(`${PY_WORD_CHAR}+(?:[-']${PY_WORD_CHAR}+)*`, 'gu');

/** Every word the reference counter sees, in order (Python `WORD_RE.findall(text)`). */
export function wordMatches(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

/** The number of words under the reference counter (`len(WORD_RE.findall(text))`). */
export function countWords(text: string): number {
  WORD_RE.lastIndex = 0;
  let n = 0;
  while (WORD_RE.exec(text) !== null) n++;
  return n;
}
