// NLTK's PunktSentenceTokenizer, tokenize path only (`sentences_from_text` → `span_tokenize` →
// `_slices_from_text` + `_realign_boundaries`), ported from NLTK 3.8/3.9.2 (the versions whose output
// the reference data holds; see docs/text.md). Regexes are NLTK's PunktLanguageVars translated to
// JavaScript with Python semantics (Unicode `\s`/`\S`, `[^\W\d]`, `$`). Offsets are UTF-16 indices
// throughout, which is equivalent to Python's code-point slicing because every cut falls between
// whole characters.
import { collocationKey, type PunktParams } from './punkt-params.ts';
import { END_MULTILINE, NS, pyHasNonSpace, pyRstrip, S, W_NOT_DIGIT } from '../py/re.ts';

// Orthographic context flags (NLTK _ORTHO_*).
const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC + ORTHO_MID_UC + ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC + ORTHO_MID_LC + ORTHO_UNK_LC;

// PunktLanguageVars (English defaults).
const NON_WORD = `[)";}\\]*:@'({[?!]`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${S}){2,}\\.)`;
const WORD_START = '[^("`{[:;&#*@)}\\]\\-,]';
const WORD_TOKENIZER = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})${NS}+?(?=${S}|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|${S}|${NON_WORD}|${MULTI_CHAR}))|${NS}`,
  'gu',
);
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(${NON_WORD}|${S}+(${NS}+)))`, 'gu');
const BOUNDARY_REALIGNMENT = new RegExp(`^["')\\]}]+?(?:${S}+|(?=--)|${END_MULTILINE})`, 'u');

// PunktToken regexes.
const RE_NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?(?=\n?$)/u;
const RE_ELLIPSIS = /^\.\.+(?=\n?$)/u;
const RE_INITIAL = new RegExp(`^${W_NOT_DIGIT}\\.(?=\\n?$)`, 'u');
const UPPER = /^\p{Uppercase}/u;
const LOWER = /^\p{Lowercase}/u;
const PUNCTUATION = new Set([';', ':', ',', '.', '!', '?']);
/** Python's `string.whitespace` (ASCII only; used by `_get_last_whitespace_index`). */
const ASCII_WHITESPACE = new Set([' ', '\t', '\n', '\r', '\x0b', '\x0c']);

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
    type: RE_NUMERIC.test(lower) ? '##number##' + lowerTail(lower) : lower,
    periodFinal: tok.endsWith('.'),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
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

/** `_tokenize_words`: Punkt word tokens of a text, line by line. */
function tokenizeWords(text: string): Token[] {
  const out: Token[] = [];
  for (const line of text.split('\n')) {
    if (!pyHasNonSpace(line)) continue;
    WORD_TOKENIZER.lastIndex = 0;
    for (let m = WORD_TOKENIZER.exec(line); m !== null; m = WORD_TOKENIZER.exec(line)) out.push(makeToken(m[0]));
  }
  return out;
}

/** `_first_pass_annotation`. */
function firstPass(t: Token, params: PunktParams): void {
  const tok = t.tok;
  if (tok === '.' || tok === '?' || tok === '!') t.sentbreak = true;
  else if (RE_ELLIPSIS.test(tok)) t.ellipsis = true;
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

/** `text_contains_sentbreak`: does any annotated token but the last end a sentence? */
function textContainsSentbreak(text: string, params: PunktParams): boolean {
  const toks = tokenizeWords(text);
  for (const t of toks) firstPass(t, params);
  for (let i = 0; i + 1 < toks.length; i++) {
    secondPass(toks[i], toks[i + 1], params);
    if (toks[i].sentbreak) return true;
  }
  return false;
}

function lastAsciiWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_WHITESPACE.has(text[i])) return i;
  return 0;
}

interface EndContext {
  /** End of the sentence-ending character (match.end()). */
  end: number;
  /** Start of the next token after whitespace, or -1 when the context continues with punctuation. */
  nextTokStart: number;
  context: string;
}

/** `_match_potential_end_contexts` (the post-ReDoS-fix version, including its quirks). */
function potentialEndContexts(text: string): EndContext[] {
  const out: EndContext[] = [];
  let prevStart = 0;
  let prevStop = 0;
  let prev: RegExpExecArray | null = null;
  const emit = (m: RegExpExecArray, start: number, stop: number): void => {
    const after = m[1];
    const next = m[2];
    const end = m.index + 1;
    out.push({
      end,
      nextTokStart: next !== undefined ? end + after.length - next.length : -1,
      context: text.slice(start, stop) + m[0] + after,
    });
  };
  PERIOD_CONTEXT.lastIndex = 0;
  for (let m = PERIOD_CONTEXT.exec(text); m !== null; m = PERIOD_CONTEXT.exec(text)) {
    const before = text.slice(prevStop, m.index);
    let wordStart = lastAsciiWhitespaceIndex(before);
    // NLTK treats "whitespace at index 0" like "no whitespace": kept for exactness.
    wordStart = wordStart ? wordStart + prevStop + 1 : prevStart;
    if (prev && prevStop <= wordStart) emit(prev, prevStart, prevStop);
    prev = m;
    prevStart = wordStart;
    prevStop = m.index;
  }
  if (prev) emit(prev, prevStart, prevStop);
  return out;
}

/** `_slices_from_text` followed by `_realign_boundaries`: [start, end) spans of the sentences. */
export function punktSpans(text: string, params: PunktParams, realignBoundaries = true): Array<[number, number]> {
  const slices: Array<[number, number]> = [];
  let lastBreak = 0;
  for (const c of potentialEndContexts(text)) {
    if (textContainsSentbreak(c.context, params)) {
      slices.push([lastBreak, c.end]);
      lastBreak = c.nextTokStart >= 0 ? c.nextTokStart : c.end;
    }
  }
  slices.push([lastBreak, pyRstrip(text).length]);
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
