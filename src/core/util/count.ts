// Counts for people: 1,234,567, as `toLocaleString('en')` writes them, without its cost. The first
// locale-aware call of a process loads ICU's number data (about 30 ms of CPU here), which a command
// that prints one progress line, or a worker that reports after every round, should not pay.

/** An integer with a comma between thousands, exactly as `toLocaleString('en')` (which writes anything else). */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en');
  const digits = String(Math.abs(n));
  const head = digits.length % 3 || 3;
  let out = digits.slice(0, head);
  for (let i = head; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 || Object.is(n, -0) ? '-' + out : out;
}
