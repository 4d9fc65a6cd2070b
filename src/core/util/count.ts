// Counts for people: 1,234,567, as `toLocaleString('en')` writes them, without loading ICU's number
// data at a process's first locale-aware call (docs/performance.md#start-up).

/** An integer with a comma between thousands, exactly as `toLocaleString('en')` (which writes anything else). */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en');
  const digits = String(Math.abs(n));
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 || Object.is(n, -0) ? '-' + out : out;
}
