// IFEval's 25 verifiable instructions (google-research instruction_following_eval: instructions.py,
// instructions_util.py, instructions_registry.py), each as: the kwargs it takes, normalised exactly
// as `build_description` normalises them, and `check_following` with Python's semantics, plus what
// was measured and what is required (for feedback). Where `build_description` would draw a random
// value (a kwarg missing or out of range), revloop refuses the case instead (argsProblem).
//
// One named deviation: for keywords:letter_frequency with a letter outside a–z (IFEval keys 1122
// "#" and 1129 "!"), the checker at the data's revision (26d8ccdab) checks a *random* letter;
// revloop counts the given character, as google-research's later revision also does.
import { sentTokenize, wordTokenize } from '../../text/tokenize.ts';
import { escapeLiteralChar, pyCaselessLiteral, pySplit } from '../../py/re.ts';
import { pyStrip } from '../../py/format.ts';
import { LangDetectError, detectLanguage } from './langdetect/detector.ts';
import { PY, countRegexWords, hasBoundedLiteral, pyIsLower, pyIsUpper, pyJsonLoads, pyLen, pyStripChars } from './python.ts';

/** ISO 639-1 codes of instructions_util.LANGUAGE_CODES and their names (used in prompts and feedback). */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'English',
  es: 'Spanish',
  pt: 'Portuguese',
  ar: 'Arabic',
  hi: 'Hindi',
  fr: 'French',
  ru: 'Russian',
  de: 'German',
  ja: 'Japanese',
  it: 'Italian',
  bn: 'Bengali',
  uk: 'Ukrainian',
  th: 'Thai',
  ur: 'Urdu',
  ta: 'Tamil',
  te: 'Telugu',
  bg: 'Bulgarian',
  ko: 'Korean',
  pl: 'Polish',
  he: 'Hebrew',
  fa: 'Persian',
  vi: 'Vietnamese',
  ne: 'Nepali',
  sw: 'Swahili',
  kn: 'Kannada',
  mr: 'Marathi',
  gu: 'Gujarati',
  pa: 'Punjabi',
  ml: 'Malayalam',
  fi: 'Finnish',
};

const RELATIONS = ['less than', 'at least'] as const;
type Relation = (typeof RELATIONS)[number];

/** What a check found: whether the instruction is followed, what was measured, what is required. */
export interface CheckResult {
  followed: boolean;
  measured: string;
  required: string;
}

/** Memoised language detection for one evaluation (the same text is detected once). */
interface CheckContext {
  detect(text: string): string | LangDetectError;
}

export function createCheckContext(): CheckContext {
  const cache = new Map<string, string | LangDetectError>();
  return {
    detect(text) {
      let v = cache.get(text);
      if (v === undefined) {
        try {
          v = detectLanguage(text);
        } catch (e) {
          if (!(e instanceof LangDetectError)) throw e;
          v = e;
        }
        cache.set(text, v);
      }
      return v;
    },
  };
}

interface Spec<A> {
  /** The kwargs keys build_description takes. */
  keys: readonly string[];
  /** Normalised arguments, or a problem (a string) where the official checker would fail or draw at random. */
  args(kw: Record<string, unknown>): A | string;
  check(value: string, args: A, ctx: CheckContext): CheckResult;
}

// ---- helpers -------------------------------------------------------------------------------

const plural = (n: number, one: string, many = one + 's') => `${n} ${n === 1 ? one : many}`;
const quote = (s: string) => JSON.stringify(s);

function intArg(kw: Record<string, unknown>, key: string, min = 0): number | string {
  const v = kw[key];
  if (v === undefined || v === null) return `${key}: required (the official checker would draw a random value)`;
  if (typeof v !== 'number' || !Number.isInteger(v)) return `${key}: must be an integer, got ${JSON.stringify(v)}`;
  if (v < min) return `${key}: must be at least ${min} (the official checker would draw a random value), got ${v}`;
  return v;
}

/** A kwarg the case cannot have (the message names the kwarg). */
class Problem {
  constructor(readonly message: string) {}
}

