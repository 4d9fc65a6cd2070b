import test from 'node:test';
import assert from 'node:assert/strict';
import {
  PyBytes,
  PyComplex,
  PyDict,
  PyEllipsis,
  PySet,
  PyTuple,
  pyEquals,
  pyHashable,
  pyReprValue,
  pyTruthy,
  pyTypeName,
} from '../../../src/core/py/values.ts';
import { pyLen, pySorted, pyStripChars } from '../../../src/core/py/strings.ts';

// Expected strings written from CPython 3.11 output.
test('repr of nested containers, as Python prints them', () => {
  const v = new PyDict([
    ['name', 'Dana Bergmann'],
    ['tags', ['a', "it's", 'say "hi"']],
    ['pos', new PyTuple([1n, 2.5, -0.0])],
    ['one', new PyTuple(['x'])],
    ['none', null],
    ['ok', true],
  ]);
  assert.equal(
    pyReprValue(v),
    `{'name': 'Dana Bergmann', 'tags': ['a', "it's", 'say "hi"'], 'pos': (1, 2.5, -0.0), 'one': ('x',), 'none': None, 'ok': True}`,
  );
  assert.equal(pyReprValue([]), '[]');
  assert.equal(pyReprValue(new PyTuple([])), '()');
  assert.equal(pyReprValue(new PyDict([])), '{}');
  assert.equal(pyReprValue(new PySet([])), 'set()');
  assert.equal(pyReprValue(new PySet([1n, 2n])), '{1, 2}');
  assert.equal(pyReprValue(12.0), '12.0');
  assert.equal(pyReprValue(54.6806), '54.6806');
  assert.equal(pyReprValue(1e16), '1e+16');
  assert.equal(pyReprValue(123456789012345678901234567890n), '123456789012345678901234567890');
  assert.equal(pyReprValue(new PyComplex(0, 1)), '1j');
  assert.equal(pyReprValue(new PyComplex(1, 2)), '(1+2j)');
  assert.equal(pyReprValue(new PyComplex(-1, -2.5)), '(-1-2.5j)');
  assert.equal(pyReprValue(new PyComplex(-0.0, 1)), '(-0+1j)');
  assert.equal(pyReprValue(new PyBytes(Uint8Array.from([97, 0, 39, 255]))), `b"a\\x00'\\xff"`);
  assert.equal(pyReprValue(PyEllipsis), 'Ellipsis');
  assert.equal(pyReprValue('\t\x01é\u2028'), "'\\t\\x01é\\u2028'");
});

test('type names, truthiness, equality and hashability follow Python', () => {
  assert.deepEqual(
    [1n, 1.0, 'a', true, null, [], new PyTuple([]), new PyDict([]), new PySet([]), new PyComplex(0, 1), new PyBytes(new Uint8Array())].map(
      pyTypeName,
    ),
    ['int', 'float', 'str', 'bool', 'NoneType', 'list', 'tuple', 'dict', 'set', 'complex', 'bytes'],
  );
  assert.deepEqual([0n, 0.0, '', null, [], NaN, 'x', [0n]].map(pyTruthy), [false, false, false, false, false, true, true, true]);
  assert.ok(pyEquals(1n, 1.0) && pyEquals(true, 1n) && pyEquals(new PyTuple([1n]), new PyTuple([1.0])));
  assert.ok(!pyEquals('1', 1n));
  assert.ok(pyHashable(new PyTuple([1n, 'a'])) && !pyHashable(new PyTuple([[1n]])) && !pyHashable([]));
});

test('str helpers use code points like Python', () => {
  assert.equal(pyLen('a😀b'), 3);
  assert.deepEqual(pySorted(['\uffff', '😀', 'b', 'B']), ['B', 'b', '\uffff', '😀']);
  assert.equal(pyStripChars('//notes/', '/'), 'notes');
});
