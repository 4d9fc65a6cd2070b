// Python value formatting, reproduced exactly: the reference writes feedback with `repr()` and
// records with `json.dumps(..., ensure_ascii=False)`, and both appear byte for byte in our outputs.
// `str.strip()` is owned by the revise package (the kernel strips every draft with it).
export { pyStrip, isPySpaceCode } from '@revloop/revise';

/** Characters Python's str.isprintable() rejects: Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than ' '. */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Python 3 `repr(str)`. */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2);
    else if (cp < 0x7f) out += ch;
    else if (NON_PRINTABLE.test(ch)) {
      if (cp <= 0xff) out += '\\x' + hex(cp, 2);
      else if (cp <= 0xffff) out += '\\u' + hex(cp, 4);
      else out += '\\U' + hex(cp, 8);
    } else out += ch;
  }
  return out + quote;
}

/** Python 3 `repr(float)` (shortest round-trip digits, Python's switch to exponent notation). */
export function pyFloatRepr(x: number): string {
  // Between 1e-4 and 1e16 both languages print the same shortest digits without an exponent; Python
  // adds ".0" to integral values. This covers nearly every verifier value without allocating.
  const a = x < 0 ? -x : x;
  if (a >= 1e-4 && a < 1e16) return Number.isInteger(x) ? String(x) + '.0' : String(x);
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const neg = x < 0;
  const [mant, expStr] = Math.abs(x).toExponential().split('e');
  const digits = mant.replace('.', '');
  const decpt = Number(expStr) + 1; // value = 0.digits × 10^decpt
  let body: string;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) body = '0.' + '0'.repeat(-decpt) + digits;
    else if (decpt >= digits.length) body = digits + '0'.repeat(decpt - digits.length) + '.0';
    else body = digits.slice(0, decpt) + '.' + digits.slice(decpt);
  } else {
    const e = decpt - 1;
    const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    body = m + 'e' + (e < 0 ? '-' : '+') + String(Math.abs(e)).padStart(2, '0');
  }
  return (neg ? '-' : '') + body;
}

/** A number that Python holds as a float (so it prints as `1.0`, not `1`). */
export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

export interface PyJsonOptions {
  /** Keys whose numeric values (or arrays of numbers) Python holds as floats. */
  floatKeys?: ReadonlySet<string>;
  /** Sort object keys (Python's sort_keys=True). */
  sortKeys?: boolean;
}

/** Keys that are floats in every reference record (verifier vectors and energies). */
export const REFERENCE_FLOAT_KEYS: ReadonlySet<string> = new Set(['violation_vector', 'violation_energy']);

function dumpNumber(n: number, asFloat: boolean): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (asFloat || !Number.isInteger(n)) return pyFloatRepr(n);
  return String(n);
}

/**
 * Python `json.dumps(value, ensure_ascii=False)`: ", " and ": " separators, insertion order,
 * Python float repr. Integral numbers print as ints unless their key is in `floatKeys` or they are
 * wrapped in `PyFloat`.
 */
export function pyJsonDumps(value: unknown, options: PyJsonOptions = {}): string {
  return dump(value, false, options.floatKeys ?? REFERENCE_FLOAT_KEYS, options.sortKeys === true);
}

/**
 * `pyJsonDumps({[key]: value, ...rest})` without building that object (batch records: the id, then a
 * state's fields), when `rest` has no field named `key`.
 */
export function pyJsonDumpsWith(key: string, value: unknown, rest: object, options: PyJsonOptions = {}): string {
  const floatKeys = options.floatKeys ?? REFERENCE_FLOAT_KEYS;
  const sortKeys = options.sortKeys === true;
  if (sortKeys || Object.prototype.hasOwnProperty.call(rest, key)) return dump({ [key]: value, ...rest }, false, floatKeys, sortKeys);
  const head = '{' + dumpKey(key) + dump(value, floatKeys.has(key), floatKeys, false);
  return dumpFields(rest as Record<string, unknown>, head, floatKeys) + '}';
}

// Serialised keys (`"name": `), cached: records repeat the same few field names.
const keyCache = new Map<string, string>();
function dumpKey(k: string): string {
  let out = keyCache.get(k);
  if (out === undefined) {
    out = JSON.stringify(k) + ': ';
    if (keyCache.size < 4096) keyCache.set(k, out);
  }
  return out;
}

// One recursive function with string concatenation (no closures or intermediate arrays): batch
// verification serialises every state through here.
function dump(v: unknown, asFloat: boolean, floatKeys: ReadonlySet<string>, sortKeys: boolean): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      // The common cases first: integers, and the 0.0/1.0 flags of violation vectors.
      if (!asFloat) return Number.isInteger(v) ? String(v) : dumpNumber(v, false);
      if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
      return v === 1 ? '1.0' : dumpNumber(v, true);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'object': {
      if (Array.isArray(v)) {
        if (v.length === 0) return '[]';
        let out = '[' + dump(v[0], asFloat, floatKeys, sortKeys);
        for (let i = 1; i < v.length; i++) out += ', ' + dump(v[i], asFloat, floatKeys, sortKeys);
        return out + ']';
      }
      if (v instanceof PyFloat) return dumpNumber(v.value, true);
      const obj = v as Record<string, unknown>;
      if (!sortKeys) return dumpFields(obj, '{', floatKeys) + '}';
      let out = '{';
      for (const k of Object.keys(obj).sort()) {
        const x = obj[k];
        if (x === undefined) continue;
        if (out.length > 1) out += ', ';
        out += dumpKey(k) + dump(x, floatKeys.has(k), floatKeys, sortKeys);
      }
      return out + '}';
    }
    default:
      throw new TypeError(`cannot serialise ${typeof v}`);
  }
}

/** `head` followed by the object's fields in insertion order (", " between, and after a `head` that holds one). */
function dumpFields(obj: Record<string, unknown>, head: string, floatKeys: ReadonlySet<string>): string {
  let out = head;
  let first = head.length === 1;
  for (const k of Object.keys(obj)) {
    const x = obj[k];
    if (x === undefined) continue;
    out +=
      (first ? '' : ', ') +
      dumpKey(k) +
      dump(x, typeof x === 'string' || typeof x === 'boolean' ? false : floatKeys.has(k), floatKeys, false);
    first = false;
  }
  return out;
}

/** Python's `\s` / str.isspace() set for str patterns. */
export const PY_SPACE_CLASS = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

/** The code points of PY_SPACE_CLASS. */
export const PY_SPACE_CODES: readonly number[] = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];
