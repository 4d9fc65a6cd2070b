// CPython 3.11's tokenizer, reduced to what `ast.parse(text, mode="eval")` needs: names, numbers,
// strings, operators, brackets, NEWLINE/INDENT, and the tokenizer's own SyntaxError messages
// ("unterminated string literal (detected at line 1)", "invalid character '—' (U+2014)", …).

type TokenType = 'NAME' | 'NUMBER' | 'STRING' | 'OP' | 'NEWLINE' | 'INDENT' | 'ENDMARKER' | 'ERRORTOKEN';

export interface Token {
  type: TokenType;
  text: string;
  /** Offset in the (newline-normalised) source. */
  start: number;
  end: number;
  line: number;
  /** Bracket depth after this token, as CPython records it. */
  level: number;
}

/** A SyntaxError raised by the tokenizer when the parser asks for the token at `index`. */
interface TokenizerError {
  index: number;
  message: string;
  line: number;
  /** True for the end-of-input-inside-brackets error ("'(' was never closed"). */
  unclosed: boolean;
}

export interface TokenStream {
  source: string;
  tokens: Token[];
  error: TokenizerError | null;
}

const THREE_CHAR_OPS = ['**=', '...', '//=', '>>=', '<<='];
const TWO_CHAR_OPS = ['!=', '%=', '&=', '**', '*=', '+=', '-=', '->', '//', '/=', ':=', '<<', '<=', '==', '>=', '>>', '@=', '^=', '|='];
const ONE_CHAR_OPS = new Set(Array.from('%&()*+,-./:;<=>@[]^{|}~'));
const OPENERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}
function isHexDigit(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}
function isPotentialIdentifierStart(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c.charCodeAt(0) >= 128);
}
function isPotentialIdentifierChar(c: string | undefined): boolean {
  return isPotentialIdentifierStart(c) || isDigit(c);
}

const PRINTABLE_EXCLUDED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
/** Python's str.isprintable() for one code point. */
export function isPrintableChar(ch: string): boolean {
  return ch === ' ' || !PRINTABLE_EXCLUDED.test(ch);
}

function hex4(ch: string): string {
  return ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
}

/** Python's identifier check: XID_Start or '_', then XID_Continue; returns the first bad index. */
function scanIdentifier(cps: string[]): number {
  if (!(cps[0] === '_' || /\p{XID_Start}/u.test(cps[0]))) return 0;
  for (let i = 1; i < cps.length; i++) if (!/\p{XID_Continue}/u.test(cps[i])) return i;
  return cps.length;
}

