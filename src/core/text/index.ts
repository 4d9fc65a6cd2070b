// Public API of the text module (`revloop/core/text`, docs/text.md): Python-exact word counting and
// anchor matching, and NLTK-faithful sentence and word tokenisation with English Punkt parameters.
// Code inside revloop imports the modules it needs (tokenize.ts, punkt-resolve.ts, …), not this barrel.
export { countWords, wordMatches } from './words.ts';
export { anchorPresent, missingAnchors } from './anchors.ts';
export { loadPunktParams, type PunktParams } from './punkt-params.ts';
export { getDefaultPunkt, resolvePunkt } from './punkt-resolve.ts';
export { fetchPunkt, type FetchPunktOptions, type FetchPunktResult } from './punkt-fetch.ts';
export { treebankWordTokenize } from './treebank.ts';
export { sentTokenize, sentSpans, wordTokenize } from './tokenize.ts';
