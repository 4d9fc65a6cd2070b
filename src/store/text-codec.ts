// The derived tables' text columns on both backends hold any JavaScript string the events hold:
// events keep text inside JSON (NUL and lone surrogates escaped by JSON.stringify), but a column
// cannot hold NUL on PostgreSQL, and a lone surrogate becomes U+FFFD on both backends. Since the
// text boundary (core/util/text-boundary.ts) new runs never carry such text; runs recorded before
// it, copied or rebuilt, still must not fail or read back changed. So a string holding NUL, a lone
// surrogate or the escape character itself is stored with those characters escaped (reversibly),
// and everything else, practically every value, is stored as it is. derive.ts encodes, tables.ts
// decodes, the audit compares decoded values.

/** U+FFFF, a noncharacter: valid in both databases' UTF-8, and not found in real text. */
const ESC = '\uffff';
const NEEDS_ESCAPE = /[\u0000\uffff\ud800-\udfff]/;

/** A string as a derived column stores it. */
export function encodeColumn(s: string): string;
export function encodeColumn(s: string | null): string | null;
export function encodeColumn(s: string | null): string | null {
  if (s === null || !NEEDS_ESCAPE.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) out += `${ESC}0`;
    else if (c === 0xffff) out += `${ESC}e`;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += s.slice(i, i + 2);
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += `${ESC}s${c.toString(16)}`;
    else out += s[i];
  }
  return out;
}

/** A derived column's value as the events hold it. */
export function decodeColumn(s: string): string;
export function decodeColumn(s: string | null): string | null;
export function decodeColumn(s: string | null): string | null {
  if (s === null || s.indexOf(ESC) < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== ESC) {
      out += s[i];
      continue;
    }
    const tag = s[i + 1];
    if (tag === '0') out += '\u0000';
    else if (tag === 'e') out += ESC;
    else if (tag === 's') {
      out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
      i += 4;
    } else out += ESC + (tag ?? ''); // not ours: kept as it is
    i++;
  }
  return out;
}
