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
  pyStr,
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

test('one repr and one == for literal values and JSON values (json.loads reading)', () => {
  // Python: repr(json.loads('{"a": [1, 2.5, true, null, "x\'y"], "b": {}}'))
  const json = JSON.parse('{"a": [1, 2.5, true, null, "x\'y"], "b": {}}');
  assert.equal(pyReprValue(json, { numbers: 'json' }), `{'a': [1, 2.5, True, None, "x'y"], 'b': {}}`);
  assert.equal(pyReprValue(3, { numbers: 'json' }), '3');
  assert.equal(pyReprValue(3), '3.0', 'a PyValue number is a float');
  assert.equal(pyReprValue(3n, { numbers: 'json' }), '3');
  assert.equal(pyReprValue(undefined), 'None');
  assert.equal(pyReprValue(PyEllipsis), 'Ellipsis', 'Ellipsis is not a JSON object');
  assert.equal(pyStr(json.b, { numbers: 'json' }), '{}');
  assert.equal(pyStr('bare'), 'bare');
  // == needs no hint: 1 == 1.0 == True, containers element-wise, dict keys in any order.
  assert.ok(pyEquals(JSON.parse('{"x": 1, "y": [true]}'), JSON.parse('{"y": [1.0], "x": true}')));
  assert.ok(!pyEquals(JSON.parse('{"x": 1}'), JSON.parse('{"x": 1, "y": 2}')));
  assert.ok(!pyEquals(JSON.parse('{"toString": 1}'), {}), 'own keys only');
  assert.ok(!pyEquals({}, new PyDict([])), 'a JSON object is only compared with JSON objects');
  assert.ok(pyEquals([1, 'a'], [1n, 'a']));
  assert.ok(pyEquals(undefined, undefined) && !pyEquals(undefined, null));
  assert.ok(pyEquals(PyEllipsis, PyEllipsis));
});

test('str helpers use code points like Python', () => {
  assert.equal(pyLen('a😀b'), 3);
  assert.deepEqual(pySorted(['\uffff', '😀', 'b', 'B']), ['B', 'b', '\uffff', '😀']);
  assert.equal(pyStripChars('//notes/', '/'), 'notes');
  // Python: '😀x😀'.strip('😀') == 'x'; a lone surrogate in chars never splits a pair:
  // '😀x'.strip('\ud83d') == '😀x' and 'x😀'.strip('\ude00') == 'x😀' (code points, not UTF-16 units).
  assert.equal(pyStripChars('😀x😀', '😀'), 'x');
  assert.equal(pyStripChars('😀x', '\ud83d'), '😀x');
  assert.equal(pyStripChars('x😀', '\ude00'), 'x😀');
  assert.equal(pyStripChars('\ude00x\ud83d', '\ude00\ud83d'), 'x', 'lone surrogates are characters of their own');
  assert.equal(pyStripChars('..a.b..', '.'), 'a.b');
  assert.equal(pyStripChars('abc', ''), 'abc');
  assert.equal(pyStripChars('', '.'), '');
  assert.equal(pyStripChars('...', '.'), '');
});
