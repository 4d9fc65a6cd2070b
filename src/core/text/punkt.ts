// NLTK's PunktSentenceTokenizer, tokenize path only (`sentences_from_text` → `span_tokenize` →
// `_slices_from_text` + `_realign_boundaries`), ported from NLTK 3.8/3.9.2 (the versions whose output
// the reference data holds; see docs/text.md). Regexes are NLTK's PunktLanguageVars translated to
// JavaScript with Python semantics (Unicode `\s`/`\S`, `[^\W\d]`, `$`). Offsets are UTF-16 indices
// throughout, which is equivalent to Python's code-point slicing because every cut falls between
// whole characters.
import { collocationKey, type PunktParams } from './punkt-params.ts';
import { isPySpaceCode } from '../py/format.ts';
import { END_MULTILINE, NS, pyRstrip, pyRstripLength, S, W_NOT_DIGIT } from '../py/re.ts';

// Orthographic context flags (NLTK _ORTHO_*).
const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

// PunktLanguageVars (English defaults). NLTK's word tokenizer regex, for reference (tokenizeRange
// scans the same language by hand, over a range of the text, without slicing it):
//   MULTI_CHAR | (?=WORD_START) \S+? (?= \s | $ | NON_WORD | MULTI_CHAR | ,(?=$|\s|NON_WORD|MULTI_CHAR)) | \S
const NON_WORD = `[)";}\\]*:@'({[?!]`;
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(${NON_WORD}|${S}+(${NS}+)))`, 'gu');
const BOUNDARY_REALIGNMENT = new RegExp(`^["')\\]}]+?(?:${S}+|(?=--)|${END_MULTILINE})`, 'u');

/** NON_WORD: `) " ; } ] * : @ ' ( { [ ? !` */
function isNonWord(c: number): boolean {
  switch (c) {
    case 0x29:
    case 0x22:
    case 0x3b:
    case 0x7d:
    case 0x5d:
    case 0x2a:
    case 0x3a:
    case 0x40:
    case 0x27:
    case 0x28:
    case 0x7b:
    case 0x5b:
    case 0x3f:
    case 0x21:
      return true;
    default:
      return false;
  }
}

/** Not WORD_START: `( " \` { [ : ; & # * @ ) } ] - ,` */
function isWordStartExcluded(c: number): boolean {
  switch (c) {
    case 0x28:
    case 0x22:
    case 0x60:
    case 0x7b:
    case 0x5b:
    case 0x3a:
    case 0x3b:
    case 0x26:
    case 0x23:
    case 0x2a:
    case 0x40:
    case 0x29:
    case 0x7d:
    case 0x5d:
    case 0x2d:
    case 0x2c:
      return true;
    default:
      return false;
  }
}

/**
 * End of MULTI_CHAR `(?:-{2,}|\.{2,}|(?:\.\s){2,}\.)` matched at `i` within one line ending at `end`,
 * or -1. The `\s` never takes the line's newline: NLTK tokenizes line by line.
 */
function multiCharEnd(text: string, i: number, end: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x2d || c === 0x2e) {
    let j = i;
    while (j < end && text.charCodeAt(j) === c) j++;
    if (j - i >= 2) return j;
    if (c === 0x2d) return -1;
  } else return -1;
  // (?:\.\s){2,}\. : greedy repetitions of "." + one space, backing off until a "." follows.
  let j = i;
  let reps = 0;
  const ends: number[] = [];
  while (j + 1 < end && text.charCodeAt(j) === 0x2e && isPySpaceCode(text.charCodeAt(j + 1)) && text.charCodeAt(j + 1) !== 0x0a) {
    j += 2;
    reps++;
    ends.push(j);
  }
  for (let r = reps; r >= 2; r--) if (ends[r - 1] < end && text.charCodeAt(ends[r - 1]) === 0x2e) return ends[r - 1] + 1;
  return -1;
}

/** The lookahead that ends a word token at `q`: `\s | $ | NON_WORD | MULTI_CHAR | ,(?=$|\s|NON_WORD|MULTI_CHAR)`. */
function wordEndsAt(text: string, q: number, end: number): boolean {
  if (q >= end) return true;
  const c = text.charCodeAt(q);
  if (isPySpaceCode(c) || isNonWord(c) || multiCharEnd(text, q, end) >= 0) return true;
  if (c !== 0x2c) return false;
  if (q + 1 >= end) return true;
  const d = text.charCodeAt(q + 1);
  return isPySpaceCode(d) || isNonWord(d) || multiCharEnd(text, q + 1, end) >= 0;
}

