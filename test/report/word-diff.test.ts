import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeWordDiff, encodeWordDiff } from '../../src/html/word-diff.ts';

function sides(a: string, b: string, enc: number[]): { old: string; new: string } {
  const segs = decodeWordDiff(a, b, enc);
  return {
    old: segs
      .filter((s) => s.op !== 1)
      .map((s) => s.text)
      .join(''),
    new: segs
      .filter((s) => s.op !== -1)
      .map((s) => s.text)
      .join(''),
  };
}

test('word diff: segments rebuild both drafts byte for byte (property)', () => {
  const word = fc.oneof(
    fc.constantFrom('the', 'tea', 'green', 'don’t', "it's", '45-day', '😀', 'é', 'x\u0301', '\u2028', '</script>'),
    fc.string({ maxLength: 6 }),
  );
  const sep = fc.constantFrom(' ', '  ', '\n', '\n\n', '\t', '', ', ', '. ');
  const text = fc.array(fc.tuple(word, sep), { maxLength: 30 }).map((parts) => parts.map(([w, s]) => w + s).join(''));
  fc.assert(
    fc.property(text, text, (a, b) => {
      const enc = encodeWordDiff(a, b);
      assert.ok(enc, 'small diffs are never abandoned');
      const got = sides(a, b, enc);
      assert.equal(got.old, a);
      assert.equal(got.new, b);
      // Flat [op, length] pairs with positive lengths and no two equal ops in a row.
      assert.equal(enc.length % 2, 0);
      for (let i = 0; i < enc.length; i += 2) {
        assert.ok([-1, 0, 1].includes(enc[i]));
        assert.ok(enc[i + 1] > 0);
        if (i) assert.notEqual(enc[i], enc[i - 2]);
      }
    }),
    { numRuns: 300, seed: 20260930 },
  );
});

test('word diff: a changed word is removed and inserted, the rest kept', () => {
  const a = 'I like green tea.';
  const b = 'I like black tea.';
  const segs = decodeWordDiff(a, b, encodeWordDiff(a, b)!);
  assert.deepEqual(segs, [
    { op: 0, text: 'I like ' },
    { op: -1, text: 'green' },
    { op: 1, text: 'black' },
    { op: 0, text: ' tea.' },
  ]);
});

test('word diff: whitespace-only changes stay visible (drafts are compared byte for byte)', () => {
  const segs = decodeWordDiff('a b', 'a  b', encodeWordDiff('a b', 'a  b')!);
  assert.ok(
    segs.some((s) => s.op !== 0),
    'the extra space is an edit',
  );
});

test('word diff: identical and empty drafts', () => {
  assert.deepEqual(encodeWordDiff('same text', 'same text'), [0, 9]);
  assert.deepEqual(encodeWordDiff('', ''), []);
  assert.deepEqual(sides('', 'new words', encodeWordDiff('', 'new words')!), { old: '', new: 'new words' });
  assert.deepEqual(sides('old words', '', encodeWordDiff('old words', '')!), { old: 'old words', new: '' });
});

test('word diff: a pair beyond the edit limit is abandoned (null), not truncated', () => {
  const a = Array.from({ length: 300 }, (_, i) => `a${i}`).join(' ');
  const b = Array.from({ length: 300 }, (_, i) => `b${i}`).join(' ');
  assert.equal(encodeWordDiff(a, b, { maxEditLength: 50 }), null);
  const full = encodeWordDiff(a, b);
  assert.ok(full);
  assert.deepEqual(sides(a, b, full), { old: a, new: b });
});
