// Python `re` (str pattern) building blocks for JavaScript `u`-flag regexes. JavaScript's own `\w`,
// `\s`, `\d`, `\b` and `$` differ from Python's (docs/protocol.md §6.1), so the ported NLTK and reference
// patterns are written with these instead.
import { isPySpaceCode, PY_SPACE_CLASS } from './format.ts';
import { PY_CASE_CLASSES } from './case-classes.ts';

/** Python `\w`. */
export const W = '[\\p{L}\\p{N}_]';
/** Python `[^\W\d]`: word characters that are not decimal digits. */
export const W_NOT_DIGIT = '[\\p{L}\\p{Nl}\\p{No}_]';
/** Python `\d` (Unicode decimal digits). */
export const D = '\\p{Nd}';
/** Python `\s` (str.isspace). */
export const S = PY_SPACE_CLASS;
/** Python `\S`. */
export const NS = '[^' + PY_SPACE_CLASS.slice(1);
/** Python `\b` before a `\w` character (the previous character is not `\w`). */
export const B_BEFORE_WORD = `(?<!${W})`;
/** Python `\b` after a `\w` character (the next character is not `\w`). */
export const B_AFTER_WORD = `(?!${W})`;
/** Python `$` without MULTILINE: the end, or just before a final newline. */
export const END = '(?=\\n?$)';
/** Python `$` with MULTILINE: before any newline, or at the end (JS `m` would also stop at \r, U+2028…). */
export const END_MULTILINE = '(?=\\n|$)';

/** Python `str.split()` with no argument. */
export function pySplit(s: string): string[] {
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    while (i < n && isPySpaceCode(s.charCodeAt(i))) i++;
    if (i === n) break;
    const start = i;
    while (i < n && !isPySpaceCode(s.charCodeAt(i))) i++;
    out.push(s.slice(start, i));
  }
  return out;
}

/** Length of `s` without its trailing Python whitespace (`len(s.rstrip())`). */
export function pyRstripLength(s: string): number {
  let b = s.length;
  while (b > 0 && isPySpaceCode(s.charCodeAt(b - 1))) b--;
  return b;
}

/** Python `str.rstrip()` with no argument. */
export function pyRstrip(s: string): string {
  const b = pyRstripLength(s);
  return b === s.length ? s : s.slice(0, b);
}

/** Python `str.lstrip()` with no argument. */
export function pyLstrip(s: string): string {
  let a = 0;
  while (a < s.length && isPySpaceCode(s.charCodeAt(a))) a++;
  return a === 0 ? s : s.slice(a);
}

/** Python `bool(s.strip())`. */
export function pyHasNonSpace(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isPySpaceCode(s.charCodeAt(i))) return true;
  return false;
}

let caseClassOf: Map<number, string> | null = null;

/** Character → class source of every character Python's re.IGNORECASE treats as equal to it. */
function caseClasses(): Map<number, string> {
  if (caseClassOf) return caseClassOf;
  const map = new Map<number, string>();
  for (const group of PY_CASE_CLASSES.split('|')) {
    const members = [...group];
    const cls = '[' + members.map((ch) => (/[\\\]^-]/.test(ch) ? '\\' + ch : ch)).join('') + ']';
    for (const m of members) map.set(m.codePointAt(0)!, cls);
  }
  caseClassOf = map;
  return map;
}

/** Escapes one literal character for a `u`-flag regex (only syntax characters may be escaped there). */
export function escapeLiteralChar(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? '\\' + ch : ch;
}

/**
 * Pattern source matching `literal` the way a Python pattern with re.IGNORECASE matches it: each cased
 * character becomes the explicit class of characters sre treats as equal (simple lower-case mapping
 * plus re._casefix), which JavaScript's `i` flag (simple case folding) does not reproduce.
 */
export function pyCaselessLiteral(literal: string): string {
  const classes = caseClasses();
  let out = '';
  for (const ch of literal) out += classes.get(ch.codePointAt(0)!) ?? escapeLiteralChar(ch);
  return out;
}
