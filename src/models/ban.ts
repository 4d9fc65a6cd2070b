// The decoder ban of docs/harness.md §6 (the same rule as vLLM's `bad_words`), independent of any backend:
// build the banned token sequences from strings, then, before each decoding step, compute which
// tokens to mask given the tokens generated so far in this turn.
//
// The rule's prefix effect: a banned sequence's last token is masked whenever the tokens before it
// have just been generated, wherever that happens. So banning a whole failed draft also forbids any
// answer that contains the draft and goes on past its last token with the same token (an extension
// of a too-short draft that keeps it word for word), not only a repeat. vLLM's `bad_words` behaves
// the same way, and it cannot name the end of the answer, so it cannot express "this draft and
// then stop".
//
// The complete-answer ban (`bannedAnswers`, the `banAnswers` capability) is that other rule: while
// the answer so far, stripped, equals a banned answer, every end-of-answer token is masked; nothing
// else is. An answer may start with, or extend, a banned text; it may not stop there. The sim and
// GGUF backends implement it; vLLM and OpenAI-compatible APIs cannot.
import { pyStrip } from '../core/py/format.ts';

/** A token sequence the decoder must not complete. */
export type TokenSeq = readonly number[];

/**
 * Ban list from strings: each string is stripped (Python `str.strip`), empty ones are skipped, and
 * two variants are tokenized without special tokens — the bare string and " " + string — keeping
 * non-empty sequences and dropping duplicate token tuples (first occurrence wins).
 */
export function buildBanList(strings: readonly string[], tokenize: (text: string) => readonly number[]): TokenSeq[] {
  const out: TokenSeq[] = [];
  const seen = new Set<string>();
  for (const raw of strings) {
    const s = pyStrip(raw);
    if (!s) continue;
    for (const variant of [s, ' ' + s]) {
      const ids = [...tokenize(variant)];
      if (ids.length === 0) continue;
      const key = ids.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(ids);
    }
  }
  return out;
}

/**
 * Tokens to mask at the next step. A one-token sequence is masked at every step; a longer one only
 * when the last L−1 tokens generated in this turn equal its first L−1 tokens (the match never
 * reaches back into the prompt). `applications` counts every (sequence, step) mask application, as
 * the reference's `n_banned_masked` does, whether or not the masked token would have won.
 */
export function bannedNextTokens(banned: readonly TokenSeq[], generated: readonly number[]): { tokens: Set<number>; applications: number } {
  const tokens = new Set<number>();
  let applications = 0;
  for (const seq of banned) {
    const need = seq.length - 1;
    if (need > generated.length) continue;
    let match = true;
    for (let i = 0; i < need; i++) {
      if (generated[generated.length - need + i] !== seq[i]) {
        match = false;
        break;
      }
    }
    if (match) {
      tokens.add(seq[need]);
      applications++;
    }
  }
  return { tokens, applications };
}

/** First index at which some banned sequence occurs contiguously in `tokens`, or -1 (for checks). */
export function findBannedOccurrence(banned: readonly TokenSeq[], tokens: readonly number[]): { index: number; sequence: TokenSeq } | null {
  for (let end = 1; end <= tokens.length; end++) {
    for (const seq of banned) {
      if (seq.length > end) continue;
      let match = true;
      for (let i = 0; i < seq.length; i++) {
        if (tokens[end - seq.length + i] !== seq[i]) {
          match = false;
          break;
        }
      }
      if (match) return { index: end - seq.length, sequence: seq };
    }
  }
  return null;
}

/** The complete answers to ban, stripped (Python `str.strip`), as a set for per-step checks. */
export function answerBanSet(answers: readonly string[] | undefined): Set<string> {
  return new Set((answers ?? []).map((a) => pyStrip(a)));
}

/** Whether the answer generated so far may not end here: its stripped text is a banned answer. */
export function endBanned(answers: ReadonlySet<string>, textSoFar: string): boolean {
  return answers.size > 0 && answers.has(pyStrip(textSoFar));
}
