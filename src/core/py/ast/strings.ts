// String literal decoding as CPython 3.11 does it after tokenising: prefixes, escapes (with the
// unicode-escape error texts), bytes, and the split of f-strings into literal and expression parts.

export class LiteralError extends Error {}

interface DecodedString {
  kind: 'str' | 'bytes' | 'fstring';
  /** For str/bytes: the decoded value (bytes as a latin-1 string of byte values). */
  value: string;
  /** The f-string body (prefix and quotes removed), for `kind === 'fstring'`. */
  body: string;
  raw: boolean;
  u: boolean;
}

/** Split a STRING token into prefix, quote and body, and decode str/bytes bodies. */
export function decodeStringToken(token: string): DecodedString {
  let i = 0;
  while (token[i] !== "'" && token[i] !== '"') i++;
  const prefix = token.slice(0, i).toLowerCase();
  const quote = token[i];
  const q = token.startsWith(quote.repeat(3), i) && token.length - i >= 6 ? 3 : 1;
  const body = token.slice(i + q, token.length - q);
  const raw = prefix.includes('r');
  const isBytes = prefix.includes('b');
  const u = prefix.includes('u');
  if (prefix.includes('f')) return { kind: 'fstring', value: '', body, raw, u };
  if (isBytes) {
    for (const ch of body) {
      if (ch.charCodeAt(0) >= 128) throw new LiteralError('bytes can only contain ASCII literal characters');
    }
    return { kind: 'bytes', value: raw ? body : decodeEscapes(body, true), body, raw, u };
  }
  return { kind: 'str', value: raw ? body : decodeEscapes(body, false), body, raw, u };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\x08',
  f: '\x0c',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\x0b',
};

/** Decode backslash escapes (Python's unicode_escape / bytes escape rules). */
function decodeEscapes(body: string, bytes: boolean): string {
  const cps = Array.from(body);
  let out = '';
  // Byte position in CPython's intermediate buffer, where each non-ASCII character was rewritten
  // as a 10-byte \UXXXXXXXX escape; error messages quote positions in that buffer.
  let bufPos = 0;
  const width = (ch: string): number => (ch.charCodeAt(0) >= 128 ? 10 : 1);
  for (let i = 0; i < cps.length; i++) {
    const ch = cps[i];
    if (ch !== '\\') {
      out += ch;
      bufPos += width(ch);
      continue;
    }
    const start = bufPos;
    const next = cps[i + 1];
    if (next === undefined) {
      // A trailing lone backslash cannot reach here (the tokenizer would not close the string).
      out += '\\';
      bufPos++;
      continue;
    }
    if (next === '\n') {
      i++;
      bufPos += 2;
      continue;
    }
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      i++;
      bufPos += 2;
      continue;
    }
    if (next >= '0' && next <= '7') {
      let j = i + 1;
      let v = 0;
      while (j < cps.length && j < i + 4 && cps[j] >= '0' && cps[j] <= '7') {
        v = v * 8 + Number(cps[j]);
        j++;
      }
      out += bytes ? String.fromCharCode(v & 0xff) : String.fromCodePoint(v);
      bufPos += j - i;
      i = j - 1;
      continue;
    }
    const hexLen = next === 'x' ? 2 : !bytes && next === 'u' ? 4 : !bytes && next === 'U' ? 8 : 0;
    if (hexLen) {
      let j = i + 2;
      while (j < cps.length && j < i + 2 + hexLen && /^[0-9a-fA-F]$/.test(cps[j])) j++;
      const digits = cps.slice(i + 2, j).join('');
      if (digits.length < hexLen) {
        if (bytes) throw new LiteralError(`(value error) invalid \\x escape at position ${start}`);
        const what = next === 'x' ? '\\xXX' : next === 'u' ? '\\uXXXX' : '\\UXXXXXXXX';
        throw new LiteralError(
          `(unicode error) 'unicodeescape' codec can't decode bytes in position ${start}-${start + 1 + digits.length}: truncated ${what} escape`,
        );
      }
      const v = parseInt(digits, 16);
      if (v > 0x10ffff) {
        throw new LiteralError(
          `(unicode error) 'unicodeescape' codec can't decode bytes in position ${start}-${start + 9}: illegal Unicode character`,
        );
      }
      out += bytes ? String.fromCharCode(v) : String.fromCodePoint(v);
      bufPos += 2 + hexLen;
      i = j - 1;
      continue;
    }
    if (!bytes && next === 'N') {
      // The Unicode name database is not available here; CPython would resolve valid names.
      let j = i + 2;
      if (cps[j] === '{') while (j < cps.length && cps[j] !== '}') j++;
      const end = start + (j - i) + (cps[j] === '}' ? 0 : -1);
      const msg = cps[i + 2] === '{' && cps[j] === '}' ? 'unknown Unicode character name' : 'malformed \\N character escape';
      throw new LiteralError(`(unicode error) 'unicodeescape' codec can't decode bytes in position ${start}-${end}: ${msg}`);
    }
    // Unknown escapes keep the backslash (CPython only warns).
    out += '\\';
    bufPos++;
  }
  return out;
}

