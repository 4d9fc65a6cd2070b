// Public API of the text module (`revloop/text`, docs/text.md): Python-exact word counting and
// anchor matching, and NLTK-faithful sentence and word tokenisation with English Punkt parameters.
import { getDefaultPunkt } from './punkt-resolve.ts';
import { punktSentences, punktSpans } from './punkt.ts';
import type { PunktParams } from './punkt-params.ts';
import { treebankTokensInto } from './treebank.ts';

export { countWords, wordMatches } from './words.ts';
export { anchorPresent, missingAnchors } from './anchors.ts';
export { loadPunktParams, type PunktParams } from './punkt-params.ts';
export { getDefaultPunkt, resolvePunkt } from './punkt-resolve.ts';
export { fetchPunkt, type FetchPunktOptions, type FetchPunktResult } from './punkt-fetch.ts';
export { treebankWordTokenize } from './treebank.ts';

/** NLTK `sent_tokenize(text)` (English Punkt). */
export function sentTokenize(text: string, params: PunktParams = getDefaultPunkt()): string[] {
  return punktSentences(text, params);
}

/** NLTK `PunktSentenceTokenizer.span_tokenize(text)`: [start, end) UTF-16 offsets of each sentence. */
export function sentSpans(text: string, params: PunktParams = getDefaultPunkt()): Array<[number, number]> {
  return punktSpans(text, params);
}

/** NLTK `word_tokenize(text)` (preserve_line=False: Punkt sentences, then NLTKWordTokenizer on each). */
export function wordTokenize(text: string, params: PunktParams = getDefaultPunkt()): string[] {
  const out: string[] = [];
  for (const sentence of punktSentences(text, params)) treebankTokensInto(sentence, out);
  return out;
}
