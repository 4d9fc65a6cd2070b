// The reference's word and sentence units for the COLLIE-derived families
// (constraint_protocol.words / sentences / normalized_literal), on top of the NLTK ports in text/.
import { sentTokenize, wordTokenize } from '../../text/tokenize.ts';
import { treebankTokensInto } from '../../text/treebank.ts';
import { pyStrip } from '../../py/format.ts';
import { PY_PUNCTUATION, pyStripChars as stripChars } from '../../py/strings.ts';

const PUNCT_AND_SPACE = PY_PUNCTUATION + ' ';

/**
 * NLTK `word_tokenize` tokens, dropping every token that is a *substring* of `string.punctuation`
 * (so "()" is dropped but "``", "''", "--" and "..." are kept), then `strip()` and `strip(".")`.
 * "..." therefore survives as an empty-string word that still counts.
 */
export function words(text: string): string[] {
  return toWords(wordTokenize(text));
}

/** Whether a token is a substring of `string.punctuation` (only tokens of ASCII punctuation can be). */
function isPunctuationRun(token: string): boolean {
  const c = token.charCodeAt(0);
  return c < 0x7f && !((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) && PY_PUNCTUATION.includes(token);
}

/** Turns word_tokenize tokens into the reference's words, in place (the array is returned). */
function toWords(tokens: string[]): string[] {
  let k = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (isPunctuationRun(token)) continue;
    // Tokens never hold whitespace (both tokenizers split on it), so strip() leaves them as they are.
    tokens[k++] = token.charCodeAt(0) === 0x2e || token.charCodeAt(token.length - 1) === 0x2e ? stripChars(token, '.') : token;
  }
  tokens.length = k;
  return tokens;
}

function sentenceUnit(raw: string): string {
  return stripChars(pyStrip(raw), '.');
}

/** Punkt sentences, each `strip()`ped and then stripped of ".". */
export function sentences(text: string): string[] {
  return sentTokenize(text).map(sentenceUnit);
}

/**
 * `sentences(text)` and `words(text)` from a single Punkt pass: NLTK's word_tokenize is Punkt
 * sentences followed by the Treebank tokenizer on each (text/index.ts), so the raw sentences serve
 * both. Used by c09, which needs both views of the same text.
 */
export function sentencesAndWords(text: string): { sentences: string[]; words: string[] } {
  const raw = sentTokenize(text);
  const tokens: string[] = [];
  for (const sentence of raw) treebankTokensInto(sentence, tokens);
  return { sentences: raw.map(sentenceUnit), words: toWords(tokens) };
}

/** ASCII punctuation and the space: what normalizedLiteral strips from both ends. */
function isPunctOrSpace(c: number): boolean {
  return c === 0x20 || (c > 0x20 && c < 0x7f && !((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)));
}

/**
 * Literal used for matching: lower-cased, ASCII punctuation and spaces stripped from both ends;
 * when nothing remains the original value is kept. Non-strings are returned unchanged (compared raw).
 */
export function normalizedLiteral<T>(value: T): T | string {
  if (typeof value !== 'string') return value;
  const lower = value.toLowerCase();
  if (lower.length > 0 && !isPunctOrSpace(lower.charCodeAt(0)) && !isPunctOrSpace(lower.charCodeAt(lower.length - 1))) return lower;
  const stripped = stripChars(lower, PUNCT_AND_SPACE);
  return stripped === '' ? value : stripped;
}

export function normalizedTokens(text: string): string[] {
  const tokens = words(text);
  for (let i = 0; i < tokens.length; i++) tokens[i] = normalizedLiteral(tokens[i]);
  return tokens;
}
