// The one text boundary (docs/store.md, "Text"): what counts as text revloop will store, verify or
// send. Invalid UTF-8, NUL and lone UTF-16 surrogates are not: PostgreSQL refuses NUL in a TEXT
// column, SQLite and every encoder turn a lone surrogate or an invalid byte into U+FFFD, so such a
// string would read back as something other than what was verified. Model responses that hold them
// become a provider fault of their own kind (models/); input files are refused with file, line and
// field (cases, imports, verify --text-file). Escaped forms keep the evidence in plain ASCII.
import { isUtf8 } from 'node:buffer';

/** A character of a string that is not storable text: where (UTF-16 index) and what. */
export interface TextFault {
  index: number;
  problem: string;
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/**
 * The first NUL or lone surrogate of a string (null when it is clean text). Well-formed strings
 * without NUL, the common case, cost two native scans.
 */
export function textFault(s: string): TextFault | null {
  const nul = s.indexOf('\u0000');
  const wellFormed = (s as unknown as { isWellFormed(): boolean }).isWellFormed();
  if (nul < 0 && wellFormed) return null;
  let surrogate = -1;
  if (!wellFormed) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (d >= 0xdc00 && d <= 0xdfff) i++;
        else {
          surrogate = i;
          break;
        }
      } else if (c >= 0xdc00 && c <= 0xdfff) {
        surrogate = i;
        break;
      }
    }
  }
  if (nul >= 0 && (surrogate < 0 || nul < surrogate))
    return { index: nul, problem: `holds a NUL character (\\u0000) at character ${nul + 1}` };
  return {
    index: surrogate,
    problem: `holds a lone UTF-16 surrogate (\\u${hex4(s.charCodeAt(surrogate))}) at character ${surrogate + 1}`,
  };
}

/** Whether a string is storable text (no NUL, no lone surrogate). */
export function isCleanText(s: string): boolean {
  return s.indexOf('\u0000') < 0 && (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** The first invalid UTF-8 sequence of some bytes (null when valid): its byte offset and value. */
export function utf8Fault(bytes: Uint8Array): TextFault | null {
  if (isUtf8(bytes)) return null;
  const at = firstInvalidUtf8(bytes);
  return { index: at, problem: `is not valid UTF-8 (byte 0x${bytes[at].toString(16).padStart(2, '0')} at byte ${at + 1})` };
}

/** The length of the valid UTF-8 sequence starting at `i` (0: the byte there starts no valid sequence). */
function sequenceAt(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (k: number) => i + k < b.length && (b[i + k] & 0xc0) === 0x80;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    const d = b[i + 1];
    if ((c === 0xe0 && d < 0xa0) || (c === 0xed && d > 0x9f)) return 0; // overlong, or a UTF-16 surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const d = b[i + 1];
    if ((c === 0xf0 && d < 0x90) || (c === 0xf4 && d > 0x8f)) return 0;
    return 4;
  }
  return 0;
}

function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const n = sequenceAt(b, i);
    if (n === 0) return i;
    i += n;
  }
  return 0;
}

/** Code units the escaped form spells out (C0 and C1 controls, DEL, the backslash, lone surrogates). */
function escapeChar(c: number): string | null {
  if (c === 0x5c) return '\\\\';
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return c === 0x0a ? '\\n' : c === 0x09 ? '\\t' : c === 0x0d ? '\\r' : `\\u${hex4(c)}`;
  return null;
}

/**
 * A printable, reversible-by-eye rendering of some bytes or a string, at most `limit` characters
 * (then a count of what was left out): valid characters as they are, controls and NUL as `\uXXXX`,
 * lone surrogates as `\udXXX`, bytes that are not UTF-8 as `\xNN`, a backslash doubled. What a fault
 * record keeps of a response that was not text.
 */
