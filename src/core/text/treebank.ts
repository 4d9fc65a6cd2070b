// NLTK's NLTKWordTokenizer (the improved Treebank tokenizer behind `word_tokenize`), ported from
// NLTK 3.8/3.9.2 (`nltk/tokenize/destructive.py`). Later NLTK releases split en/em dashes and changed
// the clitic rule; the reference data predates that (docs/text.md). Each rule is NLTK's regex with
// Python semantics spelled out: Unicode `\w`/`\d`/`\s`, `\b` as lookarounds, `$` = end or before a
// final newline, and `(?i)` as Python's IGNORECASE (pyCaselessLiteral), not JavaScript's `i`.
import { isPySpaceCode, PY_SPACE_CODES } from '../py/format.ts';
import { B_AFTER_WORD, B_BEFORE_WORD, D, END, pyCaselessLiteral, pySplit, S, W } from '../py/re.ts';

/**
 * One substitution: NLTK's regex and replacement, plus a cheap necessary condition on the current text
 * (a character or substring every match must contain). Skipping a rule whose trigger is absent cannot
 * change the result and saves most of the regex scans (bench/text.ts).
 */
type Rule = readonly [RegExp, string, (text: string) => boolean];

const rule = (source: string, replacement: string, trigger: (text: string) => boolean): Rule => [
  new RegExp(source, 'gu'),
  replacement,
  trigger,
];
const has = (...needles: string[]) =>
  needles.length === 1
    ? (text: string): boolean => text.includes(needles[0])
    : (text: string): boolean => {
        for (let i = 0; i < needles.length; i++) if (text.includes(needles[i])) return true;
        return false;
      };

// Python `(?i)` alternatives of a few letters, e.g. (?!re|ve|…) → explicit classes.
const ci = (alternatives: string[]): string => alternatives.map(pyCaselessLiteral).join('|');

const STARTING_QUOTES: Rule[] = [
  rule('([«“‘„]|[`]+)', ' $1 ', has('«', '“', '‘', '„', '`')),
  rule('^"', '``', (t) => t.startsWith('"')),
  rule('(``)', ' $1 ', has('``')),
  rule(`([ ([{<])("|'{2})`, '$1 `` ', has('"', "''")),
  rule(`(')(?!${ci(['re', 've', 'll', 'm', 't', 's', 'd', 'n'])})(${W})${B_AFTER_WORD}`, '$1 $2', has("'")),
];

const PUNCTUATION: Rule[] = [
  rule(`([^.])(\\.)([\\])}>"'»”’ ]*)${S}*${END}`, '$1 $2 $3 ', has('.')),
  rule(`([:,])([^${D}])`, ' $1 $2', has(':', ',')),
  rule(`([:,])${END}`, ' $1 ', has(':', ',')),
  rule('\\.{2,}', ' $& ', has('..')),
  rule('[;@#$%&]', ' $& ', has(';', '@', '#', '$', '%', '&')),
  rule(`([^.])(\\.)([\\])}>"']*)${S}*${END}`, '$1 $2$3 ', has('.')),
  rule('[?!]', ' $& ', has('?', '!')),
  rule("([^'])' ", "$1 ' ", has("' ")),
  rule('[*]', ' $& ', has('*')),
];

const PARENS_BRACKETS: Rule = rule('[\\][(){}<>]', ' $& ', has('[', ']', '(', ')', '{', '}', '<', '>'));
const DOUBLE_DASHES: Rule = rule('--', ' -- ', has('--'));

const ENDING_QUOTES: Rule[] = [
  rule('([»”’])', ' $1 ', has('»', '”', '’')),
  rule("''", " '' ", has("''")),
  rule('"', " '' ", has('"')),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 ', has("'")),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 ', has("'")),
];

// MacIntyre contractions: (?i)\b(can)(not)\b … ; CONTRACTIONS3: (?i) ('t)(is)\b. Each carries its
// lower-case literal: earlier rules only insert spaces and replace quotes with space-padded tokens, so a
// match in the current text implies the literal in the lower-cased input sentence, unless the sentence
// has one of the characters Python's IGNORECASE equates with i or s (İ, ı, ſ), which disables the shortcut.
type Contraction = readonly [RegExp, string, string];
const contraction2 = (a: string, b: string, tail = B_AFTER_WORD): Contraction => [
  new RegExp(`${B_BEFORE_WORD}(${pyCaselessLiteral(a)})(${pyCaselessLiteral(b)})${tail}`, 'gu'),
  ' $1 $2 ',
  a + b,
];
const contraction3 = (a: string, b: string): Contraction => [
  new RegExp(` (${pyCaselessLiteral(a)})(${pyCaselessLiteral(b)})${B_AFTER_WORD}`, 'gu'),
  ' $1 $2 ',
  a + b,
];
const CONTRACTIONS: Contraction[] = [
  contraction2('can', 'not'),
  contraction2('d', "'ye"),
  contraction2('gim', 'me'),
  contraction2('gon', 'na'),
  contraction2('got', 'ta'),
  contraction2('lem', 'me'),
  contraction2('more', "'n"),
  contraction2('wan', 'na', `(?=${S})`),
  contraction3("'t", 'is'),
  contraction3("'t", 'was'),
];
const ODD_CASE = /[\u0130\u0131\u017f]/u;

