// The reference's word and sentence units for the COLLIE-derived families
// (constraint_protocol.words / sentences / normalized_literal), on top of the NLTK ports in text/.
import { sentTokenize, treebankWordTokenize, wordTokenize } from '../../text/index.ts';
import { pyStrip } from '../../py/format.ts';
import { PY_PUNCTUATION, pyStripChars } from '../../py/strings.ts';

const PUNCT_AND_SPACE = PY_PUNCTUATION + ' ';

/**
 * NLTK `word_tokenize` tokens, dropping every token that is a *substring* of `string.punctuation`
 * (so "()" is dropped but "``", "''", "--" and "..." are kept), then `strip()` and `strip(".")`.
 * "..." therefore survives as an empty-string word that still counts.
 */
export function words(text: string): string[] {
  return wordsFromTokens(wordTokenize(text));
}

function wordsFromTokens(tokens: Iterable<string>, out: string[] = []): string[] {
  for (const token of tokens) {
    if (PY_PUNCTUATION.includes(token)) continue;
    out.push(pyStripChars(pyStrip(token), '.'));
  }
  return out;
}

function sentenceUnit(raw: string): string {
  return pyStripChars(pyStrip(raw), '.');
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
  const out: string[] = [];
  for (const sentence of raw) wordsFromTokens(treebankWordTokenize(sentence), out);
  return { sentences: raw.map(sentenceUnit), words: out };
}

/**
 * Literal used for matching: lower-cased, ASCII punctuation and spaces stripped from both ends;
 * when nothing remains the original value is kept. Non-strings are returned unchanged (compared raw).
 */
export function normalizedLiteral<T>(value: T): T | string {
  if (typeof value !== 'string') return value;
  const stripped = pyStripChars(value.toLowerCase(), PUNCT_AND_SPACE);
  return stripped === '' ? value : stripped;
}

export function normalizedTokens(text: string): string[] {
  return words(text).map((w) => normalizedLiteral(w));
}
