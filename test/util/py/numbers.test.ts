import test from 'node:test';
import assert from 'node:assert/strict';
import { pyFormatG, pyRound } from '../../../src/core/py/numbers.ts';
import { pyFloatRepr } from '../../../src/core/py/format.ts';
import { loadFixture } from './fixtures.ts';

const { round, format_g } = loadFixture('cpython-helpers.json');

const parseFloatRepr = (s: string): number => (s === 'inf' ? Infinity : s === '-inf' ? -Infinity : s === 'nan' ? NaN : Number(s));

test('round(x, n) matches CPython (half-even on exact ties, exact binary value otherwise)', () => {
  for (const [x, n, want] of round as [string, number, string][]) {
    assert.equal(pyFloatRepr(pyRound(parseFloatRepr(x), n)), want, `round(${x}, ${n})`);
  }
});

test('round differs from the naive Math.round(x·10^n)/10^n where CPython does', () => {
  assert.equal(pyRound(2.675, 2), 2.67);
  assert.equal(pyRound(0.125, 2), 0.12);
  assert.equal(Math.round(0.125 * 100) / 100, 0.13);
});

test('format(v, "g") matches CPython for ints and floats', () => {
  for (const [x, type, want] of format_g as [string, string, string][]) {
    const v = type === 'int' ? BigInt(x) : parseFloatRepr(x);
    assert.equal(pyFormatG(v), want, `format(${x}, "g")`);
  }
});
