// Streaming JSON Lines reading with 1-based line numbers; tolerates CRLF (the paper's lexical
// case file uses CRLF) and a UTF-8 byte-order mark before the first line (Windows editors write
// one), and skips blank lines. Batch verification reads its input with line-blocks.ts.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
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
