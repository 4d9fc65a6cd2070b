// Batch verification as a library: streaming (each result is written before the next input line
// arrives), input order kept, atomic file output that leaves nothing behind on failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { verifyBatch, verifyBatchToFile } from '../../src/core/verify/index.ts';
import { tempDir } from '../tmp.ts';

const line = (id: number, words: number) =>
  JSON.stringify({ id, family: 'exact-length', target: 3, anchors: [], text: Array.from({ length: words }, () => 'w').join(' ') }) + '\n';

test('verifyBatch streams: a result is out before the next line is in', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const received: string[] = [];
  output.on('data', (chunk: Buffer) => received.push(...chunk.toString().split('\n').filter(Boolean)));
  const done = verifyBatch(input, output);
  for (let i = 1; i <= 3; i++) {
    input.write(line(i, i + 1));
    // Wait until this line's result appears, while the input is still open.
    while (received.length < i) await new Promise((r) => setTimeout(r, 5));
    assert.equal(JSON.parse(received[i - 1]).id, i);
  }
  input.end();
  const summary = await done;
  assert.deepEqual(summary, { lines: 3, verified: 3, failed: 0 });
  assert.deepEqual(
    received.map((r) => JSON.parse(r).error),
    [-1, 0, 1],
  );
});

test('verifyBatch keeps order over many lines and counts failures', async () => {
  const lines = Array.from({ length: 2000 }, (_, i) => (i % 500 === 7 ? '{oops}\n' : line(i, (i % 5) + 1)));
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on('data', (c: Buffer) => chunks.push(c.toString()));
  const summary = await verifyBatch(Readable.from(lines), output, { progressEvery: 100 });
  output.end();
  await once(output, 'end');
  const out = chunks
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(out.length, 2000);
  assert.deepEqual(summary, { lines: 2000, verified: 1996, failed: 4 });
  out.forEach((o, i) => {
    if (i % 500 === 7) assert.deepEqual([o.id, o.line], [null, i + 1]);
    else assert.equal(o.id, i);
  });
});

test('verifyBatchToFile leaves no file (and no temporary) when the input fails mid-way', async () => {
  const dir = tempDir('revloop-batch-');
  const out = join(dir, 'states.jsonl');
  async function* failing() {
    yield line(1, 3);
    throw new Error('disk went away');
  }
  await assert.rejects(verifyBatchToFile(Readable.from(failing()), out), /disk went away/);
  assert.equal(existsSync(out), false);
  assert.deepEqual(readdirSync(dir), []);
});
