// Streaming JSON Lines reading with 1-based line numbers; tolerates CRLF (the paper's lexical
// case file uses CRLF) and a UTF-8 byte-order mark before the first line (Windows editors write
// one), and skips blank lines. Each line passes the text boundary (text-boundary.ts): invalid UTF-8,
// NUL or a lone surrogate in any string is the line's error, with the field that holds it.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { invalidUtf8Field, jsonTextFault, utf8Fault } from './text-boundary.ts';

interface JsonlLine {
  line: number;
  raw: string;
  value?: unknown;
  error?: string;
  /** The field the error is about (a path such as `anchors[2]`), when it is one field's. */
  field?: string;
}

/** One line's bytes (without its line break) as a JsonlLine, or null when blank. */
function jsonlLine(bytes: Buffer, line: number): JsonlLine | null {
  if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  const bad = utf8Fault(bytes);
  const raw = bytes.toString('utf8');
  if (raw.trim() === '') return null;
  if (bad) return { line, raw, error: bad.problem, field: invalidUtf8Field(bytes) ?? undefined };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return { line, raw, error: `invalid JSON (${(e as Error).message})` };
  }
  const fault = jsonTextFault(value);
  if (fault) return { line, raw, error: fault.fault.problem, field: fault.field };
  return { line, raw, value };
}

/** The lines of a file or stream, parsed; a line ends at LF, CRLF or a lone CR (as readline splits them). */
export async function* readJsonlLines(input: string | Readable): AsyncGenerator<JsonlLine> {
  const stream = typeof input === 'string' ? createReadStream(input) : input;
  // A line longer than one chunk is kept in parts (joined once it ends), never re-concatenated per chunk.
  let parts: Buffer[] = [];
  let line = 0;
  let lastWasCr = false;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i];
      if (b !== 0x0a && b !== 0x0d) continue;
      // The LF of a CRLF split across chunks (or within one) ends nothing more.
      if (b === 0x0a && lastWasCr && i === start) {
        start = i + 1;
        lastWasCr = false;
        continue;
      }
      parts.push(buf.subarray(start, i));
      const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      parts = [];
      const item = jsonlLine(bytes, ++line);
      if (item) yield item;
      lastWasCr = b === 0x0d;
      start = i + 1;
    }
    if (start < buf.length) {
      parts.push(Buffer.from(buf.subarray(start)));
      lastWasCr = false;
    }
  }
  if (parts.length) {
    const item = jsonlLine(parts.length === 1 ? parts[0] : Buffer.concat(parts), line + 1);
    if (item) yield item;
  }
}
