// Ban lists from failed outputs (docs/harness.md §6): every earlier failed draft or action,
// stripped, empty ones skipped, each once. Backends that take strings (vLLM `bad_words`, a
// revloop model's `bannedSequences`) add the leading-space variant themselves.
import { pyStrip } from '../py-strip.ts';

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