function relationArg(kw: Record<string, unknown>, key: string): Relation | Problem {
  const v = kw[key];
  if (v === undefined || v === null) return new Problem(`${key}: required (the official checker would draw a random value)`);
  if (!RELATIONS.includes(v as Relation)) return new Problem(`${key}: must be "less than" or "at least", got ${JSON.stringify(v)}`);
  return v as Relation;
}

function stringArg(kw: Record<string, unknown>, key: string): string | Problem {
  const v = kw[key];
  if (typeof v !== 'string' || v === '')
    return new Problem(`${key}: required, a non-empty string (the official checker would draw a random value)`);
  return v;
}

const LITERAL = /^[^.^$*+?{}[\]\\|()]*$/;

/** Keywords are regular expressions in the official checker; revloop accepts the literal ones (all of IFEval's). */
function literalProblem(key: string, v: string): string | null {
  return LITERAL.test(v)
    ? null
    : `${key}: ${JSON.stringify(v)} contains regular-expression syntax; the official checker would read it as a pattern, revloop accepts literal words only`;
}

function isProblem(x: unknown): x is Problem {
  return x instanceof Problem;
}

function compare(relation: Relation, n: number, threshold: number): boolean {
  return relation === 'less than' ? n < threshold : n >= threshold;
}

function requiredCount(relation: Relation, threshold: number, what: string, many?: string): string {
  return relation === 'less than' ? `fewer than ${plural(threshold, what, many)}` : `at least ${plural(threshold, what, many)}`;
}

// Compiled patterns, once per key (the instruction and its literal): every response (and each of
// loose mode's eight variants) is checked against the same few patterns
// (docs/performance.md#regular-expressions). Shared safely: the `g` patterns are only used with
// match() and split(), which start from 0.
const patterns = new Map<string, RegExp>();
function pattern(key: string, source: () => string, flags: string): RegExp {
  let re = patterns.get(key);
  if (re === undefined) {
    if (patterns.size >= 4096) patterns.delete(patterns.keys().next().value as string);
    re = new RegExp(source(), flags);
    patterns.set(key, re);
  }
  return re;
}

const caseless = (literal: string, flags = 'gu') => pattern(`caseless ${flags} ${literal}`, () => pyCaselessLiteral(literal), flags);

/** Python code-point order (JavaScript's default sort compares UTF-16 units). */
function pySorted(xs: readonly string[]): string[] {
  return [...xs].sort((a, b) => {
    const A = [...a].map((c) => c.codePointAt(0)!);
    const B = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(A.length, B.length); i++) if (A[i] !== B[i]) return A[i] - B[i];
    return A.length - B.length;
  });
}

function stringList(kw: Record<string, unknown>, key: string): string[] | string {
  const v = kw[key];
  if (!Array.isArray(v) || v.length === 0)
    return `${key}: required, a non-empty list of strings (the official checker would draw random words)`;
  const bad = v.find((x) => typeof x !== 'string');
  if (bad !== undefined) return `${key}: every entry must be a string, got ${JSON.stringify(bad)}`;
  for (const w of v as string[]) {
    const p = literalProblem(key, w);
    if (p) return p;
  }
  return v as string[];
}

function languageCheck(value: string, ctx: CheckContext, extra: boolean, language: string): { ok: boolean; detected: string } {
  if (!extra) return { ok: false, detected: '' };
  const d = ctx.detect(value);
  // LangDetectException: "Count as instruction is followed."
  if (d instanceof LangDetectError) return { ok: true, detected: 'undetectable' };
  return { ok: d === language, detected: d };
}

const languageLabel = (code: string) => (LANGUAGE_NAMES[code] ? `${LANGUAGE_NAMES[code]} (${code})` : code);

// ---- the 25 instructions ----------------------------------------------------------------------

const noArgs = { keys: [] as const, args: () => ({}) };

