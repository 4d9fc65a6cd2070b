// Word-level diffs between consecutive drafts, encoded compactly for the embedded report data.
// An encoded diff is a flat list of [op, length] pairs measured in UTF-16 code units: op 0 keeps
// `length` units of both texts, -1 removes them from the old text, +1 inserts them from the new
// text. The browser rebuilds every segment by slicing the two drafts it already has, so a diff
// costs a few integers instead of a second copy of the text.
import { diffWordsWithSpace } from 'diff';

export type DiffOp = -1 | 0 | 1;
/** Flat [op, length, op, length, …]; null when the diff was abandoned as too costly. */
export type EncodedDiff = number[] | null;

interface WordDiffOptions {
  /** Give up (and show the drafts whole) beyond this many edited tokens. */
  maxEditLength?: number;
}

/** A decoded segment, for renderers and tests. */
export interface DiffSegment {
  op: DiffOp;
  text: string;
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

/** Rebuilds the segments of an encoded diff from the two texts (the browser does the same). */
export function decodeWordDiff(oldText: string, newText: string, encoded: number[]): DiffSegment[] {
  const segments: DiffSegment[] = [];
  let i = 0;
  let j = 0;
  for (let k = 0; k < encoded.length; k += 2) {
    const op = encoded[k] as DiffOp;
    const len = encoded[k + 1];
    if (op === 1) {
      segments.push({ op, text: newText.slice(j, j + len) });
      j += len;
    } else if (op === -1) {
      segments.push({ op, text: oldText.slice(i, i + len) });
      i += len;
    } else {
      segments.push({ op, text: newText.slice(j, j + len) });
      i += len;
      j += len;
    }
  }
  return segments;
}