function apply(text: string, rules: readonly Rule[]): string {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (rule[2](text)) text = text.replace(rule[0], rule[1]);
  }
  return text;
}

const BRACKETS_AND_DASHES = [PARENS_BRACKETS, DOUBLE_DASHES];

/** NLTK `NLTKWordTokenizer().tokenize(sentence)` (convert_parentheses=False). */
export function treebankWordTokenize(sentence: string): string[] {
  const out: string[] = [];
  treebankTokensInto(sentence, out);
  return out;
}

/** Appends the tokens of `sentence` (NLTKWordTokenizer) to `out`. */
export function treebankTokensInto(sentence: string, out: string[]): void {
  if (!scanTreebankInto(sentence, out)) for (const t of treebankRegexTokenize(sentence)) out.push(t);
}

/**
 * The port rule by rule: NLTK's substitutions in NLTK's order on the whole sentence. The reference for
 * simpleTreebankTokens, and what every sentence outside its character shapes goes through.
 */
export function treebankRegexTokenize(sentence: string): string[] {
  let text = apply(sentence, STARTING_QUOTES);
  text = apply(text, PUNCTUATION);
  text = apply(text, BRACKETS_AND_DASHES);
  text = ' ' + text + ' ';
  text = apply(text, ENDING_QUOTES);
  const lower = sentence.toLowerCase();
  const odd = ODD_CASE.test(sentence);
  for (const [re, replacement, literal] of CONTRACTIONS) {
    if (odd || lower.includes(literal)) text = text.replace(re, replacement);
  }
  return pySplit(text);
}

// ---------------------------------------------------------------------------------------------
// A single-pass scanner for the common shapes, equal to the rules above wherever it answers.
//
// Every rule above only inserts spaces around characters or rewrites quote characters, and almost
// all of them look at one character of context at most. So for sentences made of these pieces the
// tokens follow from one left-to-right scan, with no intermediate strings:
//   - characters no rule mentions (letters, digits, —, …, /, emoji …) stay glued together;
//   - `; @ # $ % & ? ! * ( ) [ ] { } < > « “ ‘ „ » ” ’` always become tokens of their own;
//   - `,` and `:` become their own token unless a decimal digit follows (1,000 and 10:30 stay);
//   - `"` becomes ` `` ` at the start, after an ASCII space, after `( [ { <` or an opening quote
//     (which got a space before it), and `''` anywhere else;
//   - a `.` stays glued, except the sentence-final one (followed only by closing brackets or quotes
//     and whitespace), which becomes its own token;
//   - one ASCII apostrophe inside a word: `'s 'm 'd 'll 're 've n't` (exactly these cases) split off
//     when a space follows (an ASCII space, the sentence end, or a character that gets a space before
//     it); otherwise the word stays whole.
//   - a run of two or more periods (an ellipsis) is a token of its own; a run of hyphens gives one
//     "--" per pair, from the left, and an odd last hyphen starts the next word;
// Anything else (backticks, `''`, `,,`, leading or doubled apostrophes,
// one-letter apostrophe suffixes, the MacIntyre contractions, İ ı ſ, mixed whitespace after a final
// period) returns null and goes through the rules. test/text/treebank-fast.test.ts compares the two exhaustively over
// short strings of every interesting character and on random sentences.

const GLUE = 0;
const SPLIT = 1;
const COMMA = 2;
const QUOTE = 3;
const DOT = 4;
const HYPHEN = 5;
const APOS = 6;
const SPACE = 7;
const BAIL = 8;

let kinds: Uint8Array | null = null;

function kindTable(): Uint8Array {
  if (kinds) return kinds;
  const t = new Uint8Array(0x10000);
  for (const c of PY_SPACE_CODES) t[c] = SPACE;
  for (const ch of ';@#$%&?!*()[]{}<>\u00ab\u201c\u2018\u201e\u00bb\u201d\u2019') t[ch.charCodeAt(0)] = SPLIT;
  t[0x2c] = COMMA; // ,
  t[0x3a] = COMMA; // :
  t[0x22] = QUOTE; // "
  t[0x2e] = DOT;
  t[0x2d] = HYPHEN;
  t[0x27] = APOS;
  for (const c of [0x60, 0x130, 0x131, 0x17f]) t[c] = BAIL; // ` and the characters Python's IGNORECASE equates with i or s
  return (kinds = t);
}

