// Upper bounds on what a case may ask (docs/cases.md, "Limits"): a count in a case (a target word
// count, a number of sentences, a bound) and the new tokens its rule asks of a model. Beyond them a
// case is refused when it is validated (`cases validate`, every command that reads a case file),
// instead of a run dying on an array of 10^15 words or a request for 3·10^15 tokens.

/** The largest count a case field may hold (words, sentences, bounds). */
export const MAX_CASE_COUNT = 100_000;

/** The most new tokens any request asks for (core/util/token-limit.ts, shared with the models). */
export { MAX_NEW_TOKENS } from '../util/token-limit.ts';
