// Character classes as lookup tables, for the scanners that replace regexes on hot paths (word
// counting, anchor matching, the tokenisers): Python's `\w` for str patterns and re.IGNORECASE's
// character equivalence. Each table is built once, on first use, from the same definitions the
// regexes use (PY_WORD_CHAR, PY_CASE_CLASSES), so the two can never disagree.
import { PY_CASE_CLASSES } from './py-case-classes.ts';

/** Python `\w` (str patterns), as a character class for `u`-flag regexes. */
export const PY_WORD_CHAR = '[\\p{L}\\p{N}_]';

const WORD_CHAR_RE = new RegExp(`^${PY_WORD_CHAR}$`, 'u');
let bmpWord: Uint8Array | null = null;

/** 1 for each BMP code unit that is Python `\w` (surrogates are 0: see wordCharLength). */
export function bmpWordTable(): Uint8Array {
  if (bmpWord) return bmpWord;
  const t = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) if ((c < 0xd800 || c > 0xdfff) && WORD_CHAR_RE.test(String.fromCharCode(c))) t[c] = 1;
  return (bmpWord = t);
}

/** Length in code units of the `\w` character starting at `i` (1 or 2), or 0 when it is not `\w` (or i is out of range). */
export function wordCharLength(text: string, i: number, table: Uint8Array = bmpWordTable()): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdfff) return table[c];
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
  if (c < 0xd800 || c > 0xdfff) return table[c] === 1;
  if (c >= 0xdc00 && i >= 2) {
    const h = text.charCodeAt(i - 2);
    if (h >= 0xd800 && h <= 0xdbff) return WORD_CHAR_RE.test(text.slice(i - 2, i));
  }
  return false;
}

// re.IGNORECASE as a fold: every character maps to one representative of the group of characters
// sre treats as equal to it (simple lower-case mapping plus re._casefix), so "equal ignoring case"
// is "same representative". Groups never mix BMP and astral characters (checked when the table is
// built), so folding keeps UTF-16 lengths.
let bmpFold: Uint16Array | null = null;
let astralFold: Map<number, number> | null = null;

function buildFold(): void {
  const t = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) t[c] = c;
  const astral = new Map<number, number>();
  for (const group of PY_CASE_CLASSES.split('|')) {
    const members = Array.from(group, (ch) => ch.codePointAt(0)!);
    const rep = members[0];
    if (members.some((m) => m > 0xffff !== rep > 0xffff)) throw new Error(`case group ${group} mixes BMP and astral characters`);
    for (const m of members) {
      if (m > 0xffff) astral.set(m, rep);
      else if (t[m] !== m) throw new Error(`character U+${m.toString(16)} is in two case groups`);
      else t[m] = rep;
    }
  }
  bmpFold = t;
  astralFold = astral;
}

/** BMP fold table: code unit → its IGNORECASE representative. */
export function bmpFoldTable(): Uint16Array {
  if (!bmpFold) buildFold();
  return bmpFold!;
}

/** IGNORECASE representative of an astral code point (itself when it has no case partners). */
export function foldAstral(cp: number): number {
  if (!astralFold) buildFold();
  return astralFold!.get(cp) ?? cp;
}

/** The IGNORECASE representatives of a string's code points (same UTF-16 length as the input). */
export function foldString(s: string): string {
  const t = bmpFoldTable();
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out += String.fromCodePoint(cp > 0xffff ? foldAstral(cp) : t[cp]);
  }
  return out;
}