/** Characters that can follow a sentence-final period inside NLTK's rule (without the space). */
const CLOSERS = new Set([0x5d, 0x29, 0x7d, 0x3e, 0x22, 0x27, 0xbb, 0x201d, 0x2019]);
const OPENS_QUOTE = new Set([0x20, 0x28, 0x5b, 0x7b, 0x3c, 0xab, 0x201c, 0x2018, 0x201e]);

function isDecimalDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c > 0x7f && DECIMAL_DIGIT.test(String.fromCharCode(c)));
}
const DECIMAL_DIGIT = /^\p{Nd}$/u;

function isAsciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/**
 * Index of the period NLTK's PUNCTUATION rule splits off at the end (`([^.])(\.)([\])}>"'»”’ ]*)\s*$`),
 * -1 when there is none, -2 when the tail is a shape the scanner leaves to the rules.
 */
function finalPeriod(s: string): number {
  let j = s.length;
  while (j > 0 && isPySpaceCode(s.charCodeAt(j - 1))) j--;
  const tail = j;
  while (j > 0 && CLOSERS.has(s.charCodeAt(j - 1))) j--;
  if (j > 0 && s.charCodeAt(j - 1) === 0x2e) {
    // An ellipsis ("word...") is not a final period: NLTK's rule needs a non-period before it.
    if (j > 1 && s.charCodeAt(j - 2) === 0x2e) return -1;
    for (let k = j; k < tail; k++) if (s.charCodeAt(k) === 0x27) return -2;
    return j - 1;
  }
  // A period followed by closers *and spaces* ("end. )") also ends the sentence for NLTK: leave it to the rules.
  while (j > 0 && (CLOSERS.has(s.charCodeAt(j - 1)) || isPySpaceCode(s.charCodeAt(j - 1)))) j--;
  return j > 0 && s.charCodeAt(j - 1) === 0x2e ? -2 : -1;
}

/** Whether a word (ASCII case ignored) holds one of the MacIntyre contractions NLTK splits ("gonna" → "gon na"). */
function hasContraction(word: string): boolean {
  const w = word.toLowerCase();
  return (
    w.includes('cannot') || w.includes('gimme') || w.includes('gonna') || w.includes('gotta') || w.includes('lemme') || w.includes('wanna')
  );
}

/**
 * Pushes the glued word s[start, end), unless it may hold a MacIntyre contraction (then false: the
 * rules take the sentence). One function for the scanner's four word ends: docs/performance.md#deoptimisations
 */
function pushWord(s: string, start: number, end: number, doubled: boolean, out: string[]): boolean {
  const word = s.slice(start, end);
  if (doubled && hasContraction(word)) return false;
  out.push(word);
  return true;
}

/** The letter pairs every letters-only MacIntyre contraction contains ("nn", "mm" or "tt", any case). */
function doubledNMT(prev: number, c: number): boolean {
  const l = c | 0x20;
  return (l === 0x6e || l === 0x6d || l === 0x74) && (prev | 0x20) === l;
}

/** NLTK's tokens for `sentence` when it has only the shapes described above; null otherwise. */
export function simpleTreebankTokens(s: string): string[] | null {
  const out: string[] = [];
  return scanTreebankInto(s, out) ? out : null;
}

/**
 * Appends NLTK's tokens for `s` to `out` and returns true, when `s` has only the shapes the scanner
 * covers; otherwise leaves `out` as it was and returns false.
 */
