// Python's `str.strip()`, the paper's normalisation of every draft (docs/protocol.md §3.1), owned
// here so that the lab (revloop's src/core/py/format.ts re-exports it) and revise() strip alike.

/** Whether a UTF-16 code unit is Python whitespace (`str.isspace`; every member is in the BMP). */
export function isPySpaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c >= 0x1c;
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Python `str.strip()` with no argument: strips Unicode whitespace (str.isspace). */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isPySpaceCode(s.charCodeAt(a))) a++;
  while (b > a && isPySpaceCode(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}
