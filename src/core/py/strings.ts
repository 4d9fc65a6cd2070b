// Python `str` semantics that differ from JavaScript's: ordering and length are by code point
// (JS compares and counts UTF-16 units), and `str.strip(chars)` strips a set of characters.

/** Python's `<` on str: code point order (differs from JS for astral vs high-BMP characters). */
export function pyCompare(x: string, y: string): number {
  if (x === y) return 0;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const a = x.charCodeAt(i);
    const b = y.charCodeAt(i);
    if (a === b) continue;
    // Surrogates (astral code points) sort above every BMP character in code point order.
    const sa = a >= 0xd800 && a <= 0xdfff;
    const sb = b >= 0xd800 && b <= 0xdfff;
    if (sa !== sb) return sa ? 1 : -1;
    return a - b;
  }
  return x.length - y.length;
}

/** `sorted(strings)`. */
export function pySorted(xs: Iterable<string>): string[] {
  return Array.from(xs).sort(pyCompare);
}

/** `len(s)`: number of code points. */
export function pyLen(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Python's `string.punctuation`. */
export const PY_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Whether code point `cp` is one of the characters (code points) of `chars`. */
function hasCodePoint(chars: string, cp: number): boolean {
  for (const ch of chars) if (ch.codePointAt(0) === cp) return true;
  return false;
}

const isSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdfff;

/**
 * Python `s.strip(chars)`: removes any of `chars` from both ends, by code point as Python does (a
 * surrogate pair is one character; a lone surrogate in `chars` never splits a pair). A BMP
 * character that is not a surrogate is compared as one UTF-16 unit, which is the same thing and
 * keeps the common case a plain `includes`.
 */
export function pyStripChars(s: string, chars: string): string {
  let start = 0;
  let end = s.length;
  while (start < end) {
    const unit = s.charCodeAt(start);
    if (!isSurrogate(unit)) {
      if (!chars.includes(s[start])) break;
      start++;
      continue;
    }
    const cp = s.codePointAt(start)!;
    if (!hasCodePoint(chars, cp)) break;
    start += cp > 0xffff ? 2 : 1;
  }
  while (end > start) {
    const unit = s.charCodeAt(end - 1);
    if (!isSurrogate(unit)) {
      if (!chars.includes(s[end - 1])) break;
      end--;
      continue;
    }
    let cp = unit;
    let width = 1;
    if (unit >= 0xdc00 && end - 2 >= start) {
      const hi = s.charCodeAt(end - 2);
      if (hi >= 0xd800 && hi <= 0xdbff) {
        cp = ((hi - 0xd800) << 10) + (unit - 0xdc00) + 0x10000;
        width = 2;
      }
    }
    if (!hasCodePoint(chars, cp)) break;
    end -= width;
  }
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

const SPLITLINES = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/u;

/** Python's `str.splitlines()` (no trailing empty element for a final line break). */
export function pySplitlines(text: string): string[] {
  if (!text) return [];
  const parts = text.split(SPLITLINES);
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}
