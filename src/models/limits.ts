// Bounds on what revloop asks of a model and reads back (docs/models.md, "Limits"): a reply is read
// only up to a cap, and no request asks for an absurd number of tokens. Kept apart from the
// transport so options, specs and flags check against the same numbers without loading it.

/** The default cap on a successful response body: far above any reply, far below trouble. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The largest cap `--max-response-bytes` accepts (1 GiB). */
export const MAX_RESPONSE_BYTES_LIMIT = 1024 * 1024 * 1024;

/** The most new tokens any request asks for (a case asking more is refused when it is validated). */
export { MAX_NEW_TOKENS as MAX_NEW_TOKENS_LIMIT } from '../core/util/token-limit.ts';
