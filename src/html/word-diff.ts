// Word-level diffs between consecutive drafts, encoded compactly for the report's embedded data and
// the viewer's API: a flat list of [op, length] pairs (client/diff-segments.ts). The browser rebuilds
// every segment by slicing the two drafts it already has, so a diff costs a few integers instead of a
// second copy of the text.
import { diffWordsWithSpace } from 'diff';
import type { DiffOp, EncodedDiff } from './client/diff-segments.ts';

// The format and its decoding live with the browser code that renders it (client/diff-segments.ts).
export { decodeWordDiff, type DiffOp, type DiffSegment, type EncodedDiff } from './client/diff-segments.ts';

interface WordDiffOptions {
  /** Give up (and show the drafts whole) beyond this many edited tokens. */
  maxEditLength?: number;
}

// Token-level Myers is O(N·D); 4,000 edited tokens keeps a pathological pair under a second or so
// while never truncating the ordinary revisions of a few hundred words.
const DEFAULT_MAX_EDIT_LENGTH = 4000;

/**
 * Diffs two drafts word by word. Whitespace runs are tokens of their own, so the segments
 * reproduce both texts byte for byte (recurrence in this protocol is byte identity, so a
 * whitespace-only change must stay visible).
 */
export function encodeWordDiff(oldText: string, newText: string, options: WordDiffOptions = {}): EncodedDiff {
  if (oldText === newText) return oldText.length ? [0, oldText.length] : [];
  const changes = diffWordsWithSpace(oldText, newText, { maxEditLength: options.maxEditLength ?? DEFAULT_MAX_EDIT_LENGTH });
  if (!changes) return null;
  const out: number[] = [];
  for (const c of changes) {
    if (!c.value.length) continue;
    const op: DiffOp = c.added ? 1 : c.removed ? -1 : 0;
    const last = out.length - 2;
    if (last >= 0 && out[last] === op) out[last + 1] += c.value.length;
    else out.push(op, c.value.length);
  }
  return out;
}
