// Small Python semantics the reference verifiers and feedback rely on: `repr()` of arbitrary JSON
// values, `==` between JSON values, `zip()` truncation, `str.strip(chars)` and `string.punctuation`.
import { pyFloatRepr, pyRepr } from './format.ts';

/** Python's `string.punctuation`. */
export const PY_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Python `s.strip(chars)`: removes any of `chars` from both ends. */
export function stripChars(s: string, chars: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start])) start++;
  while (end > start && chars.includes(s[end - 1])) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * Python `repr()` of a JSON value as Python would hold it after `json.loads`: str → quoted repr,
 * int → digits, float → shortest repr, bool → True/False, None, list → [..], dict → {..}.
 * A JSON number is taken to be an int when it is integral (json.loads gives int for "3").
 */
export function pyReprValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  switch (typeof v) {
    case 'string':
      return pyRepr(v);
    case 'boolean':
      return v ? 'True' : 'False';
    case 'number':
      return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
    case 'object':
      if (Array.isArray(v)) return '[' + v.map(pyReprValue).join(', ') + ']';
      return (
        '{' +
        Object.entries(v as Record<string, unknown>)
          .map(([k, x]) => `${pyRepr(k)}: ${pyReprValue(x)}`)
          .join(', ') +
        '}'
      );
    default:
      return String(v);
  }
}

/** Python `str(value)` for JSON values (strings print bare, everything else as repr). */
export function pyStrValue(v: unknown): string {
  return typeof v === 'string' ? v : pyReprValue(v);
}

/** Python `a == b` for JSON values (bool and int compare numerically, as in Python). */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const numeric = (x: unknown) => typeof x === 'number' || typeof x === 'boolean';
  if (numeric(a) && numeric(b)) return Number(a) === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in (b as object) && pyEquals((a as any)[k], (b as any)[k]));
  }
  return false;
}

/** Python `zip(*arrays)`: stops at the shortest. */
export function zipShortest<T extends unknown[][]>(...arrays: T): Array<{ [K in keyof T]: T[K][number] }> {
  const n = Math.min(...arrays.map((a) => a.length));
  const out: any[] = [];
  for (let i = 0; i < n; i++) out.push(arrays.map((a) => a[i]));
  return out;
}

/** Python `int(x)` for the JSON values COLLIE targets hold (ints, integral floats, digit strings). */
export function pyInt(x: unknown): number {
  if (typeof x === 'number' && Number.isFinite(x)) return Math.trunc(x);
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'string' && /^\s*[+-]?\d+\s*$/.test(x)) return parseInt(x, 10);
  throw new TypeError(`int() argument is not a number: ${pyReprValue(x)}`);
}
