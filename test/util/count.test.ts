// formatCount (core/util/count.ts) writes counts as toLocaleString('en') does, without loading ICU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatCount } from '../../src/core/util/count.ts';

const icu = (n: number) => n.toLocaleString('en');

test('formatCount writes every safe integer as toLocaleString("en") does', () => {
  fc.assert(
    fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -1e7, max: 1e7 })), (n) => formatCount(n) === icu(n)),
    { numRuns: 5000 },
  );
  for (const n of [0, -0, 1, 999, 1000, -1000, 12345, 100000, 999999, 1000000, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])
    assert.equal(formatCount(n), icu(n), String(n));
  assert.equal(formatCount(1234567), '1,234,567');
});

test('anything but a safe integer is left to toLocaleString("en")', () => {
  for (const n of [0.5, 1234.5678, -1e21, 2 ** 60, Number.NaN, Infinity, -Infinity]) assert.equal(formatCount(n), icu(n), String(n));
});