export function escapeText(input: string | Uint8Array, limit = 4000): string {
  let out = '';
  let units = 0;
  const push = (piece: string, size: number): boolean => {
    if (out.length + piece.length > limit) return false;
    out += piece;
    units += size;
    return true;
  };
  if (typeof input === 'string') {
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      let piece = escapeChar(c);
      let size = 1;
      if (piece === null && c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < input.length ? input.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          piece = input.slice(i, i + 2);
          size = 2;
        } else piece = `\\u${hex4(c)}`;
      }
      if (!push(piece ?? input[i], size)) return `${out}…[${input.length - units} more characters]`;
      i += size - 1;
    }
    return out;
  }
  const b = input;
  for (let i = 0; i < b.length;) {
    const n = sequenceAt(b, i);
    let piece: string;
    if (n === 0) piece = `\\x${b[i].toString(16).padStart(2, '0')}`;
    else if (n === 1) piece = escapeChar(b[i]) ?? String.fromCharCode(b[i]);
    else {
      const ch = Buffer.from(b.buffer, b.byteOffset + i, n).toString('utf8');
      piece = escapeChar(ch.codePointAt(0)!) ?? ch;
    }
    if (!push(piece, Math.max(1, n))) return `${out}…[${b.length - units} more bytes]`;
    i += Math.max(1, n);
  }
  return out;
}

/** The first string (value or key) of a parsed JSON value that is not clean text: its field path and fault. */
export function jsonTextFault(value: unknown, path = ''): { field: string; fault: TextFault } | null {
  if (typeof value === 'string') {
    const fault = textFault(value);
    return fault ? { field: path || 'value', fault } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = jsonTextFault(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const field = path ? `${path}.${k}` : k;
      const keyFault = textFault(k);
      if (keyFault) return { field: `${path ? `${path}.` : ''}${escapeText(k, 80)} (the key)`, fault: keyFault };
      const found = jsonTextFault(v, field);
      if (found) return found;
    }
  }
  return null;
}

/** A marker standing in for each byte that is not UTF-8 while the field holding it is located. */
const INVALID_MARK = '\ufdd0';

/**
 * Where in a JSON line its invalid UTF-8 sits: the line decoded with a marker for each bad byte,
 * parsed, and the first string holding a marker named. Null when the bytes are outside any string
 * (the line is not JSON then anyway) or the line does not parse.
 */
export function invalidUtf8Field(line: Uint8Array): string | null {
  let text = '';
  for (let i = 0; i < line.length;) {
    const n = sequenceAt(line, i);
    if (n === 0) {
      text += INVALID_MARK;
      i++;
      continue;
    }
    let j = i + n;
    while (j < line.length) {
      const m = sequenceAt(line, j);
      if (m === 0) break;
      j += m;
    }
    text += Buffer.from(line.buffer, line.byteOffset + i, j - i).toString('utf8');
    i = j;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const find = (v: unknown, path: string): string | null => {
    if (typeof v === 'string') return v.includes(INVALID_MARK) ? path || 'value' : null;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const f = find(v[i], `${path}[${i}]`);
        if (f) return f;
      }
      return null;
    }
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes(INVALID_MARK)) return `${path ? `${path}.` : ''}${k.replaceAll(INVALID_MARK, '?')} (the key)`;
        const f = find(x, path ? `${path}.${k}` : k);
        if (f) return f;
      }
    }
    return null;
  };
  return find(value, '');
}

/** The first place a text file's bytes are not storable text (invalid UTF-8 or NUL): its 1-based line and what is wrong. */
export function textBytesFault(bytes: Uint8Array): { line: number; problem: string } | null {
  let at: number;
  let what: string;
  if (!isUtf8(bytes)) {
    at = firstInvalidUtf8(bytes);
    what = `is not valid UTF-8 (byte 0x${bytes[at].toString(16).padStart(2, '0')}`;
  } else {
    at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0);
    if (at < 0) return null;
    what = 'holds a NUL character (\\u0000';
  }
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++)
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  return { line, problem: `${what} at byte ${at - lineStart + 1} of the line)` };
}
