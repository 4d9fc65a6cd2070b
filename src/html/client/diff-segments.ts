// An encoded word diff and its decoding: pure code with neither Node nor the DOM, so the report's
// and the viewer's browser scripts (word-diff.ts here) and the Node side (../word-diff.ts, which
// encodes) share one definition. An encoded diff is a flat list of [op, length] pairs measured in
// UTF-16 code units: op 0 keeps `length` units of both texts, -1 removes them from the old text,
// +1 inserts them from the new text; every segment is a slice of one of the two drafts.

export type DiffOp = -1 | 0 | 1;
/** Flat [op, length, op, length, …]; null when the diff was abandoned as too costly. */
export type EncodedDiff = number[] | null;

/** A decoded segment, for renderers and tests. */
export interface DiffSegment {
  op: DiffOp;
  text: string;
}

/** Rebuilds the segments of an encoded diff from the two texts. */
export function decodeWordDiff(oldText: string, newText: string, encoded: readonly number[]): DiffSegment[] {
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
