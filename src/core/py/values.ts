// A small model of the Python values `ast.literal_eval` can produce, with Python's `repr`, `==`,
// type names and truthiness. Ints are bigints and floats are numbers, so `59` and `59.0` stay
// distinct (they print differently: `value=59` vs `got float (59.0)`).
//
// The same functions take JSON values as `json.loads` would give them to Python (plain objects are
// dicts with str keys, `undefined` is None): `==` needs no hint, and `repr` takes
// `{ numbers: 'json' }`, because JSON.parse has already turned "3" and "3.0" into the same number
// and the JSON reading of an integral number is an int.
import { pyFloatRepr, pyRepr } from './format.ts';

export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** A set in insertion order (CPython's order depends on string hashes, randomised per process). */
export class PySet {
  constructor(readonly items: PyValue[]) {}
}

/** A dict as ordered (key, value) pairs; later duplicate keys overwrite the value in place. */
export class PyDict {
  constructor(readonly entries: [PyValue, PyValue][]) {}
  get(key: PyValue): PyValue | undefined {
    const hit = this.entries.find(([k]) => pyEquals(k, key));
    return hit ? hit[1] : undefined;
  }
}

export class PyComplex {
  constructor(
    readonly real: number,
    readonly imag: number,
  ) {}
}

export class PyBytes {
  constructor(readonly bytes: Uint8Array) {}
}

export const PyEllipsis = Object.freeze({ ellipsis: true as const });
type PyEllipsisType = typeof PyEllipsis;

/** str | int | float | complex | bool | None | bytes | tuple | list | dict | set | Ellipsis. */
export type PyValue =
  string | bigint | number | boolean | null | PyComplex | PyBytes | PyTuple | PyValue[] | PyDict | PySet | PyEllipsisType;

/** A value from JSON.parse (or built like one), as `json.loads` would hand it to Python. */
export type JsonValue = string | number | boolean | null | undefined | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object (a dict with str keys), not one of the Py* classes. */
function isJsonObject(v: unknown): v is { [key: string]: JsonValue } {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v === PyEllipsis) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** `type(v).__name__`. */
export function pyTypeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'float';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PyDict) return 'dict';
  if (v instanceof PySet) return 'set';
  if (v instanceof PyComplex) return 'complex';
  if (v instanceof PyBytes) return 'bytes';
  return 'ellipsis';
}

/** Python truthiness (`bool(v)`). */
export function pyTruthy(v: PyValue): boolean {
  if (v === null) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'number') return v !== 0; // NaN is truthy, as in Python
  if (typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple || v instanceof PySet) return v.items.length > 0;
  if (v instanceof PyDict) return v.entries.length > 0;
  if (v instanceof PyComplex) return v.real !== 0 || v.imag !== 0;
  if (v instanceof PyBytes) return v.bytes.length > 0;
  return true;
}

function numericValue(v: PyValue): number | bigint | null {
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  return null;
}

/** Python `==` for literal values and JSON values (1 == 1.0 == True; containers element-wise). */
export function pyEquals(x: PyValue | JsonValue, y: PyValue | JsonValue): boolean {
  // The same value is equal to itself (NaN is never the same: NaN !== NaN, as nan != nan).
  if (x === y) return true;
  if (x === undefined || y === undefined) return false;
  const ox = isJsonObject(x) ? (x as { [key: string]: JsonValue }) : null;
  const oy = isJsonObject(y) ? (y as { [key: string]: JsonValue }) : null;
  if (ox || oy) {
    if (!ox || !oy) return false;
    const kx = Object.keys(ox);
    return kx.length === Object.keys(oy).length && kx.every((k) => Object.prototype.hasOwnProperty.call(oy, k) && pyEquals(ox[k], oy[k]));
  }
  return pyValueEquals(x as PyValue, y as PyValue);
}

function pyValueEquals(x: PyValue, y: PyValue): boolean {
  const nx = numericValue(x);
  const ny = numericValue(y);
  if (nx !== null && ny !== null) {
    if (typeof nx === 'bigint' && typeof ny === 'bigint') return nx === ny;
    if (typeof nx === 'number' && typeof ny === 'number') return nx === ny;
    const f = typeof nx === 'number' ? nx : (ny as number);
    const i = typeof nx === 'bigint' ? nx : (ny as bigint);
    return Number.isInteger(f) && BigInt(f) === i;
  }
  if (x instanceof PyComplex || y instanceof PyComplex) {
    const cx = x instanceof PyComplex ? x : nx !== null ? new PyComplex(Number(nx), 0) : null;
    const cy = y instanceof PyComplex ? y : ny !== null ? new PyComplex(Number(ny), 0) : null;
    return !!cx && !!cy && cx.real === cy.real && cx.imag === cy.imag;
  }
  if (typeof x === 'string' || typeof y === 'string') return x === y;
  if (x === null || y === null) return x === y;
  if (Array.isArray(x) || Array.isArray(y)) {
    return Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((v, i) => pyEquals(v, y[i]));
  }
  if (x instanceof PyTuple && y instanceof PyTuple) {
    return x.items.length === y.items.length && x.items.every((v, i) => pyEquals(v, y.items[i]));
  }
  if (x instanceof PySet && y instanceof PySet) {
    return x.items.length === y.items.length && x.items.every((v) => y.items.some((w) => pyEquals(v, w)));
  }
  if (x instanceof PyDict && y instanceof PyDict) {
    return (
      x.entries.length === y.entries.length &&
      x.entries.every(([k, v]) => {
        const w = y.get(k);
        return w !== undefined && pyEquals(v, w);
      })
    );
  }
  if (x instanceof PyBytes && y instanceof PyBytes) {
    return Buffer.from(x.bytes).equals(Buffer.from(y.bytes));
  }
  return x === y;
}

