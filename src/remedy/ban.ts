// Ban lists from failed actions (docs/harness.md §6): every earlier failed action, stripped, empty ones
// skipped. Backends that take strings (vLLM `bad_words`, `GenerateOptions.bannedSequences`) add the
// leading-space variant themselves; a decoder of your own needs the token form, which holds both
// whitespace variants of every string, deduplicated by token tuple (first occurrence wins).
import { banStrings } from '@revloop/revise';
import { buildBanList, type TokenSeq } from '../models/ban.ts';
import type { AgentStep } from './failure-record.ts';

export type { TokenSeq };
// The string form is the revise package's (revision loops ban failed drafts with it too).
export { banStrings };

/** The actions of the failed steps, in order (the reference's `failed_actions`). */
export function failedActions(steps: readonly AgentStep[]): string[] {
  return steps.filter((s) => !s.ok).map((s) => s.action);
}

/**
 * Token sequences to ban: for each stripped action, the bare string and " " + string, tokenized
 * without special tokens; empty tokenizations dropped; identical tuples kept once.
 */
export function banTokenSequences(actions: readonly string[], tokenize: (text: string) => readonly number[]): TokenSeq[] {
  return buildBanList(actions, tokenize);
}
