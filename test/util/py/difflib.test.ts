import test from 'node:test';
import assert from 'node:assert/strict';
import { getCloseMatches, SequenceMatcher } from '../../../src/core/py/difflib.ts';
import { pyFloatRepr } from '../../../src/core/py/format.ts';
import { loadFixture } from './fixtures.ts';

const { difflib: cases, ratios } = loadFixture('cpython-helpers.json');

test('get_close_matches agrees with CPython (tool names, argument names, contacts, paths, ties)', () => {
  for (const [q, cands, n, cutoff, want] of cases as [string, string[], number, number, string[]][]) {
    assert.deepEqual(getCloseMatches(q, cands, n, cutoff), want, `${q} in ${JSON.stringify(cands).slice(0, 60)}`);
  }
});

test('SequenceMatcher.ratio / quick_ratio agree with CPython, including the autojunk heuristic', () => {
  for (const [a, b, ratio, quick] of ratios as [string, string, string, string][]) {
    const m = new SequenceMatcher(a, b);
    assert.equal(pyFloatRepr(m.ratio()), ratio, `${a.slice(0, 12)} / ${b.slice(0, 12)}`);
    assert.equal(pyFloatRepr(m.quickRatio()), quick);
  }
});

test('ties go to the lexicographically greatest candidate', () => {
  assert.deepEqual(getCloseMatches('ab', ['ba', 'aa'], 1, 0), ['ba']);
  assert.deepEqual(getCloseMatches('x', [], 1, 0), []);
});