/** Whether `hash(v)` succeeds (lists, dicts and sets, also nested in tuples, are unhashable). */
export function pyHashable(v: PyValue): boolean {
  if (Array.isArray(v) || v instanceof PyDict || v instanceof PySet) return false;
  if (v instanceof PyTuple) return v.items.every(pyHashable);
  return true;
}

/** repr of a float inside a complex: like float repr but without a forced ".0". */
function complexPart(x: number): string {
  const r = pyFloatRepr(x);
  return r.endsWith('.0') ? r.slice(0, -2) : r;
}

function bytesRepr(b: Uint8Array): string {
  const hasSingle = b.includes(0x27);
  const hasDouble = b.includes(0x22);
  const quote = hasSingle && !hasDouble ? '"' : "'";
  let out = 'b' + quote;
  for (const c of b) {
    if (c === quote.charCodeAt(0) || c === 0x5c) out += '\\' + String.fromCharCode(c);
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c < 0x20 || c >= 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += String.fromCharCode(c);
  }
  return out + quote;
}

interface PyReprOptions {
  /**
   * How a JS number reads: `float` (default, PyValue: ints are bigints) or `json` (as `json.loads`
   * gives it: an integral number is an int, `3` not `3.0`).
   */
  numbers?: 'float' | 'json';
}

/** Python `repr(v)` for literal values and JSON values, containers included. */
export function pyReprValue(v: PyValue | JsonValue, options: PyReprOptions = {}): string {
  return options.numbers === 'json' ? repr(v, true) : repr(v, false);
}

function repr(v: PyValue | JsonValue, jsonNumbers: boolean): string {
  switch (typeof v) {
    case 'string':
      return pyRepr(v);
    case 'number':
      return jsonNumbers && Number.isInteger(v) ? String(v) : pyFloatRepr(v);
    case 'boolean':
      return v ? 'True' : 'False';
    case 'bigint':
      return v.toString();
    case 'undefined':
      return 'None';
  }
  if (v === null) return 'None';
  if (Array.isArray(v)) return '[' + reprItems(v, jsonNumbers) + ']';
  if (v instanceof PyTuple) {
    if (v.items.length === 1) return '(' + repr(v.items[0], jsonNumbers) + ',)';
    return '(' + reprItems(v.items, jsonNumbers) + ')';
  }
  if (v instanceof PyDict) {
    let out = '';
    for (const [k, x] of v.entries) out += (out ? ', ' : '') + repr(k, jsonNumbers) + ': ' + repr(x, jsonNumbers);
    return '{' + out + '}';
  }
  if (v instanceof PySet) {
    return v.items.length ? '{' + reprItems(v.items, jsonNumbers) + '}' : 'set()';
  }
  if (v instanceof PyComplex) {
    if (v.real === 0 && !Object.is(v.real, -0)) return complexPart(v.imag) + 'j';
    const im = complexPart(v.imag);
    const sign = im.startsWith('-') ? '' : '+';
    return '(' + complexPart(v.real) + sign + im + 'j)';
  }
  if (v instanceof PyBytes) return bytesRepr(v.bytes);
  if (v === PyEllipsis) return 'Ellipsis';
  // A JSON object: a dict with str keys.
  let out = '';
  for (const k of Object.keys(v)) out += (out ? ', ' : '') + pyRepr(k) + ': ' + repr((v as { [key: string]: JsonValue })[k], jsonNumbers);
  return '{' + out + '}';
}

function reprItems(xs: ReadonlyArray<PyValue | JsonValue>, jsonNumbers: boolean): string {
  let out = '';
  for (let i = 0; i < xs.length; i++) out += (i ? ', ' : '') + repr(xs[i], jsonNumbers);
  return out;
}

/** Python `str(v)`: the string itself for str, repr otherwise. */
export function pyStr(v: PyValue | JsonValue, options: PyReprOptions = {}): string {
  return typeof v === 'string' ? v : pyReprValue(v, options);
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
  throw new TypeError(`int() argument is not a number: ${pyReprValue(x as JsonValue, { numbers: 'json' })}`);
}
