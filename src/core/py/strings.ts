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

/** `s.strip(chars)` with an explicit character set. */
export function pyStripChars(s: string, chars: string): string {
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  let lo = 0;
  let hi = cps.length;
  while (lo < hi && set.has(cps[lo])) lo++;
  while (hi > lo && set.has(cps[hi - 1])) hi--;
  return cps.slice(lo, hi).join('');
}