/** Calls `emit(start, end)` for each Punkt word token of text[from, to), line by line (`_tokenize_words`). */
function tokenizeRange(text: string, from: number, to: number, emit: (start: number, end: number) => void): void {
  let lineStart = from;
  while (lineStart <= to) {
    let lineEnd = lineStart;
    while (lineEnd < to && text.charCodeAt(lineEnd) !== 0x0a) lineEnd++;
    let i = lineStart;
    while (i < lineEnd) {
      const c = text.charCodeAt(i);
      if (isPySpaceCode(c)) {
        i++;
        continue;
      }
      let j = multiCharEnd(text, i, lineEnd);
      if (j < 0 && !isWordStartExcluded(c)) {
        // \S+? then the lookahead: the shortest run of non-space characters the lookahead accepts.
        j = i + 1;
        while (j < lineEnd && !isPySpaceCode(text.charCodeAt(j)) && !wordEndsAt(text, j, lineEnd)) j++;
      }
      // \S: one character. Only WORD_START's excluded characters get here, all ASCII; a surrogate pair
      // takes the word branch, whose lookahead never holds between its two halves.
      if (j < 0) j = i + 1;
      emit(i, j);
      i = j;
    }
    lineStart = lineEnd + 1;
  }
}

// PunktToken regexes.
const RE_NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?(?=\n?$)/u;
const RE_ELLIPSIS = /^\.\.+(?=\n?$)/u;
const RE_INITIAL = new RegExp(`^${W_NOT_DIGIT}\\.(?=\\n?$)`, 'u');
const UPPER = /^\p{Uppercase}/u;
const LOWER = /^\p{Lowercase}/u;
const PUNCTUATION = new Set([';', ':', ',', '.', '!', '?']);

