import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { blake2b, blake2bHex } from '../../../src/core/py/blake2b.ts';
import { loadFixture } from './fixtures.ts';

const { blake2b: cases } = loadFixture('cpython-helpers.json');

for (const [data, kw, hex] of cases as [string, Record<string, any>, string][]) {
  test(`hashlib.blake2b(${JSON.stringify(data.slice(0, 24))}, ${JSON.stringify(kw)})`, () => {
    assert.equal(blake2bHex(data, { digestSize: kw.digest_size, key: kw.key, salt: kw.salt, person: kw.person }), hex);
  });
}

test('the default 64-byte digest equals Node’s blake2b512, a shorter digest is not its truncation', () => {
  const node = createHash('blake2b512').update('abc').digest('hex');
  assert.equal(blake2bHex('abc'), node);
  assert.notEqual(blake2bHex('abc', { digestSize: 8 }), node.slice(0, 16));
});

test('parameters are validated like hashlib', () => {
  assert.throws(() => blake2b('x', { digestSize: 0 }), /digest_size/);
  assert.throws(() => blake2b('x', { digestSize: 65 }), /digest_size/);
  assert.throws(() => blake2b('x', { salt: 'x'.repeat(17) }), /salt/);
  assert.throws(() => blake2b('x', { person: 'x'.repeat(17) }), /person/);
  assert.throws(() => blake2b('x', { key: 'k'.repeat(65) }), /key/);
});