const SPECS: Record<string, Spec<any>> = {
  'keywords:existence': {
    keys: ['keywords'],
    args: (kw) => {
      const v = stringList(kw, 'keywords');
      return typeof v === 'string' ? v : { keywords: pySorted(v) };
    },
    check: (value, a: { keywords: string[] }) => {
      const missing = a.keywords.filter((k) => !caseless(k, 'u').test(value));
      return {
        followed: missing.length === 0,
        measured: missing.length ? `missing ${missing.map(quote).join(', ')}` : 'every keyword is present',
        required: `include ${a.keywords.map(quote).join(', ')} (case-insensitive)`,
      };
    },
  },
  'keywords:frequency': {
    keys: ['keyword', 'frequency', 'relation'],
    args: (kw) => {
      const keyword = stringArg(kw, 'keyword');
      if (isProblem(keyword)) return keyword.message;
      const problem = literalProblem('keyword', keyword.trim());
      if (problem) return problem;
      const frequency = intArg(kw, 'frequency');
      if (typeof frequency === 'string') return frequency;
      const relation = relationArg(kw, 'relation');
      if (isProblem(relation)) return relation.message;
      return { keyword: pyStrip(keyword), frequency, relation };
    },
    check: (value, a: { keyword: string; frequency: number; relation: Relation }) => {
      const n = a.keyword === '' ? pyLen(value) + 1 : (value.match(caseless(a.keyword)) ?? []).length;
      return {
        followed: compare(a.relation, n, a.frequency),
        measured: `${quote(a.keyword)} appears ${plural(n, 'time')}`,
        required: requiredCount(a.relation, a.frequency, 'time'),
      };
    },
  },
  'keywords:forbidden_words': {
    keys: ['forbidden_words'],
    args: (kw) => {
      const v = stringList(kw, 'forbidden_words');
      return typeof v === 'string' ? v : { words: pySorted([...new Set(v)]) };
    },
    check: (value, a: { words: string[] }) => {
      const found = a.words.filter((w) => hasBoundedLiteral(value, caseless(w)));
      return {
        followed: found.length === 0,
        measured: found.length ? `the response uses ${found.map(quote).join(', ')}` : 'no forbidden word is used',
        required: `do not use ${a.words.map(quote).join(', ')}`,
      };
    },
  },
  'keywords:letter_frequency': {
    keys: ['letter', 'let_frequency', 'let_relation'],
    args: (kw) => {
      const letter = kw.letter;
      if (typeof letter !== 'string' || pyLen(letter) !== 1)
        return `letter: must be one character, got ${JSON.stringify(letter)} (the official checker would draw a random letter)`;
      const frequency = intArg(kw, 'let_frequency');
      if (typeof frequency === 'string') return frequency;
      const relation = relationArg(kw, 'let_relation');
      if (isProblem(relation)) return relation.message;
      return { letter: pyStrip(letter).toLowerCase(), frequency, relation };
    },
    check: (value, a: { letter: string; frequency: number; relation: Relation }) => {
      let n = 0;
      if (a.letter !== '') for (const ch of value.toLowerCase()) if (ch === a.letter) n++;
      return {
        followed: compare(a.relation, n, a.frequency),
        measured: `the letter ${quote(a.letter)} appears ${plural(n, 'time')}`,
        required: requiredCount(a.relation, a.frequency, 'time'),
      };
    },
  },
  'language:response_language': {
    keys: ['language'],
    args: (kw) => {
      const language = stringArg(kw, 'language');
      return isProblem(language) ? language.message : { language };
    },
    check: (value, a: { language: string }, ctx) => {
      const { ok, detected } = languageCheck(value, ctx, true, a.language);
      return {
        followed: ok,
        measured: detected === 'undetectable' ? 'no language could be detected' : `the response is detected as ${languageLabel(detected)}`,
        required: `write the entire response in ${languageLabel(a.language)}`,
      };
    },
  },
  'length_constraints:number_sentences': {
    keys: ['num_sentences', 'relation'],
    args: (kw) => {
      const num = intArg(kw, 'num_sentences');
      if (typeof num === 'string') return num;
      const relation = relationArg(kw, 'relation');
      return isProblem(relation) ? relation.message : { num, relation };
    },
    check: (value, a: { num: number; relation: Relation }) => {
      const n = sentTokenize(value).length;
      return {
        followed: compare(a.relation, n, a.num),
        measured: `${plural(n, 'sentence')} (NLTK Punkt)`,
        required: requiredCount(a.relation, a.num, 'sentence'),
      };
    },
  },
  'length_constraints:number_paragraphs': {
    keys: ['num_paragraphs'],
    args: (kw) => {
      const num = intArg(kw, 'num_paragraphs');
      return typeof num === 'string' ? num : { num };
    },
    check: (value, a: { num: number }) => {
      const paragraphs = value.split(pattern('paragraphs', () => `${PY.space}?\\*\\*\\*${PY.space}?`, 'u'));
      let n = paragraphs.length;
      let emptyInside = false;
      paragraphs.forEach((p, i) => {
        if (pyStrip(p) === '') {
          if (i === 0 || i === paragraphs.length - 1) n--;
          else emptyInside = true;
        }
      });
      return {
        followed: !emptyInside && n === a.num,
        measured: emptyInside ? 'an empty paragraph between two *** dividers' : `${plural(n, 'paragraph')} separated by ***`,
        required: `exactly ${plural(a.num, 'paragraph')} separated by the markdown divider ***`,
      };
    },
  },
  'length_constraints:number_words': {
    keys: ['num_words', 'relation'],
    args: (kw) => {
      const num = intArg(kw, 'num_words');
      if (typeof num === 'string') return num;
      const relation = relationArg(kw, 'relation');
      return isProblem(relation) ? relation.message : { num, relation };
    },
    check: (value, a: { num: number; relation: Relation }) => {
      const n = countRegexWords(value);
      return { followed: compare(a.relation, n, a.num), measured: plural(n, 'word'), required: requiredCount(a.relation, a.num, 'word') };
    },
  },
  'length_constraints:nth_paragraph_first_word': {
    keys: ['num_paragraphs', 'nth_paragraph', 'first_word'],
    args: (kw) => {
      const num = intArg(kw, 'num_paragraphs');
      if (typeof num === 'string') return num;
      const nth = intArg(kw, 'nth_paragraph', 1);
      if (typeof nth === 'string') return nth;
      if (nth > num)
        return `nth_paragraph: must be at most num_paragraphs (${num}), got ${nth} (the official checker would draw a random value)`;
      const first = stringArg(kw, 'first_word');
      if (isProblem(first)) return first.message;
      return { num, nth, first: first.toLowerCase() };
    },
    check: (value, a: { num: number; nth: number; first: string }) => {
      const required = `exactly ${plural(a.num, 'paragraph')} separated by blank lines, paragraph ${a.nth} starting with ${quote(a.first)}`;
      const paragraphs = value.split('\n\n');
      let n = paragraphs.length;
      for (const p of paragraphs) if (pyStrip(p) === '') n--;
      if (a.nth > n) return { followed: false, measured: `${plural(n, 'paragraph')}: there is no paragraph ${a.nth}`, required };
      const paragraph = pyStrip(paragraphs[a.nth - 1]);
      if (!paragraph) return { followed: false, measured: `paragraph ${a.nth} is empty`, required };
      // paragraph.split()[0].strip().lstrip("'").lstrip('"')
      const word = pyStrip(pySplit(paragraph)[0]).replace(/^'+/, '').replace(/^"+/, '');
      let first = '';
      for (const ch of word) {
        if ('.,?!\'"'.includes(ch)) break;
        first += ch.toLowerCase();
      }
      return {
        followed: n === a.num && first === a.first,
        measured: `${plural(n, 'paragraph')}; paragraph ${a.nth} starts with ${quote(first)}`,
        required,
      };
    },
  },
  'detectable_content:number_placeholders': {
    keys: ['num_placeholders'],
    args: (kw) => {
      const num = intArg(kw, 'num_placeholders');
      return typeof num === 'string' ? num : { num };
    },
    check: (value, a: { num: number }) => {
      const n = (value.match(pattern('placeholders', () => `\\[${PY.any}*?\\]`, 'gu')) ?? []).length;
      return {
        followed: n >= a.num,
        measured: `${plural(n, 'placeholder')} in square brackets`,
        required: `at least ${plural(a.num, 'placeholder')} such as [address]`,
      };
    },
  },
  'detectable_content:postscript': {
    keys: ['postscript_marker'],
    args: (kw) => {
      const marker = stringArg(kw, 'postscript_marker');
      if (isProblem(marker)) return marker.message;
      const m = pyStrip(marker);
      if (m !== 'P.P.S' && m !== 'P.S.' && !/^[^^$*+?{}[\]\\|()]*$/.test(m))
        return `postscript_marker: ${JSON.stringify(m)} contains regular-expression syntax; revloop accepts literal markers only`;
      return { marker: m };
    },
    check: (value, a: { marker: string }) => {
      const body = (): string => {
        if (a.marker === 'P.P.S') return `p\\.${PY.space}?p\\.${PY.space}?s`;
        if (a.marker === 'P.S.') return `p\\.${PY.space}?s\\.`;
        // Any other marker is a pattern in the official checker; "." matches any character but a newline.
        return [...a.marker.toLowerCase()].map((ch) => (ch === '.' ? PY.any : escapeLiteralChar(ch))).join('');
      };
      const found = pattern(`postscript ${a.marker}`, body, 'u').test(value.toLowerCase());
      return {
        followed: found,
        measured: found ? 'a postscript is present' : 'no postscript found',
        required: `end with a postscript starting with ${a.marker}`,
      };
    },
  },
  'detectable_format:number_bullet_lists': {
    keys: ['num_bullets'],
    args: (kw) => {
      const num = intArg(kw, 'num_bullets');
      return typeof num === 'string' ? num : { num };
    },
    check: (value, a: { num: number }) => {
      const star = value.match(pattern('star bullets', () => `${PY.lineStart}${PY.space}*\\*[^*]${PY.any}*${PY.lineEnd}`, 'gu')) ?? [];
      const dash = value.match(pattern('dash bullets', () => `${PY.lineStart}${PY.space}*-${PY.any}*${PY.lineEnd}`, 'gu')) ?? [];
      const n = star.length + dash.length;
      return {
        followed: n === a.num,
        measured: `${plural(n, 'bullet point')} (lines starting with * or -)`,
        required: `exactly ${plural(a.num, 'markdown bullet point')}`,
      };
    },
  },
  'detectable_format:constrained_response': {
    ...noArgs,
    check: (value) => {
      const v = pyStrip(value);
      const ok = ['My answer is yes.', 'My answer is no.', 'My answer is maybe.'].some((o) => v.includes(o));
      return {
        followed: ok,
        measured: ok ? 'one of the options is given' : 'none of the options appears',
        required: 'answer with one of "My answer is yes.", "My answer is no.", "My answer is maybe."',
      };
    },
  },
  'detectable_format:number_highlighted_sections': {
    keys: ['num_highlights'],
    args: (kw) => {
      const num = intArg(kw, 'num_highlights');
      return typeof num === 'string' ? num : { num };
    },
    check: (value, a: { num: number }) => {
      let n = 0;
      for (const h of value.match(/\*[^\n*]*\*/gu) ?? []) if (pyStrip(pyStripChars(h, '*'))) n++;
      for (const h of value.match(/\*\*[^\n*]*\*\*/gu) ?? []) if (pyStrip(h.slice(2, -2))) n++;
      return {
        followed: n >= a.num,
        measured: `${plural(n, 'highlighted section')} found`,
        required: `at least ${plural(a.num, 'highlighted section')} such as *highlighted section*`,
      };
    },
  },
  'detectable_format:multiple_sections': {
    keys: ['section_spliter', 'num_sections'],
    args: (kw) => {
      const splitter = stringArg(kw, 'section_spliter');
      if (isProblem(splitter)) return splitter.message;
      const s = pyStrip(splitter);
      const problem = literalProblem('section_spliter', s);
      if (problem) return problem;
      const num = intArg(kw, 'num_sections');
      return typeof num === 'string' ? num : { splitter: s, num };
    },
    check: (value, a: { splitter: string; num: number }) => {
      const re = pattern(
        `sections ${a.splitter}`,
        () => `${PY.space}?${[...a.splitter].map(escapeLiteralChar).join('')}${PY.space}?\\p{Nd}+${PY.space}?`,
        'gu',
      );
      const n = (value.match(re) ?? []).length;
      return {
        followed: n >= a.num,
        measured: `${plural(n, 'section')} marked "${a.splitter} X"`,
        required: `at least ${plural(a.num, 'section')}, each starting with "${a.splitter} X"`,
      };
    },
  },
  'detectable_format:json_format': {
    ...noArgs,
    check: (value) => {
      let v = pyStrip(value);
      for (const p of ['```json', '```Json', '```JSON', '```']) if (v.startsWith(p)) v = v.slice(p.length);
      if (v.endsWith('```')) v = v.slice(0, -3);
      const ok = pyJsonLoads(pyStrip(v));
      return {
        followed: ok,
        measured: ok ? 'the response is valid JSON' : 'the response is not valid JSON',
        required: 'wrap the entire output in JSON (markdown ``` fences allowed)',
      };
    },
  },
  'detectable_format:title': {
    ...noArgs,
    check: (value) => {
      const ok = (value.match(/<<[^\n]+>>/gu) ?? []).some((t) => pyStrip(t.replace(/^<+/, '').replace(/>+$/, '')) !== '');
      return {
        followed: ok,
        measured: ok ? 'a title is present' : 'no title in double angular brackets',
        required: 'a title such as <<poem of joy>>',
      };
    },
  },
  'combination:two_responses': {
    ...noArgs,
    check: (value) => {
      const parts = value.split('******');
      const valid: string[] = [];
      let emptyInside = false;
      parts.forEach((p, i) => {
        if (!pyStrip(p)) {
          if (i !== 0 && i !== parts.length - 1) emptyInside = true;
        } else valid.push(p);
      });
      const ok = !emptyInside && valid.length === 2 && pyStrip(valid[0]) !== pyStrip(valid[1]);
      const measured = emptyInside
        ? 'an empty response between two ****** separators'
        : valid.length === 2 && !ok
          ? 'the two responses are identical'
          : `${plural(valid.length, 'response')} separated by ******`;
      return { followed: ok, measured, required: 'exactly two different responses separated by ******' };
    },
  },
  'combination:repeat_prompt': {
    keys: ['prompt_to_repeat'],
    args: (kw) => {
      const p = kw.prompt_to_repeat;
      if (typeof p !== 'string' || p === '') return 'prompt_to_repeat: required, a non-empty string';
      return { prompt: p };
    },
    check: (value, a: { prompt: string }) => {
      const ok = pyStrip(value).toLowerCase().startsWith(pyStrip(a.prompt).toLowerCase());
      return {
        followed: ok,
        measured: ok ? 'the response starts with the request' : 'the response does not start with the request, word for word',
        required: 'first repeat the request word for word (case aside), then answer',
      };
    },
  },
  'startend:end_checker': {
    keys: ['end_phrase'],
    args: (kw) => {
      const e = stringArg(kw, 'end_phrase');
      return isProblem(e) ? e.message : { end: pyStrip(e) };
    },
    check: (value, a: { end: string }) => {
      const v = pyStripChars(pyStrip(value), '"').toLowerCase();
      const ok = v.endsWith(pyStrip(a.end).toLowerCase());
      const tail = [...v].slice(-Math.max(20, pyLen(a.end))).join('');
      return {
        followed: ok,
        measured: ok ? 'the response ends with the phrase' : `the response ends with ${quote(tail)}`,
        required: `end with the exact phrase ${quote(a.end)}, nothing after it`,
      };
    },
  },
  'startend:quotation': {
    ...noArgs,
    check: (value) => {
      const v = [...pyStrip(value)];
      const ok = v.length > 1 && v[0] === '"' && v[v.length - 1] === '"';
      return {
        followed: ok,
        measured: ok ? 'the response is wrapped in double quotes' : 'the response does not start and end with "',
        required: 'wrap the entire response in double quotation marks',
      };
    },
  },
  'change_case:capital_word_frequency': {
    keys: ['capital_frequency', 'capital_relation'],
    args: (kw) => {
      const v = kw.capital_frequency;
      if (typeof v !== 'number' || !Number.isInteger(v))
        return `capital_frequency: required, an integer (the official checker would draw a random value), got ${JSON.stringify(v)}`;
      const relation = relationArg(kw, 'capital_relation');
      return isProblem(relation) ? relation.message : { num: v, relation };
    },
    check: (value, a: { num: number; relation: Relation }) => {
      const n = wordTokenize(value).filter(pyIsUpper).length;
      return {
        followed: compare(a.relation, n, a.num),
        measured: `${plural(n, 'word')} in all capital letters`,
        required: requiredCount(a.relation, a.num, 'all-capital word'),
      };
    },
  },
  'change_case:english_capital': {
    ...noArgs,
    check: (value, _a, ctx) => {
      const upper = pyIsUpper(value);
      const { ok, detected } = languageCheck(value, ctx, upper, 'en');
      return {
        followed: ok,
        measured: !upper
          ? 'the response has lower-case letters'
          : detected === 'undetectable'
            ? 'all capitals'
            : `all capitals, detected as ${languageLabel(detected)}`,
        required: 'English, entirely in capital letters',
      };
    },
  },
  'change_case:english_lowercase': {
    ...noArgs,
    check: (value, _a, ctx) => {
      const lower = pyIsLower(value);
      const { ok, detected } = languageCheck(value, ctx, lower, 'en');
      return {
        followed: ok,
        measured: !lower
          ? 'the response has capital letters'
          : detected === 'undetectable'
            ? 'all lower case'
            : `all lower case, detected as ${languageLabel(detected)}`,
        required: 'English, entirely in lower-case letters',
      };
    },
  },
  'punctuation:no_comma': {
    ...noArgs,
    check: (value) => {
      let n = 0;
      for (const ch of value) if (ch === ',') n++;
      return { followed: n === 0, measured: `the response contains ${plural(n, 'comma')}`, required: 'use none' };
    },
  },
};

/** The 25 instruction ids, in instructions_registry.INSTRUCTION_DICT order. */
export const INSTRUCTION_IDS: readonly string[] = Object.keys(SPECS);

/** A built instruction: its id and normalised arguments. */
export interface BuiltInstruction {
  id: string;
  args: unknown;
}

/** `build_description(**kwargs)`; a problem string where the official checker would fail or draw randomly. */
export function buildInstruction(id: string, kwargs: unknown): BuiltInstruction | string {
  const spec = SPECS[id];
  if (!spec) return `unknown instruction id ${JSON.stringify(id)}`;
  if (!kwargs || typeof kwargs !== 'object' || Array.isArray(kwargs)) return `kwargs must be an object, got ${JSON.stringify(kwargs)}`;
  const kw = kwargs as Record<string, unknown>;
  const unknown = Object.keys(kw).filter((k) => !spec.keys.includes(k));
  if (unknown.length)
    return `unexpected ${unknown.map((k) => JSON.stringify(k)).join(', ')} (${id} takes ${spec.keys.join(', ') || 'no arguments'})`;
  const args = spec.args(kw);
  if (typeof args === 'string') return args;
  return { id, args };
}

/** `check_following(value)`. */
export function checkInstruction(b: BuiltInstruction, value: string, ctx: CheckContext): CheckResult {
  return SPECS[b.id].check(value, b.args, ctx);
}
