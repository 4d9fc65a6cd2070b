// The most new tokens any request asks for, one number for the two places that check it: a case's
// rule when the case is validated (core/verify/limits.ts) and every request a model sends
// (models/limits.ts). Here, below both, so neither imports the other's folder.

/** The most new tokens any request asks for. No model generates more (the largest context windows are about 2^21 tokens). */
export const MAX_NEW_TOKENS = 1 << 21;
