// Python's `\w` (str patterns) as a lookup table, for the scanners on hot paths (word counting,
// anchor boundaries): built once, on first use, from the same class the regexes use (PY_WORD_CHAR),
// so the two can never disagree.

/** Python `\w` (str patterns), as a character class for `u`-flag regexes. */
export const PY_WORD_CHAR = '[\\p{L}\\p{N}_]';

const WORD_CHAR_RE = new RegExp(`^${PY_WORD_CHAR}$`, 'u');
let bmpWord: Uint8Array | null = null;

/** 1 for each BMP code unit that is Python `\w` (surrogates are 0: see wordCharLength). */
export function bmpWordTable(): Uint8Array {
  if (bmpWord) return bmpWord;
  // One regex pass over a string of every BMP character (surrogates replaced by a non-word
  // character), marking each run of `\w`: a few thousand matches instead of 65,536 tests.
  const units = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) units[c] = c;
  units.fill(0x20, 0xd800, 0xe000);
  let all = '';
  for (let c = 0; c < 0x10000; c += 8192) all += String.fromCharCode.apply(null, units.subarray(c, c + 8192) as unknown as number[]);
  const t = new Uint8Array(0x10000);
  const runs = new RegExp(`${PY_WORD_CHAR}+`, 'gu');
  for (let m = runs.exec(all); m !== null; m = runs.exec(all)) t.fill(1, m.index, m.index + m[0].length);
  bmpWord = t;
  // Warm the surrogate branches (a pair, a lone high and a lone low surrogate; the results are
  // unused): docs/performance.md#deoptimisations
  for (let round = 0; round < 12; round++) {
    for (const s of ['\u{10400}', '\ud800', '\udc00x']) {
      wordCharLength(s, 0, t);
      wordCharBefore(s, s.length, t);
    }
  }
  return t;
}

/** Length in code units of the `\w` character starting at `i` (1 or 2), or 0 when it is not `\w` (or i is out of range). */
export function wordCharLength(text: string, i: number, table: Uint8Array = bmpWordTable()): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  // Not a surrogate (D800–DFFF), one bit test: docs/performance.md#deoptimisations
  if ((c & 0xf800) !== 0xd800) return table[c];
  if (c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return WORD_CHAR_RE.test(text.slice(i, i + 2)) ? 2 : 0;
  }
  return 0;
}

/** Whether the character that ends just before `i` (a whole code point) is Python `\w`. */
export function wordCharBefore(text: string, i: number, table: Uint8Array = bmpWordTable()): boolean {
  if (i <= 0) return false;
  const c = text.charCodeAt(i - 1);
  if ((c & 0xf800) !== 0xd800) return table[c] === 1; // not a surrogate (see wordCharLength)
  if (c >= 0xdc00 && i >= 2) {
    const h = text.charCodeAt(i - 2);
    if (h >= 0xd800 && h <= 0xdbff) return WORD_CHAR_RE.test(text.slice(i - 2, i));
  }
  return false;
}
