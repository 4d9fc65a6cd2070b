// Public API of the text module: Python-exact word counting and anchor matching, and NLTK-faithful
// sentence and word tokenisation (docs/text.md).
import { getDefaultPunkt } from './punkt-resolve.ts';
import { punktSentences, punktSpans } from './punkt.ts';
import type { PunktParams } from './punkt-params.ts';
import { treebankTokensInto } from './treebank.ts';

export { countWords, wordMatches } from './words.ts';
export { anchorPresent, missingAnchors, anchorRegExp } from './anchors.ts';
export { loadPunktParams, parsePunktJson, parsePunktTab, punktTabFiles, PUNKT_TAB_FILES } from './punkt-params.ts';
export type { PunktParams } from './punkt-params.ts';
export { getDefaultPunkt, resetDefaultPunkt, resolvePunkt, punktCandidates, userDataDir, fetchedPunktDir } from './punkt-resolve.ts';
export { treebankWordTokenize, treebankTokensInto } from './treebank.ts';

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
export { fetchPunkt, PUNKT_TAB_URL, PUNKT_TAB_ZIP_SHA256, PUNKT_TAB_ENGLISH_FILES } from './punkt-fetch.ts';
export type { FetchPunktOptions, FetchPunktResult } from './punkt-fetch.ts';
