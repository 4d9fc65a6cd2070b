// Parity with NLTK's own output: every row of ../shared/data/collie/nltk_reference.jsonl (2,080 COLLIE
// witnesses) for sent_tokenize, word_tokenize and the exact-length word count. On a mismatch the test
// prints the first differing rows with the position of the first difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { requireShared } from '../helpers.ts';
import { countWords, loadPunktParams, sentTokenize, wordTokenize } from '../../src/core/text/index.ts';
import { pyStrip } from '../../src/core/py/format.ts';

const reference = requireShared('collie', 'nltk_reference.jsonl');
const witnesses = requireShared('collie', 'collie_all.jsonl');
const punkt = requireShared('punkt', 'english.json');
const skip = reference.skip || witnesses.skip || punkt.skip;

function readJsonl(path: string): Array<Record<string, any>> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/** A readable account of where two token lists part. */
export function describeDiff(got: readonly string[], expected: readonly string[]): string {
  let i = 0;
  while (i < got.length && i < expected.length && got[i] === expected[i]) i++;
  const window = (xs: readonly string[]): string => JSON.stringify(xs.slice(Math.max(0, i - 2), i + 3));
  return `first difference at index ${i} (lengths ${got.length} vs ${expected.length}): got ${window(got)}, NLTK ${window(expected)}`;
}

test('parity with NLTK on every COLLIE witness (nltk_reference.jsonl)', { skip }, () => {
  const params = loadPunktParams(punkt.path!);
  const text = new Map(readJsonl(witnesses.path!).map((r) => [r.id as string, r.witness as string]));
  const rows = readJsonl(reference.path!);
  assert.equal(rows.length, 2080);
  const failures: string[] = [];
  const counts = { sent: 0, word: 0, count: 0 };
  for (const row of rows) {
    const t = text.get(row.id);
    assert.ok(t !== undefined, `${row.id}: no witness in collie_all.jsonl`);
    const sents = sentTokenize(t, params);
    const words = wordTokenize(t, params);
    const n = countWords(pyStrip(t));
    if (JSON.stringify(sents) !== JSON.stringify(row.sent_tokenize)) {
      counts.sent++;
      failures.push(`${row.id} sent_tokenize: ${describeDiff(sents, row.sent_tokenize)}`);
    }
    if (JSON.stringify(words) !== JSON.stringify(row.word_tokenize)) {
      counts.word++;
      failures.push(`${row.id} word_tokenize: ${describeDiff(words, row.word_tokenize)}`);
    }
    if (n !== row.word_count_regex) {
      counts.count++;
      failures.push(`${row.id} word_count_regex: got ${n}, reference ${row.word_count_regex}`);
    }
  }
  if (failures.length) {
    console.log(`mismatches: ${JSON.stringify(counts)} of ${rows.length} rows; first ones:\n  ${failures.slice(0, 8).join('\n  ')}`);
  }
  assert.deepEqual(counts, { sent: 0, word: 0, count: 0 });
});