class TokError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** Tokenise `source` completely; a SyntaxError stops the stream and is recorded with its token index. */
export function tokenize(rawSource: string): TokenStream {
  // CPython translates \r\n and \r to \n before tokenising a string.
  const src = rawSource.replace(/\r\n?/g, '\n');
  const tokens: Token[] = [];
  const parens: { ch: string; line: number }[] = [];
  let pos = 0;
  let line = 1;
  let atLineStart = true;

  const fail = (message: string, atLine = line): never => {
    throw new TokError(message, atLine);
  };
  const push = (type: TokenType, start: number, end: number, tokLine = line): void => {
    tokens.push({ type, text: src.slice(start, end), start, end, line: tokLine, level: parens.length });
  };

  try {
    for (;;) {
      if (atLineStart && parens.length === 0) {
        // Indentation of a new logical line; blank and comment-only lines are skipped.
        let p = pos;
        let col = 0;
        while (src[p] === ' ' || src[p] === '\t' || src[p] === '\f') {
          col = src[p] === '\f' ? 0 : col + 1; // a form feed resets the column, as in CPython
          p++;
        }
        // Lines holding only whitespace and/or a comment are skipped, even at the end of input.
        const comment = src[p] === '#';
        if (comment) while (p < src.length && src[p] !== '\n') p++;
        if (src[p] === '\n' || (comment && p >= src.length)) {
          pos = Math.min(p + 1, src.length);
          if (src[p] === '\n') line++;
          continue;
        }
        atLineStart = false;
        // Only whitespace before the end of input still counts as an indented line.
        if (col > 0) {
          push('INDENT', pos, p);
          pos = p;
          continue;
        }
        pos = p;
      }
      while (src[pos] === ' ' || src[pos] === '\t' || src[pos] === '\f') pos++;
      if (src[pos] === '#') while (pos < src.length && src[pos] !== '\n') pos++;

      const start = pos;
      const c = src[pos];
      if (pos >= src.length) {
        if (parens.length > 0) {
          const open = parens[parens.length - 1];
          return {
            source: src,
            tokens,
            error: { index: tokens.length, message: `'${open.ch}' was never closed`, line: open.line, unclosed: true },
          };
        }
        const last = tokens[tokens.length - 1];
        if (last && last.type !== 'NEWLINE') push('NEWLINE', pos, pos);
        push('ENDMARKER', pos, pos);
        return { source: src, tokens, error: null };
      }

      if (c === '\n') {
        pos++;
        if (parens.length === 0) {
          push('NEWLINE', start, pos);
          atLineStart = true;
        }
        line++;
        continue;
      }

      if (c === '\\') {
        if (src[pos + 1] !== '\n') fail('unexpected character after line continuation character');
        pos += 2;
        line++;
        continue;
      }

      if (isPotentialIdentifierStart(c)) {
        // String prefixes: the legal combinations of b, r, u and f.
        let sawB = false;
        let sawR = false;
        let sawU = false;
        let sawF = false;
        let p = pos;
        let isString = false;
        for (;;) {
          const ch = src[p];
          if (!(sawB || sawU || sawF) && (ch === 'b' || ch === 'B')) sawB = true;
          else if (!(sawB || sawU || sawR || sawF) && (ch === 'u' || ch === 'U')) sawU = true;
          else if (!(sawR || sawU) && (ch === 'r' || ch === 'R')) sawR = true;
          else if (!(sawF || sawB || sawU) && (ch === 'f' || ch === 'F')) sawF = true;
          else break;
          p++;
          if (src[p] === '"' || src[p] === "'") {
            isString = true;
            break;
          }
        }
        if (isString) {
          pos = p;
          scanString(start);
          continue;
        }
        let nonAscii = false;
        while (isPotentialIdentifierChar(src[pos])) {
          if (src.charCodeAt(pos) >= 128) nonAscii = true;
          pos++;
        }
        if (nonAscii) {
          const cps = Array.from(src.slice(start, pos));
          const bad = scanIdentifier(cps);
          if (bad < cps.length) {
            const ch = cps[bad];
            if (isPrintableChar(ch)) fail(`invalid character '${ch}' (U+${hex4(ch)})`);
            fail(`invalid non-printable character U+${hex4(ch)}`);
          }
        }
        push('NAME', start, pos);
        continue;
      }

      if (c === '.' && isDigit(src[pos + 1])) {
        pos++;
        scanFraction();
        push('NUMBER', start, pos);
        continue;
      }
      if (isDigit(c)) {
        scanNumber();
        push('NUMBER', start, pos);
        continue;
      }
      if (c === '"' || c === "'") {
        scanString(start);
        continue;
      }

      const three = src.slice(pos, pos + 3);
      const two = src.slice(pos, pos + 2);
      if (THREE_CHAR_OPS.includes(three)) {
        pos += 3;
        push('OP', start, pos);
        continue;
      }
      if (TWO_CHAR_OPS.includes(two)) {
        pos += 2;
        push('OP', start, pos);
        continue;
      }
      if (c === '(' || c === '[' || c === '{') {
        parens.push({ ch: c, line });
        pos++;
        push('OP', start, pos);
        continue;
      }
      if (c === ')' || c === ']' || c === '}') {
        if (parens.length === 0) fail(`unmatched '${c}'`);
        const open = parens[parens.length - 1];
        if (open.ch !== OPENERS[c]) {
          if (open.line !== line) {
            fail(`closing parenthesis '${c}' does not match opening parenthesis '${open.ch}' on line ${open.line}`);
          }
          fail(`closing parenthesis '${c}' does not match opening parenthesis '${open.ch}'`);
        }
        parens.pop();
        pos++;
        push('OP', start, pos);
        continue;
      }
      if (ONE_CHAR_OPS.has(c)) {
        pos++;
        push('OP', start, pos);
        continue;
      }
      const ch = String.fromCodePoint(src.codePointAt(pos)!);
      if (!isPrintableChar(ch)) fail(`invalid non-printable character U+${hex4(ch)}`);
      // '$', '?', '`', a lone '!': an error token the parser cannot use (plain "invalid syntax").
      pos += ch.length;
      push('ERRORTOKEN', start, pos);
    }
  } catch (err) {
    if (err instanceof TokError) {
      return { source: src, tokens, error: { index: tokens.length, message: err.message, line: err.line, unclosed: false } };
    }
    throw err;
  }

  function decimalTail(): void {
    for (;;) {
      while (isDigit(src[pos])) pos++;
      if (src[pos] !== '_') return;
      pos++;
      if (!isDigit(src[pos])) fail('invalid decimal literal');
    }
  }

  function verifyEndOfNumber(kind: string): void {
    const c = src[pos];
    const rest = src.slice(pos + 1);
    let keyword = false;
    if (c === 'a') keyword = rest.startsWith('nd');
    else if (c === 'e') keyword = rest.startsWith('lse');
    else if (c === 'f') keyword = rest.startsWith('or');
    else if (c === 'i') keyword = rest[0] === 'f' || rest[0] === 'n' || rest[0] === 's';
    else if (c === 'o') keyword = rest.startsWith('r');
    else if (c === 'n') keyword = rest.startsWith('ot');
    // CPython only warns when a keyword follows; any other ASCII identifier character is an error
    // (a non-ASCII letter simply starts the next token).
    if (!keyword && c !== undefined && c.charCodeAt(0) < 128 && isPotentialIdentifierChar(c)) fail(`invalid ${kind} literal`);
  }

  function scanExponentAndImaginary(): void {
    if (src[pos] === 'e' || src[pos] === 'E') {
      const ePos = pos;
      pos++;
      if (src[pos] === '+' || src[pos] === '-') {
        pos++;
        if (!isDigit(src[pos])) fail('invalid decimal literal');
      } else if (!isDigit(src[pos])) {
        pos = ePos;
        verifyEndOfNumber('decimal');
        return;
      }
      decimalTail();
    }
    if (src[pos] === 'j' || src[pos] === 'J') {
      pos++;
      verifyEndOfNumber('imaginary');
    } else {
      verifyEndOfNumber('decimal');
    }
  }

  function scanFraction(): void {
    if (isDigit(src[pos])) decimalTail();
    scanExponentAndImaginary();
  }

  function scanRadix(kind: string, isRadixDigit: (c: string | undefined) => boolean, digitErrors: boolean): void {
    pos++; // past the x/o/b
    do {
      if (src[pos] === '_') pos++;
      if (!isRadixDigit(src[pos])) {
        if (digitErrors && isDigit(src[pos])) fail(`invalid digit '${src[pos]}' in ${kind} literal`);
        fail(`invalid ${kind} literal`);
      }
      while (isRadixDigit(src[pos])) pos++;
    } while (src[pos] === '_');
    if (digitErrors && isDigit(src[pos])) fail(`invalid digit '${src[pos]}' in ${kind} literal`);
    verifyEndOfNumber(kind);
  }

  function scanNumber(): void {
    if (src[pos] === '0') {
      pos++;
      const c = src[pos];
      if (c === 'x' || c === 'X') return scanRadix('hexadecimal', isHexDigit, false);
      if (c === 'o' || c === 'O') return scanRadix('octal', (d) => d !== undefined && d >= '0' && d <= '7', true);
      if (c === 'b' || c === 'B') return scanRadix('binary', (d) => d === '0' || d === '1', true);
      let nonzero = false;
      for (;;) {
        if (src[pos] === '_') {
          pos++;
          if (!isDigit(src[pos])) fail('invalid decimal literal');
        }
        if (src[pos] !== '0') break;
        pos++;
      }
      if (isDigit(src[pos])) {
        nonzero = true;
        decimalTail();
      }
      if (src[pos] === '.') {
        pos++;
        return scanFraction();
      }
      if (src[pos] === 'e' || src[pos] === 'E' || src[pos] === 'j' || src[pos] === 'J') return scanExponentAndImaginary();
      if (nonzero) {
        fail('leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers');
      }
      return verifyEndOfNumber('decimal');
    }
    decimalTail();
    if (src[pos] === '.') {
      pos++;
      return scanFraction();
    }
    scanExponentAndImaginary();
  }

  function scanString(start: number): void {
    const quote = src[pos];
    const startLine = line;
    let quoteSize = 1;
    let endQuoteSize = 0;
    pos++;
    if (src[pos] === quote) {
      if (src[pos + 1] === quote) {
        quoteSize = 3;
        pos += 2;
      } else {
        endQuoteSize = 1;
        pos++;
      }
    }
    while (endQuoteSize !== quoteSize) {
      const c = src[pos];
      if (pos >= src.length || (quoteSize === 1 && c === '\n')) {
        // CPython reports the line on which the scan gave up.
        const detected = c === '\n' ? line : 1 + countNewlines(src.slice(0, src.endsWith('\n') ? src.length - 1 : src.length));
        if (quoteSize === 3) fail(`unterminated triple-quoted string literal (detected at line ${detected})`, startLine);
        fail(`unterminated string literal (detected at line ${detected})`, startLine);
      }
      pos++;
      if (c === quote) {
        endQuoteSize++;
      } else {
        endQuoteSize = 0;
        if (c === '\n') line++;
        if (c === '\\') {
          if (src[pos] === '\n') line++;
          if (pos < src.length) pos++;
        }
      }
    }
    push('STRING', start, pos, startLine);
  }
}

function countNewlines(s: string): number {
  let n = 0;
  for (const c of s) if (c === '\n') n++;
  return n;
}
