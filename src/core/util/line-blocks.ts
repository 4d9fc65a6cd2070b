// Lines in blocks, read as bytes: the reader of batch inputs (`revloop verify --jsonl`, verifyBatch).
// Each block is the complete lines one read completed, decoded once; a line longer than a read is
// gathered from its pieces once it ends (never re-scanned, so a 50 MB line costs what its bytes cost).
//
// This is also the one place where the bytes of a batch input are checked before they become text
// (checkBlockBytes): a line that is not valid UTF-8 is reported by number and never decoded into
// replacement characters that would then be verified as if the model had written them.
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** Complete input lines as they arrive (see readLineBlocks). */
export interface LineBlock {
  /** 1-based number of lines[0] in the input. */
  firstLine: number;
  /** The lines, without their "\n" or a "\r" before it (blank lines included, so numbers stay right). */
  lines: string[];
  /** Bytes of input read so far (for progress). */
  bytesRead: number;
  /** Lines that are not valid UTF-8 (indices into `lines`, with the problem); absent when every line is. */
  invalid?: Array<[index: number, problem: string]>;
}

/** Bytes per read: a pipe's chunk size. A block's lines stay alive until it is verified; small blocks keep them young. */
const READ_BYTES = 1 << 16;

/**
 * Lines in blocks: whatever complete lines each read completes, as soon as it arrives (so a slow
 * producer's lines are not held back). A file is read synchronously, one block at a time as the
 * consumer asks; a stream keeps its own backpressure. A UTF-8 byte-order mark before the first line
 * is dropped. Lines end at "\n"; "\r\n" is accepted.
 */
export async function* readLineBlocks(input: string | Readable): AsyncGenerator<LineBlock> {
  const state = new BlockState();
  if (typeof input === 'string') {
    const fd = openSync(input, 'r');
    try {
      for (;;) {
        const buf = Buffer.allocUnsafe(READ_BYTES);
        const n = readSync(fd, buf, 0, READ_BYTES, null);
        if (n === 0) break;
        const block = state.push(n === READ_BYTES ? buf : buf.subarray(0, n));
        if (block) yield block;
      }
    } finally {
      closeSync(fd);
    }
  } else {
    for await (const chunk of input) {
      const block = state.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
      if (block) yield block;
    }
  }
  const last = state.end();
  if (last) yield last;
}

/** The bytes after the last complete line, kept as the reads delivered them (joined once, when the line ends). */
class BlockState {
  private pieces: Buffer[] = [];
  private firstLine = 1;
  private bytesRead = 0;
  private start = true;

  push(chunk: Buffer): LineBlock | null {
    this.bytesRead += chunk.length;
    const nl = chunk.lastIndexOf(0x0a);
    if (nl < 0) {
      if (chunk.length > 0) this.pieces.push(chunk);
      return null;
    }
    const head = chunk.subarray(0, nl);
    const bytes = this.pieces.length === 0 ? head : Buffer.concat([...this.pieces, head]);
    this.pieces = nl + 1 < chunk.length ? [chunk.subarray(nl + 1)] : [];
    return this.block(bytes);
  }

  end(): LineBlock | null {
    if (this.pieces.length === 0) return null;
    const bytes = Buffer.concat(this.pieces);
    this.pieces = [];
    return bytes.length > 0 ? this.block(bytes) : null;
  }

  private block(bytes: Buffer): LineBlock {
    let from = 0;
    if (this.start) {
      this.start = false;
      if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) from = 3;
    }
    const body = from === 0 ? bytes : bytes.subarray(from);
    const lines = splitLines(body);
    const b: LineBlock = { firstLine: this.firstLine, lines, bytesRead: this.bytesRead };
    const invalid = checkBlockBytes(body);
    if (invalid) b.invalid = invalid;
    this.firstLine += lines.length;
    return b;
  }
}

/**
 * The block's lines, each decoded on its own: an ASCII line becomes a one-byte string by copying its
 * bytes (no UTF-8 decoding, and JSON.parse and the verifiers work faster on one-byte strings than on
 * the two-byte strings a whole block decodes to when any of its lines holds a non-ASCII character);
 * the others are decoded as UTF-8. A "\r" before a "\n" is not part of the line.
 */
function splitLines(body: Buffer): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    let end = body.indexOf(0x0a, start);
    const last = end < 0;
    if (last) end = body.length;
    const stop = end > start && body[end - 1] === 0x0d ? end - 1 : end;
    lines.push(body.toString(isAscii(body.subarray(start, stop)) ? 'latin1' : 'utf8', start, stop));
    if (last) return lines;
    start = end + 1;
  }
}

/**
 * The byte-level check of a block of complete lines (no "\n" inside a multi-byte character, so lines
 * can be checked one by one): the lines that are not valid UTF-8, with the offset of the first bad
 * byte, or null when the whole block is valid (one pass of a SIMD validator; the common case).
 */
export function checkBlockBytes(body: Buffer): Array<[number, string]> | null {
  if (isUtf8(body)) return null;
  const out: Array<[number, string]> = [];
  let start = 0;
  for (let index = 0; start <= body.length; index++) {
    let end = body.indexOf(0x0a, start);
    if (end < 0) end = body.length;
    const line = body.subarray(start, end);
    if (!isUtf8(line)) out.push([index, `not valid UTF-8 (byte ${firstInvalidByte(line) + 1} of the line); the input must be UTF-8`]);
    start = end + 1;
  }
  return out;
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence. */
function firstInvalidByte(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    // Continuation bytes and the smallest code point of each sequence length.
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (n === 0) return i;
    const min = n === 1 ? 0x80 : n === 2 ? 0x800 : 0x10000;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return b.length;
}