/** One word token with its Punkt annotations (NLTK PunktToken). */
interface Token {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeToken(tok: string): Token {
  const lower = tok.toLowerCase();
  return {
    tok,
    type: mayBeNumeric(lower) && RE_NUMERIC.test(lower) ? '##number##' + lowerTail(lower) : lower,
    periodFinal: tok.endsWith('.'),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

/** A cheap necessary condition for RE_NUMERIC: it starts with "-", ".", "," or a digit (any \p{Nd} beyond ASCII). */
function mayBeNumeric(lower: string): boolean {
  const c = lower.charCodeAt(0);
  return c > 0x7f || c === 0x2d || c === 0x2e || c === 0x2c || (c >= 0x30 && c <= 0x39);
}

// `re.sub(numeric, '##number##', tok)`: the pattern is anchored, so it replaces the whole token except a
// final newline that `$` leaves behind (tokens never contain one; kept for exactness).
function lowerTail(lower: string): string {
  return lower.endsWith('\n') ? '\n' : '';
}

function typeNoPeriod(t: Token): string {
  return t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type;
}

function typeNoSentperiod(t: Token): string {
  return t.sentbreak ? typeNoPeriod(t) : t.type;
}

function firstUpper(t: Token): boolean {
  return UPPER.test(t.tok);
}

function firstLower(t: Token): boolean {
  return LOWER.test(t.tok);
}

/** `_tokenize_words` on text[from, to): Punkt word tokens, line by line. */
function tokenizeWords(text: string, from: number, to: number): Token[] {
  const out: Token[] = [];
  tokenizeRange(text, from, to, (a, b) => out.push(makeToken(text.slice(a, b))));
  return out;
}

/** `_first_pass_annotation`. */
function firstPass(t: Token, params: PunktParams): void {
  const tok = t.tok;
  if (tok === '.' || tok === '?' || tok === '!') t.sentbreak = true;
  else if (tok.charCodeAt(0) === 0x2e && RE_ELLIPSIS.test(tok)) t.ellipsis = true;
  else if (t.periodFinal && !tok.endsWith('..')) {
    const stem = tok.slice(0, -1).toLowerCase();
    const dash = stem.lastIndexOf('-');
    if (params.abbrevTypes.has(stem) || (dash >= 0 && params.abbrevTypes.has(stem.slice(dash + 1)))) t.abbr = true;
    else t.sentbreak = true;
  }
}

type Ortho = true | false | 'unknown';

/** `_ortho_heuristic`: is the token the first of a sentence? */
function orthoHeuristic(t: Token, params: PunktParams): Ortho {
  if (PUNCTUATION.has(t.tok)) return false;
  const ctx = params.orthoContext.get(typeNoSentperiod(t)) ?? 0;
  if (firstUpper(t) && ctx & ORTHO_LC && !(ctx & ORTHO_MID_UC)) return true;
  if (firstLower(t) && (ctx & ORTHO_UC || !(ctx & ORTHO_BEG_LC))) return false;
  return 'unknown';
}

/** `_second_pass_annotation` for the pair (t1, t2), updating t1. */
function secondPass(t1: Token, t2: Token, params: PunktParams): void {
  if (!t1.periodFinal) return;
  const typ = typeNoPeriod(t1);
  const nextTyp = typeNoSentperiod(t2);
  const isInitial = RE_INITIAL.test(t1.tok);

  if (params.collocations.has(collocationKey(typ, nextTyp))) {
    t1.sentbreak = false;
    t1.abbr = true;
    return;
  }
  if ((t1.abbr || t1.ellipsis) && !isInitial) {
    const starter = orthoHeuristic(t2, params);
    if (starter === true) {
      t1.sentbreak = true;
      return;
    }
    if (firstUpper(t2) && params.sentStarters.has(nextTyp)) {
      t1.sentbreak = true;
      return;
    }
  }
  if (isInitial || typ === '##number##') {
    const starter = orthoHeuristic(t2, params);
    if (starter === false) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if (starter === 'unknown' && isInitial && firstUpper(t2) && !((params.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

/** `text_contains_sentbreak` on text[from, to): does any annotated token but the last end a sentence? */
function textContainsSentbreak(text: string, from: number, to: number, params: PunktParams): boolean {
  const toks = tokenizeWords(text, from, to);
  for (const t of toks) firstPass(t, params);
  for (let i = 0; i + 1 < toks.length; i++) {
    secondPass(toks[i], toks[i + 1], params);
    if (toks[i].sentbreak) return true;
  }
  return false;
}

/** Python's `string.whitespace` (ASCII only; used by `_get_last_whitespace_index`). */
function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

interface EndContext {
  /** Start of the context: the word before the sentence-ending character. */
  start: number;
  /** End of the sentence-ending character (match.end()). */
  end: number;
  /** End of the context: the end character, then the non-word character or the whitespace and next token. */
  contextEnd: number;
  /** Start of the next token after whitespace, or -1 when the context continues with punctuation. */
  nextTokStart: number;
}

/**
 * `_match_potential_end_contexts` (the post-ReDoS-fix version, including its quirks). NLTK builds each
 * context as `text[start:stop] + match.group() + match.group(1)`: always a contiguous range of the text,
 * so we keep offsets and never copy it.
 */
function potentialEndContexts(text: string): EndContext[] {
  const out: EndContext[] = [];
  let prevStart = 0;
  let prevStop = 0;
  let prev: RegExpExecArray | null = null;
  const emit = (m: RegExpExecArray, start: number): void => {
    const after = m[1];
    const next = m[2];
    const end = m.index + 1;
    out.push({ start, end, contextEnd: end + after.length, nextTokStart: next !== undefined ? end + after.length - next.length : -1 });
  };
  PERIOD_CONTEXT.lastIndex = 0;
  for (let m = PERIOD_CONTEXT.exec(text); m !== null; m = PERIOD_CONTEXT.exec(text)) {
    // _get_last_whitespace_index(text[prevStop:m.start()]), where whitespace at index 0 counts as none.
    let ws = m.index - 1;
    while (ws >= prevStop && !isAsciiWhitespace(text.charCodeAt(ws))) ws--;
    const wordStart = ws > prevStop ? ws + 1 : prevStart;
    if (prev && prevStop <= wordStart) emit(prev, prevStart);
    prev = m;
    prevStart = wordStart;
    prevStop = m.index;
  }
  if (prev) emit(prev, prevStart);
  return out;
}

/**
 * Whether `text` (up to `length`, its rstripped length) holds a `.`, `?` or `!` before its last
 * character: without one, PERIOD_CONTEXT cannot match and the text is a single sentence.
 */
function mayHaveBreak(text: string, length: number): boolean {
  for (let i = 0; i + 1 < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e || c === 0x3f || c === 0x21) return true;
  }
  return false;
}

/** `_slices_from_text` followed by `_realign_boundaries`: [start, end) spans of the sentences. */
export function punktSpans(text: string, params: PunktParams, realignBoundaries = true): Array<[number, number]> {
  const length = pyRstripLength(text);
  if (!mayHaveBreak(text, length)) return length > 0 ? [[0, length]] : [];
  const slices: Array<[number, number]> = [];
  let lastBreak = 0;
  for (const c of potentialEndContexts(text)) {
    if (textContainsSentbreak(text, c.start, c.contextEnd, params)) {
      slices.push([lastBreak, c.end]);
      lastBreak = c.nextTokStart >= 0 ? c.nextTokStart : c.end;
    }
  }
  slices.push([lastBreak, length]);
  return realignBoundaries ? realign(text, slices) : slices.filter(([s, e]) => e > s);
}

/** `_realign_boundaries`: moves closing quotes and brackets after a break into the sentence before it. */
function realign(text: string, slices: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let shift = 0;
  for (let i = 0; i < slices.length; i++) {
    const start = slices[i][0] + shift;
    const stop = slices[i][1];
    if (i + 1 === slices.length) {
      if (stop > start) out.push([start, stop]);
      continue;
    }
    const [s2, e2] = slices[i + 1];
    const m = BOUNDARY_REALIGNMENT.exec(text.slice(s2, Math.max(s2, e2)));
    if (m) {
      out.push([start, s2 + pyRstrip(m[0]).length]);
      shift = m[0].length;
    } else {
      shift = 0;
      if (stop > start) out.push([start, stop]);
    }
  }
  return out;
}

/** NLTK `PunktSentenceTokenizer(params).tokenize(text)`. */
export function punktSentences(text: string, params: PunktParams): string[] {
  return punktSpans(text, params).map(([s, e]) => text.slice(s, e));
}
