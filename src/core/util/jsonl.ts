// Streaming JSON Lines reading with 1-based line numbers; tolerates CRLF (the paper's lexical
// case file uses CRLF) and a UTF-8 byte-order mark before the first line (Windows editors write
// one), and skips blank lines.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';

interface JsonlLine {
  line: number;
  raw: string;
  value?: unknown;
  error?: string;
}

export async function* readJsonlLines(input: string | Readable): AsyncGenerator<JsonlLine> {
  const stream = typeof input === 'string' ? createReadStream(input, { encoding: 'utf8' }) : input;
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const rawLine of rl) {
    line++;
    const unmarked = line === 1 && rawLine.startsWith('\uFEFF') ? rawLine.slice(1) : rawLine;
    const raw = unmarked.endsWith('\r') ? unmarked.slice(0, -1) : unmarked;
    if (raw.trim() === '') continue;
    try {
      yield { line, raw, value: JSON.parse(raw) };
    } catch (e) {
      yield { line, raw, error: `invalid JSON (${(e as Error).message})` };
    }
  }
}

/** Complete input lines as they arrive, one block per chunk read (see readLineBlocks). */
export interface LineBlock {
  /** 1-based number of lines[0] in the input. */
  firstLine: number;
  /** The lines, without their "\n" or a "\r" before it (blank lines included, so numbers stay right). */
  lines: string[];
  /** Bytes of input read so far (for progress). */
  bytesRead: number;
}

/**
 * Lines in blocks: whatever complete lines each chunk of the stream completes, as soon as it arrives
 * (so a slow producer's lines are not held back), with the stream's own backpressure (the next chunk
 * is read when the consumer asks for the next block). A UTF-8 byte-order mark before the first line
 * is dropped, as readJsonlLines does. Lines end at "\n"; "\r\n" is accepted.
 */
export async function* readLineBlocks(input: string | Readable, options: { highWaterMark?: number } = {}): AsyncGenerator<LineBlock> {
  const stream = typeof input === 'string' ? createReadStream(input, { highWaterMark: options.highWaterMark ?? 1 << 20 }) : input;
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let firstLine = 1;
  let bytesRead = 0;
  let start = true;
  const block = (text: string): LineBlock => {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i];
      if (l.length > 0 && l.charCodeAt(l.length - 1) === 0x0d) lines[i] = l.slice(0, -1);
    }
    const b = { firstLine, lines, bytesRead };
    firstLine += lines.length;
    return b;
  };
  for await (const chunk of stream) {
    let text: string;
    if (typeof chunk === 'string') {
      text = chunk;
      bytesRead += Buffer.byteLength(chunk);
    } else {
      text = decoder.write(chunk as Buffer);
      bytesRead += (chunk as Buffer).length;
    }
    if (start && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      start = false;
    }
    pending += text;
    const last = pending.lastIndexOf('\n');
    if (last < 0) continue;
    const complete = pending.slice(0, last);
    pending = pending.slice(last + 1);
    yield block(complete);
  }
  pending += decoder.end();
  if (pending !== '') yield block(pending);
}
