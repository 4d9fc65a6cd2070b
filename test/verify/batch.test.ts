// Batch verification as a library: streaming (each result is written before the next input line
// arrives), input order kept, atomic file output that leaves nothing behind on failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { messyJsonl } from '../../bench/messy-outputs.ts';
import { CHUNK_LINES } from '../../src/core/verify/batch.ts';
import { verifyBatch, verifyBatchToFile, type BatchOptions } from '../../src/core/verify/index.ts';
import { requirePunkt } from '../helpers.ts';
import { tempDir } from '../tmp.ts';

const tmp = () => tempDir('revloop-batch-');

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
  const dir = tmp();
  const out = join(dir, 'states.jsonl');
  async function* failing() {
    yield line(1, 3);
    throw new Error('disk went away');
  }
  await assert.rejects(verifyBatchToFile(Readable.from(failing()), out), /disk went away/);
  assert.equal(existsSync(out), false);
  assert.deepEqual(readdirSync(dir), []);
});

/** Collects everything written to it; optionally slow, to make the batch wait for 'drain'. */
class Sink extends Writable {
  text = '';
  constructor(private readonly delayMs = 0) {
    super({ highWaterMark: 1024 });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    this.text += chunk.toString();
    if (this.delayMs) setTimeout(done, this.delayMs);
    else done();
  }
}

async function run(input: string | Readable | Iterable<string> | AsyncIterable<string>, options: BatchOptions = {}, sink = new Sink()) {
  const stream = typeof input === 'string' || input instanceof Readable ? input : Readable.from(input);
  const summary = await verifyBatch(stream, sink, options);
  sink.end();
  await once(sink, 'finish');
  return { summary, out: sink.text };
}

// Our own messy texts over all six families (bench/messy-outputs.ts, synthetic targets).
const punkt = requirePunkt();
const messy = punkt.skip ? '' : messyJsonl({ rows: 6 * CHUNK_LINES, seed: 5, targets: 'synthetic' });

test('--jobs: the output is byte-identical with 1 and 3 threads, and the workers did verify chunks', { skip: punkt.skip }, async () => {
  const one = await run(Readable.from([messy]), { jobs: 1 });
  // Hand the input over in two parts, the second once the workers have had time to start, so that
  // chunks reach them (the main thread would otherwise verify a short input alone).
  const threads = new Set<number>();
  const lines = messy.split(/(?<=\n)/);
  async function* slowStart() {
    yield lines.slice(0, 2 * CHUNK_LINES).join('');
    await sleep(3000);
    yield lines.slice(2 * CHUNK_LINES).join('');
  }
  const three = await run(Readable.from(slowStart()), { jobs: 3, workersFrom: 1, onChunk: (_seq, thread) => threads.add(thread) });
  assert.equal(three.out, one.out);
  assert.deepEqual(three.summary, one.summary);
  assert.equal(one.summary.lines, 6 * CHUNK_LINES);
  assert.ok(
    [...threads].some((t) => t > 0),
    `chunks verified by threads ${[...threads].join(', ')}: no worker took part`,
  );
});

test('--jobs: a short input never starts a worker; error lines and blank lines keep their numbers', async () => {
  const threads = new Set<number>();
  const input = [line(1, 3), '\n', '{oops}\n', line(2, 2)].join('');
  const { out, summary } = await run([input], { jobs: 4, onChunk: (_s, t) => threads.add(t) });
  assert.deepEqual([...threads], [0]);
  assert.deepEqual(summary, { lines: 3, verified: 2, failed: 1 });
  assert.deepEqual(
    out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).line ?? JSON.parse(l).id),
    [1, 3, 2],
  );
});

test('--jobs: by default, workers start only for an input of 16 MiB or more; workersFrom 0 starts them at once', async () => {
  // About 3 MB, handed over in two parts with a pause between them: long enough for a worker
  // started on the first part (as the earlier 2 MiB threshold did) to report ready.
  const rows = Array.from({ length: 4800 }, (_, i) => line(i, 300)).join('');
  async function* paused() {
    yield rows.slice(0, rows.length - 1000 * 700);
    await sleep(1500);
    yield rows.slice(rows.length - 1000 * 700);
  }
  const ready: number[] = [];
  const threads = new Set<number>();
  const byDefault = await run(Readable.from(paused()), {
    jobs: 2,
    onWorkerReady: (t) => ready.push(t),
    onChunk: (_s, t) => threads.add(t),
  });
  assert.ok(rows.length > 3e6 && rows.length < 16 << 20);
  assert.deepEqual(ready, [], 'a worker started for an input under 16 MiB');
  assert.deepEqual([...threads], [0]);
  // Explicit: the second part waits for the worker to report ready (however slow a loaded machine makes it).
  let isReady!: () => void;
  const workerReady = new Promise<void>((resolve) => (isReady = resolve));
  async function* untilReady() {
    yield rows.slice(0, rows.length - 1000 * 700);
    await Promise.race([workerReady, sleep(60_000, undefined, { ref: false })]); // no worker at all: the assertion below says so
    yield rows.slice(rows.length - 1000 * 700);
  }
  const atOnce: number[] = [];
  const explicit = await run(Readable.from(untilReady()), {
    jobs: 2,
    workersFrom: 0,
    onWorkerReady: (t) => {
      atOnce.push(t);
      isReady();
    },
  });
  assert.deepEqual(atOnce, [1]);
  assert.equal(explicit.out, byDefault.out);
});

