// The exact-length word counter: the matches of the Python `re` pattern `\b\w+(?:[-']\w+)*\b` on a
// `str`, as the reference's `word_count` computes them (docs/protocol.md §6.1).
//
// Python's `\w` for str patterns is `[\p{L}\p{N}_]` (JavaScript's `\w` is ASCII-only, even with `u`).
// Python's `\b` sits between a `\w` and a non-`\w` character. We drop both `\b`s from the compiled
// pattern because they can never fail here: a match starts at the first `\w` after a non-`\w` (the
// scanner only reaches a `\w` preceded by a `\w` inside an earlier match) and the greedy `\w+` runs to
// the next non-`\w`. test/text/words.test.ts checks this against a literal translation with lookarounds.

import { bmpWordTable, PY_WORD_CHAR, wordCharLength } from './chars.ts';

export { PY_WORD_CHAR };

/** The reference word pattern with Python `\b` written out as lookarounds (reference semantics). */
export const WORD_PATTERN_LITERAL = `(?:(?<!${PY_WORD_CHAR})(?=${PY_WORD_CHAR}))${PY_WORD_CHAR}+(?:[-']${PY_WORD_CHAR}+)*(?:(?<=${PY_WORD_CHAR})(?!${PY_WORD_CHAR}))`;

const WORD_RE = new RegExp(`${PY_WORD_CHAR}+(?:[-']${PY_WORD_CHAR}+)*`, 'gu');

/** Every word the reference counter sees, in order (Python `WORD_RE.findall(text)`). */
export function wordMatches(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

// countWords scans code units instead of running WORD_RE, so counting allocates nothing (it runs on
// every draft of every round). Characters are classified through chars.ts's table of the same class.

/** The number of words under the reference counter (`len(WORD_RE.findall(text))`). */
export function countWords(text: string): number {
  const table = bmpWordTable();
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    let k = wordCharLength(text, i, table);
    if (!k) {
      i++;
      continue;
    }
    // \w+ …
    do i += k;
    while (i < n && (k = wordCharLength(text, i, table)));
    // … (?:[-']\w+)*
    while (i + 1 < n) {
      const sep = text.charCodeAt(i);
      if (sep !== 0x2d && sep !== 0x27) break;
      k = wordCharLength(text, i + 1, table);
      if (!k) break;
      i += 1;
      do i += k;
      while (i < n && (k = wordCharLength(text, i, table)));
    }
    count++;
  }
  return count;
}
