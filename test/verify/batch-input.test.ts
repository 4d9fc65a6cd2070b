// The batch reader (src/core/util/line-blocks.ts) and the byte boundary of `revloop verify --jsonl`:
// reading is linear in the length of a line (issue 37: one 52 MB line never finished), a line that
// is not UTF-8 or holds a NUL or a lone surrogate fails on its own with a message naming it, and the
// other lines are verified as usual.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { readLineBlocks } from '../../src/core/util/line-blocks.ts';
import { verifyBatch } from '../../src/core/verify/index.ts';

async function run(chunks: Array<Buffer | string>) {
  let out = '';
  const sink = new Writable({
    write(chunk, _e, done) {
      out += chunk.toString();
      done();
    },
  });
  const summary = await verifyBatch(Readable.from(chunks), sink);
  sink.end();
  await once(sink, 'finish');
  return {
    summary,
    records: out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

test('a 16 MB line arriving in 64 KiB pieces is read in linear time: each piece is searched for a newline once', async () => {
  const n = Math.floor((16 << 20) / 5);
  const words = 'word '.repeat(n);
  const line = Buffer.from(JSON.stringify({ id: 'long', family: 'exact-length', target: 1, anchors: [], text: words }) + '\n');
  const pieces: Buffer[] = [];
  for (let i = 0; i < line.length; i += 1 << 16) pieces.push(Buffer.from(line.subarray(i, i + (1 << 16))));
  // Count the bytes the reader looks through while it searches for line ends.
  let scanned = 0;
  const proto = Buffer.prototype as unknown as Record<'indexOf' | 'lastIndexOf', (this: Buffer, ...a: unknown[]) => number>;
  const saved = { indexOf: proto.indexOf, lastIndexOf: proto.lastIndexOf };
  for (const m of ['indexOf', 'lastIndexOf'] as const)
    proto[m] = function (this: Buffer, ...a: unknown[]) {
      scanned += this.length;
      return saved[m].apply(this, a);
    };
  const blocks = [];
  try {
    for await (const b of readLineBlocks(Readable.from(pieces))) blocks.push(b);
  } finally {
    Object.assign(proto, saved);
  }
  assert.equal(blocks.length, 1);
  assert.equal(blocks[0].lines[0].length, line.length - 1);
  // Searching the whole accumulated line again at every piece (as the old reader did) would look at
  // about pieces²/2 × 64 KiB = 2 GB; linear reading looks at each byte a small number of times.
  assert.ok(scanned >= line.length && scanned <= 3 * line.length, `${scanned} bytes searched for a ${line.length}-byte line`);

  const { summary, records } = await run(pieces);
  assert.deepEqual(summary, { lines: 1, verified: 1, failed: 0 });
  assert.equal(records[0].word_count, n);
});

test('a line that is not UTF-8 fails alone, naming the line and the byte; the others are verified', async () => {
  const ok = (id: string) => JSON.stringify({ id, family: 'exact-length', target: 2, anchors: [], text: 'café crème' }) + '\n';
  const prefix = Buffer.from('{"id": "bad", "family": "exact-length", "target": 2, "anchors": [], "text": "caf');
  const bad = Buffer.concat([prefix, Buffer.from([0xe9, 0x20]), Buffer.from('x"}\n')]);
  const { summary, records } = await run([Buffer.from(ok('a')), bad, Buffer.from(ok('c'))]);
  assert.deepEqual(summary, { lines: 3, verified: 2, failed: 1 });
  assert.equal(records[0].word_count, 2);
  assert.deepEqual(records[1], {
    id: null,
    line: 2,
    error: `not valid UTF-8 (byte ${prefix.length + 1} of the line); the input must be UTF-8`,
  });
  assert.equal(records[2].word_count, 2);
  // A multi-byte character split between two reads is not a problem.
  const split = Buffer.from(ok('split'));
  const at = split.indexOf(0xc3) + 1;
  const again = await run([split.subarray(0, at), split.subarray(at)]);
  assert.deepEqual(again.summary, { lines: 1, verified: 1, failed: 0 });
});

test('a NUL character or a lone surrogate (JSON escapes) fails its line, naming the field; a surrogate pair is text', async () => {
  const row = (id: string, text: string, anchors: string[] = []) =>
    JSON.stringify({ id, family: 'exact-length', target: 1, anchors, text }) + '\n';
  const { summary, records } = await run([
    row('nul', 'a\u0000b'),
    row('lone', 'a \ud800 b'),
    row('anchor', 'word', ['x\udc00']),
    row('pair', 'emoji \ud83d\ude00 here'),
  ]);
  assert.deepEqual(summary, { lines: 4, verified: 1, failed: 3 });
  assert.deepEqual(records[0], { id: 'nul', line: 1, error: 'text: holds a NUL character (U+0000, at character 2); remove it' });
  assert.deepEqual(records[1], {
    id: 'lone',
    line: 2,
    error: 'text: holds a lone surrogate (U+D800, at character 3), which is not text; remove it or pair it',
  });
  assert.match(String(records[2].error), /^anchors\[0\]: holds a lone surrogate \(U\+DC00/);
  assert.equal(records[3].word_count, 2);
});