test('backpressure: a slow output holds the input back, and no line is lost or reordered', async () => {
  const total = 2000;
  let pulled = 0;
  let written = 0;
  let maxAhead = 0;
  function* source() {
    for (let i = 0; i < total; i++) {
      pulled++;
      yield line(i, (i % 5) + 1);
    }
  }
  const sink = new (class extends Sink {
    override _write(chunk: Buffer, enc: BufferEncoding, done: (e?: Error | null) => void): void {
      written += chunk.toString().split('\n').length - 1;
      maxAhead = Math.max(maxAhead, pulled - written);
      super._write(chunk, enc, done);
    }
  })(1);
  const { out, summary } = await run(source(), { jobs: 1 }, sink);
  assert.deepEqual(summary, { lines: total, verified: total, failed: 0 });
  const ids = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).id);
  assert.deepEqual(
    ids,
    Array.from({ length: total }, (_, i) => i),
  );
  // Lines read ahead of the output stay bounded (a few queued chunks and the stream buffers), not the whole input.
  assert.ok(maxAhead < 200, `read ${maxAhead} lines ahead of the output`);
});

test(
  'a closed output (EPIPE) stops the batch with that error, workers included, without reading the rest',
  { skip: punkt.skip },
  async () => {
    let pulled = 0;
    const lines = messy.split(/(?<=\n)/);
    function* source() {
      for (let round = 0; round < 20; round++)
        for (const l of lines) {
          pulled++;
          yield l;
        }
    }
    let writes = 0;
    const broken = new Writable({
      write(_chunk, _enc, done) {
        writes++;
        if (writes === 2) done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
        else done();
      },
    });
    await assert.rejects(run(source(), { jobs: 2 }, broken as unknown as Sink), (e: NodeJS.ErrnoException) => e.code === 'EPIPE');
    assert.ok(pulled < 20 * lines.length, 'stopped reading the input');
  },
);

test('idleCores: between 1 and the number of cores', async () => {
  const { availableParallelism } = await import('node:os');
  const { idleCores } = await import('../../src/core/verify/batch-threads.ts');
  const n = idleCores();
  assert.ok(Number.isInteger(n) && n >= 1 && n <= availableParallelism(), String(n));
});

test('--plugin families reach the workers; a family registered in this thread only keeps the batch here, same output', async () => {
  const { writeDocExample } = await import('./doc-example.ts');
  const { loadFamilyPlugins, unregisterFamily } = await import('../../src/core/verify/index.ts');
  const plugin = writeDocExample('.ts');
  await loadFamilyPlugins([plugin]);
  try {
    const input = Array.from(
      { length: 4 * CHUNK_LINES },
      (_, i) =>
        JSON.stringify(i % 2 ? { id: i, family: 'max-chars', targets: 40, text: 'x'.repeat(i % 60) } : JSON.parse(line(i, 3))) + '\n',
    );
    // The rest of the input once both workers have started (and loaded the plugin, or not), however
    // long that takes on a loaded machine.
    const slowStart = (ready: Promise<void>) =>
      (async function* () {
        yield input.slice(0, CHUNK_LINES).join('');
        await Promise.race([ready, sleep(60_000)]);
        yield input.slice(CHUNK_LINES).join('');
      })();
    const readiness = () => {
      let started = 0;
      let resolve!: () => void;
      const ready = new Promise<void>((r) => (resolve = r));
      return { ready, onWorkerReady: () => ++started === 2 && resolve() };
    };
    const alone = await run([input.join('')], { jobs: 1 });
    const viaPlugin = new Set<number>();
    const r1 = readiness();
    const shared = await run(Readable.from(slowStart(r1.ready)), {
      jobs: 3,
      plugins: [plugin],
      workersFrom: 1,
      onChunk: (_s, t) => viaPlugin.add(t),
      onWorkerReady: r1.onWorkerReady,
    });
    assert.equal(shared.out, alone.out);
    assert.ok(
      [...viaPlugin].some((t) => t > 0),
      'workers verified max-chars lines',
    );
    const hereOnly = new Set<number>();
    const r2 = readiness();
    const local = await run(Readable.from(slowStart(r2.ready)), {
      jobs: 3,
      workersFrom: 1,
      onChunk: (_s, t) => hereOnly.add(t),
      onWorkerReady: r2.onWorkerReady,
    });
    assert.equal(local.out, alone.out);
    assert.deepEqual([...hereOnly], [0], 'without the plugin module the workers lack max-chars: this thread verifies everything');
    assert.match(alone.out, /"char_count": 39, "max_chars": 40/);
  } finally {
    unregisterFamily('max-chars');
  }
});
