// Ban lists from failed actions (HARNESS §6): every earlier failed action, stripped, empty ones
// skipped. Backends that take strings (vLLM `bad_words`, `GenerateOptions.bannedSequences`) add the
// leading-space variant themselves; a decoder of your own needs the token form, which holds both
// whitespace variants of every string, deduplicated by token tuple (first occurrence wins).
import { pyStrip } from '../core/py/format.ts';
import { buildBanList, type TokenSeq } from '../models/gguf/ban.ts';
import type { AgentStep } from './failure-record.ts';

export type { TokenSeq };

/** The actions of the failed steps, in order (the reference's `failed_actions`). */
export function failedActions(steps: readonly AgentStep[]): string[] {
  return steps.filter((s) => !s.ok).map((s) => s.action);
}

/** Stripped, non-empty, de-duplicated strings to ban (first occurrence order). */
export function banStrings(actions: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const a of actions) {
    const s = pyStrip(a);
    if (!s || seen.has(s)) continue;
    seen.add(s);
    out.push(s);
  }
  return out;
}

/**
 * Token sequences to ban: for each stripped action, the bare string and " " + string, tokenized
 * without special tokens; empty tokenizations dropped; identical tuples kept once.
 */
export function banTokenSequences(actions: readonly string[], tokenize: (text: string) => readonly number[]): TokenSeq[] {
  return buildBanList(actions, tokenize);
}
