// NLTK's sent_tokenize and word_tokenize with English Punkt parameters: what the verifiers import
// (by module, not through the text barrel, which also brings the Punkt downloader and its crypto and
// zip modules into every process that verifies).
import { getDefaultPunkt } from './punkt-resolve.ts';
import { punktSentences, punktSpans } from './punkt.ts';
import type { PunktParams } from './punkt-params.ts';
import { treebankTokensInto } from './treebank.ts';

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
