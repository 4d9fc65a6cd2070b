import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pyRepr, pyFloatRepr, pyJsonDumps, pyStrip, PyFloat } from '../../src/core/py/format.ts';

test('pyRepr chooses quotes and escapes like Python', () => {
  assert.equal(pyRepr('the'), "'the'");
  assert.equal(pyRepr("don't"), '"don\'t"');
  assert.equal(pyRepr('say "hi"'), '\'say "hi"\'');
  assert.equal(pyRepr(`it's "x"`), `'it\\'s "x"'`);
  assert.equal(pyRepr('a\\b'), "'a\\\\b'");
  assert.equal(pyRepr('tab\there\nnl'), "'tab\\there\\nnl'");
  assert.equal(pyRepr('nb\u00a0sp'), "'nb\\xa0sp'");
  assert.equal(pyRepr('zw\u200bj'), "'zw\\u200bj'");
  assert.equal(pyRepr('café ’ ½'), "'café ’ ½'");
  assert.equal(pyRepr('\x7f\x01'), "'\\x7f\\x01'");
});

test('pyFloatRepr matches Python repr(float)', () => {
  const cases: Array<[number, string]> = [
    [0, '0.0'],
    [1, '1.0'],
    [0.1 + 0.2, '0.30000000000000004'],
    [0.39999999999999997, '0.39999999999999997'],
    [1e-4, '0.0001'],
    [1e-5, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [123456789012345680, '1.2345678901234568e+17'],
    [-2.5, '-2.5'],
    [1 / 3, '0.3333333333333333'],
  ];
  for (const [x, want] of cases) assert.equal(pyFloatRepr(x), want, String(x));
});

test('pyJsonDumps writes Python json.dumps bytes', () => {
  const v = { id: 'x', word_count: 3, missing: ['é'], joint_success: false, violation_vector: [0, 0.25, 1], e: new PyFloat(2) };
  assert.equal(
    pyJsonDumps(v),
    '{"id": "x", "word_count": 3, "missing": ["é"], "joint_success": false, "violation_vector": [0.0, 0.25, 1.0], "e": 2.0}',
  );
  assert.equal(pyJsonDumps({ a: NaN, b: null }), '{"a": NaN, "b": null}');
});

test('pyStrip strips Python whitespace (NBSP, U+001F, U+0085) but not U+FEFF or U+200B', () => {
  assert.equal(pyStrip('\u00a0\u001f\u0085 x \u3000\n'), 'x');
  assert.equal(pyStrip('\ufeffx\u200b'), '\ufeffx\u200b');
});
