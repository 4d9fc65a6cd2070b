// A small model of the Python values `ast.literal_eval` can produce, with Python's `repr`, type
// names and truthiness. Ints are bigints and floats are numbers, so `59` and `59.0` stay distinct
// (they print differently: `value=59` vs `got float (59.0)`).
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
export type PyEllipsisType = typeof PyEllipsis;

/** str | int | float | complex | bool | None | bytes | tuple | list | dict | set | Ellipsis. */
export type PyValue =
  string | bigint | number | boolean | null | PyComplex | PyBytes | PyTuple | PyValue[] | PyDict | PySet | PyEllipsisType;

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

/** Python `==` for literal values (1 == 1.0 == True; containers element-wise). */
export function pyEquals(x: PyValue, y: PyValue): boolean {
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

/** Python `repr(v)` for literal values, containers included. */
export function pyReprValue(v: PyValue): string {
  if (v === null) return 'None';
  if (typeof v === 'string') return pyRepr(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return pyFloatRepr(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (Array.isArray(v)) return '[' + v.map(pyReprValue).join(', ') + ']';
  if (v instanceof PyTuple) {
    if (v.items.length === 1) return '(' + pyReprValue(v.items[0]) + ',)';
    return '(' + v.items.map(pyReprValue).join(', ') + ')';
  }
  if (v instanceof PyDict) {
    return '{' + v.entries.map(([k, x]) => pyReprValue(k) + ': ' + pyReprValue(x)).join(', ') + '}';
  }
  if (v instanceof PySet) {
    return v.items.length ? '{' + v.items.map(pyReprValue).join(', ') + '}' : 'set()';
  }
  if (v instanceof PyComplex) {
    if (v.real === 0 && !Object.is(v.real, -0)) return complexPart(v.imag) + 'j';
    const im = complexPart(v.imag);
    const sign = im.startsWith('-') ? '' : '+';
    return '(' + complexPart(v.real) + sign + im + 'j)';
  }
  if (v instanceof PyBytes) return bytesRepr(v.bytes);
  return 'Ellipsis';
}

/** Python `str(v)`: the string itself for str, repr otherwise. */
export function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyReprValue(v);
}
