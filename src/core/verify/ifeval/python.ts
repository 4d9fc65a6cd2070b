// The Python semantics IFEval's checks depend on, beyond what text/ and util/ already provide:
// str.isupper()/islower(), `re.findall(r"\w+")`, Python's `json.loads` acceptance, and patterns
// written with Python's `^`/`$`/`.`/`\s` meanings (JavaScript's differ at \r, U+2028 and U+2029).
import { S, W } from '../../py/re.ts';
import { bmpWordTable, wordCharBefore, wordCharLength } from '../../text/chars.ts';

const LOWER = /\p{Lowercase}/u;
const UPPER = /\p{Uppercase}/u;
const TITLE = /\p{Lt}/u;

/** Python `str.isupper()`: no lower-case or title-case character, and at least one upper-case one. */
export function pyIsUpper(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (LOWER.test(ch) || TITLE.test(ch)) return false;
    if (!cased && UPPER.test(ch)) cased = true;
  }
  return cased;
}

/** Python `str.islower()`. */
export function pyIsLower(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (UPPER.test(ch) || TITLE.test(ch)) return false;
    if (!cased && LOWER.test(ch)) cased = true;
  }
  return cased;
}

const WORDS = new RegExp(`${W}+`, 'gu');

/** instructions_util.count_words: NLTK `RegexpTokenizer(r"\w+")` tokens (Python's Unicode `\w`). */
export function countRegexWords(text: string): number {
  let n = 0;
  WORDS.lastIndex = 0;
  while (WORDS.exec(text)) n++;
  return n;
}

/** Python `len(s)` (code points). */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Python `s.strip(chars)` for a set of single characters. */
export function pyStripChars(s: string, chars: string): string {
  const set = new Set(chars);
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (a < b && set.has(cps[a])) a++;
  while (b > a && set.has(cps[b - 1])) b--;
  return cps.slice(a, b).join('');
}

/** Python regex building blocks (no `m` flag: JavaScript's would also break lines at \r, U+2028, U+2029). */
export const PY = {
  /** `^` with re.MULTILINE. */
  lineStart: '(?<![^\\n])',
  /** `$` with re.MULTILINE. */
  lineEnd: '(?=\\n|$)',
  /** `.` without re.DOTALL. */
  any: '[^\\n]',
  space: S,
  word: W,
} as const;

/** Python `\b` (Unicode word characters). */
export const PY_BOUNDARY = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;

/** Python `\b` at `i`: a word character on exactly one side (chars.ts's table of Python's `\w`). */
function boundaryAt(text: string, i: number, table: Uint8Array): boolean {
  return wordCharBefore(text, i, table) !== wordCharLength(text, i, table) > 0;
}

/**
 * `re.search(r"\b" + literal + r"\b", text)` for `literal`, a global pattern of the literal alone:
 * the literal's matches are tried at every start, in order, as the regex search would, and the two
 * boundaries checked by hand. Equivalent to the pattern with PY_BOUNDARY on both sides (at a given
 * start a literal of fixed characters has one possible end); why: docs/performance.md#regular-expressions
 */
export function hasBoundedLiteral(text: string, literal: RegExp): boolean {
  const table = bmpWordTable();
  literal.lastIndex = 0;
  for (let m = literal.exec(text); m !== null; m = literal.exec(text)) {
    if (boundaryAt(text, m.index, table) && boundaryAt(text, m.index + m[0].length, table)) return true;
    literal.lastIndex = m.index + (text.codePointAt(m.index)! > 0xffff ? 2 : 1);
    if (literal.lastIndex > text.length) break;
  }
  return false;
}

/**
 * Whether Python's `json.loads(s)` accepts `s`: standard JSON plus Python's NaN, Infinity and
 * -Infinity, surrounded by JSON whitespace. (JavaScript's JSON.parse refuses NaN/Infinity.)
 */
export function pyJsonLoads(s: string): boolean {
  let i = 0;
  const n = s.length;
  const ws = () => {
    while (i < n && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++;
  };
  const lit = (word: string) => {
    if (s.startsWith(word, i)) {
      i += word.length;
      return true;
    }
    return false;
  };
  const str = (): boolean => {
    if (s[i] !== '"') return false;
    i++;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false; // strict=True: control characters must be escaped
      if (c === 0x5c) {
        const e = s[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return false;
      } else i++;
    }
    return false;
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
  const num = (): boolean => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(s);
    if (!m) return false;
    i += m[0].length;
    return true;
  };
  const value = (depth: number): boolean => {
    if (depth > 900) return false;
    ws();
    const c = s[i];
    if (c === '{') {
      i++;
      ws();
      if (s[i] === '}') {
        i++;
        return true;
      }
      for (;;) {
        ws();
        if (!str()) return false;
        ws();
        if (s[i] !== ':') return false;
        i++;
        if (!value(depth + 1)) return false;
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === '}') {
          i++;
          return true;
        }
        return false;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (s[i] === ']') {
        i++;
        return true;
      }
      for (;;) {
        if (!value(depth + 1)) return false;
        ws();
        if (s[i] === ',') {
          i++;
          continue;
        }
        if (s[i] === ']') {
          i++;
          return true;
        }
        return false;
      }
    }
    if (c === '"') return str();
    if (lit('true') || lit('false') || lit('null') || lit('NaN') || lit('Infinity') || lit('-Infinity')) return true;
    return num();
  };
  if (!value(0)) return false;
  ws();
  return i === n;
}
