// Parity with the Python + NLTK reference on messy model outputs: revloop's output for the seeded
// inputs of bench/messy-outputs.ts must hash to the bytes the reference wrote for the same input
// (test/verify/fixtures/messy-python.json, from scripts/messy-parity-fixture.ts with Debian's
// python3-nltk). Preambles, Markdown, quotes, apostrophes, dashes, abbreviations and long rambling
// answers, over all six families; the large input runs on two threads, as `revloop verify` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { messyJsonl } from '../../bench/messy-outputs.ts';
import { familyCounts, type MessyParityCase } from '../../scripts/messy-parity-fixture.ts';
import { verifyBatch } from '../../src/core/verify/index.ts';
import { requirePunkt, requireShared } from '../helpers.ts';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/messy-python.json', import.meta.url), 'utf8')) as {
  versions: Record<string, string>;
  cases: MessyParityCase[];
};
const punkt = requirePunkt();

for (const c of fixture.cases) {
  const shared = c.targets === 'shared' ? requireShared('paper-cases', 'generation_combined480.jsonl') : { skip: false };
  const skip = punkt.skip || shared.skip;
  test(
    `messy outputs (${c.rows} rows, seed ${c.seed}, ${c.targets} targets): byte-identical to Python ${fixture.versions.python} + NLTK ${fixture.versions.nltk}`,
    { skip },
    async () => {
      let out = '';
      const sink = new Writable({
        write(chunk, _enc, done) {
          out += chunk.toString();
          done();
        },
      });
      const summary = await verifyBatch(Readable.from([messyJsonl(c)]), sink, { jobs: c.rows > 5000 ? 2 : 1 });
      sink.end();
      await once(sink, 'finish');
      assert.deepEqual(summary, { lines: c.rows, verified: c.rows, failed: 0 });
      assert.deepEqual(familyCounts(out), c.families, 'rows and joint successes per family');
      assert.equal(createHash('sha256').update(out).digest('hex'), c.sha256, 'SHA-256 of the output bytes');
    },
  );
}