export interface FStringPart {
  kind: 'literal' | 'expr';
  /** Literal text (decoded), or the expression source. */
  text: string;
  conversion: number;
  /** The format spec's own parts (it may contain nested replacement fields). */
  spec: FStringPart[] | null;
  /** `{x=}` debug text ("x="), emitted before the value. */
  debug: string | null;
}

/** Split an f-string body into literal and replacement-field parts (CPython 3.11's f-string rules). */
export function splitFString(body: string, raw: boolean, nested = false): FStringPart[] {
  const parts: FStringPart[] = [];
  let lit = '';
  let i = 0;
  const flush = (): void => {
    if (lit) parts.push({ kind: 'literal', text: raw ? lit : decodeEscapes(lit, false), conversion: -1, spec: null, debug: null });
    lit = '';
  };
  while (i < body.length) {
    const c = body[i];
    if (c === '{') {
      if (!nested && body[i + 1] === '{') {
        lit += '{';
        i += 2;
        continue;
      }
      flush();
      i = readField(i + 1);
      continue;
    }
    if (c === '}') {
      if (!nested && body[i + 1] === '}') {
        lit += '}';
        i += 2;
        continue;
      }
      throw new LiteralError("f-string: single '}' is not allowed");
    }
    if (c === '\\' && !raw && i + 1 < body.length) {
      lit += c + body[i + 1];
      i += 2;
      continue;
    }
    lit += c;
    i++;
  }
  flush();
  return parts;

  function readField(start: number): number {
    let j = start;
    const stack: string[] = [];
    let quote: string | null = null;
    for (; j < body.length; j++) {
      const c = body[j];
      if (c === '\\') throw new LiteralError('f-string expression part cannot include a backslash');
      if (quote) {
        if (body.startsWith(quote, j)) {
          j += quote.length - 1;
          quote = null;
        }
        continue;
      }
      if (c === "'" || c === '"') {
        quote = body.startsWith(c.repeat(3), j) ? c.repeat(3) : c;
        j += quote.length - 1;
        continue;
      }
      if (c === '#') throw new LiteralError("f-string expression part cannot include '#'");
      if (c === '(' || c === '[' || c === '{') {
        stack.push(c);
        continue;
      }
      if (c === ')' || c === ']' || c === '}') {
        if (stack.length === 0) {
          if (c === '}') break;
          throw new LiteralError(`f-string: unmatched '${c}'`);
        }
        const open = stack.pop()!;
        const want = c === ')' ? '(' : c === ']' ? '[' : '{';
        if (open !== want) throw new LiteralError(`f-string: closing parenthesis '${c}' does not match opening parenthesis '${open}'`);
        continue;
      }
      if (stack.length === 0) {
        if (c === '!' && body[j + 1] !== '=') break;
        if (c === ':') break;
        if (c === '=' && !'=!<>'.includes(body[j - 1] ?? '') && body[j + 1] !== '=') break;
      }
    }
    if (quote) throw new LiteralError('f-string: unterminated string');
    if (j >= body.length) throw new LiteralError("f-string: expecting '}'");
    const exprText = body.slice(start, j);
    if (!exprText.trim()) throw new LiteralError('f-string: empty expression not allowed');
    let debug: string | null = null;
    if (body[j] === '=') {
      j++;
      debug = body.slice(start, j);
      while (body[j] === ' ') {
        debug += ' ';
        j++;
      }
    }
    let conversion = -1;
    if (body[j] === '!') {
      const conv = body[j + 1];
      if (conv === undefined) throw new LiteralError("f-string: expecting '}'");
      if (conv !== 's' && conv !== 'r' && conv !== 'a') {
        throw new LiteralError("f-string: invalid conversion character: expected 's', 'r', or 'a'");
      }
      conversion = conv.charCodeAt(0);
      j += 2;
    }
    let spec: FStringPart[] | null = null;
    if (body[j] === ':') {
      let depth = 0;
      let k = j + 1;
      for (; k < body.length; k++) {
        if (body[k] === '{') depth++;
        else if (body[k] === '}') {
          if (depth === 0) break;
          depth--;
        }
      }
      if (k >= body.length) throw new LiteralError("f-string: expecting '}'");
      spec = splitFString(body.slice(j + 1, k), raw, true);
      j = k;
    }
    if (body[j] !== '}') throw new LiteralError("f-string: expecting '}'");
    if (debug !== null && conversion === -1 && spec === null) conversion = 'r'.charCodeAt(0);
    parts.push({ kind: 'expr', text: exprText, conversion, spec, debug });
    return j + 1;
  }
}