export function scanTreebankInto(s: string, out: string[]): boolean {
  const kind = kindTable();
  const n = s.length;
  const fp = finalPeriod(s);
  if (fp === -2) return false;
  const mark = out.length;
  let start = -1; // start of the glued word being built
  let doubled = false; // the word has "nn", "mm" or "tt": it may hold a MacIntyre contraction
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    const k = kind[c];
    if (k === GLUE) {
      if (start < 0) {
        start = i;
        doubled = false;
      } else if (!doubled && doubledNMT(s.charCodeAt(i - 1), c)) doubled = true;
      continue;
    }
    if (k === HYPHEN || (k === DOT && i !== fp)) {
      if (i + 1 < n && s.charCodeAt(i + 1) === c) {
        // A run: ".." or longer is one token (NLTK's \.{2,} rule); hyphens are paired off from the
        // left ("--" → " -- "), and an odd one out starts the next word ("---a" → "--", "-a").
        let r = i + 2;
        while (r < n && s.charCodeAt(r) === c) r++;
        if (start >= 0) {
          if (!pushWord(s, start, i, doubled, out)) break;
          start = -1;
        }
        if (k === DOT) out.push(s.slice(i, r));
        else {
          for (let d = i; d + 1 < r; d += 2) out.push('--');
          if ((r - i) % 2 === 1) {
            start = r - 1;
            doubled = false;
          }
        }
        i = r - 1;
        continue;
      }
      if (start < 0) {
        start = i;
        doubled = false;
      }
      continue;
    }
    // Everything else ends the word being built.
    if (start >= 0 && k !== APOS && k !== COMMA) {
      if (!pushWord(s, start, i, doubled, out)) break;
      start = -1;
    }
    if (k === SPACE) continue;
    if (k === SPLIT) {
      out.push(s[i]);
      continue;
    }
    if (k === DOT) {
      out.push('.'); // the sentence-final period
      continue;
    }
    if (k === COMMA) {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : -1;
      if (next >= 0 && kind[next] === COMMA) break;
      if (next >= 0 && isDecimalDigit(next)) {
        if (start < 0) {
          start = i;
          doubled = false;
        }
        continue;
      }
      if (start >= 0) {
        if (!pushWord(s, start, i, doubled, out)) break;
        start = -1;
      }
      out.push(s[i]);
      continue;
    }
    if (k === QUOTE) {
      const prev = i > 0 ? s.charCodeAt(i - 1) : -1;
      const next = i + 1 < n ? s.charCodeAt(i + 1) : -1;
      if (prev === 0x22 || prev === 0x27 || next === 0x22 || next === 0x27) break;
      out.push(prev < 0 || OPENS_QUOTE.has(prev) ? '``' : "''");
      continue;
    }
    if (k !== APOS) break; // BAIL: a character only the rules handle
    // An apostrophe inside a word (pre'suffix): the word before it must exist.
    if (start < 0) break;
    const j = apostropheWord(s, start, i, fp, doubled, kind, out);
    if (j < 0) break;
    start = -1;
    i = j - 1;
  }
  if (i === n && start >= 0) {
    if (!pushWord(s, start, n, doubled, out)) i = -1;
  }
  if (i === n) return true;
  out.length = mark; // bailed out: the rules take the whole sentence
  return false;
}

/**
 * The word with an apostrophe inside it (pre'suffix, the apostrophe at `i`, the word from `start`):
 * pushes its tokens and returns the index after the suffix, or -1 when the rules must take the
 * sentence. Its own function (docs/performance.md#deoptimisations).
 */
function apostropheWord(s: string, start: number, i: number, fp: number, doubled: boolean, kind: Uint8Array, out: string[]): number {
  const n = s.length;
  let j = i + 1;
  while (j < n && isAsciiLetter(s.charCodeAt(j))) j++;
  const after = j < n ? s.charCodeAt(j) : -1;
  const ka = after < 0 ? SPACE : kind[after];
  // What follows the suffix must end the word; a space must follow for the split rules to apply.
  let spaced: boolean;
  // (A run of periods, or "--", gets a space before it too.)
  if (
    after < 0 ||
    after === 0x20 ||
    ka === SPLIT ||
    (ka === DOT && j === fp) ||
    ((ka === DOT || ka === HYPHEN) && s.charCodeAt(j + 1) === after)
  )
    spaced = true;
  else if (ka === SPACE) spaced = false;
  else if (ka === COMMA) {
    const next = j + 1 < n ? s.charCodeAt(j + 1) : -1;
    if (next >= 0 && (kind[next] === COMMA || isDecimalDigit(next))) return -1;
    spaced = true;
  } else return -1;
  const suffix = s.slice(i + 1, j);
  const pre = s.slice(start, i);
  // d'ye and more'n are contractions too; so is a letters-only one on either side of the apostrophe.
  if ((doubled && hasContraction(pre)) || (suffix.length >= 5 && hasContraction(suffix))) return -1;
  const sl = suffix.toLowerCase();
  if (
    (sl.startsWith('ye') && (pre.charCodeAt(pre.length - 1) | 0x20) === 0x64) ||
    (sl.startsWith('n') && pre.toLowerCase().endsWith('more'))
  )
    return -1;
  let cut = -1; // where the word splits, or -1 when it stays whole
  switch (suffix) {
    case '':
    case 's':
    case 'S':
    case 'm':
    case 'M':
    case 'd':
    case 'D':
    case 'll':
    case 'LL':
    case 're':
    case 'RE':
    case 've':
    case 'VE':
      cut = i;
      break;
    case 't':
    case 'T':
      if (s.charCodeAt(i - 1) === (suffix === 't' ? 0x6e : 0x4e)) {
        if (i - 1 <= start) cut = -2;
        else cut = i - 1;
      }
      break;
    default:
      // One other letter: NLTK's (?i)(')(?!re|ve|ll|m|t|s|d|n)(\w)\b applies; leave it to the rules.
      if (suffix.length === 1 && suffix !== 'n' && suffix !== 'N') cut = -2;
  }
  if (cut === -2) return -1;
  if (spaced && cut >= 0) out.push(s.slice(start, cut), s.slice(cut, j));
  else out.push(s.slice(start, j));
  return j;
}
