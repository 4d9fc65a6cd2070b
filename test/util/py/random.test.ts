import test from 'node:test';
import assert from 'node:assert/strict';
import { PyRandom } from '../../../src/core/py/random.ts';
import { pyFloatRepr } from '../../../src/core/py/format.ts';
import { loadFixture } from './fixtures.ts';

const { random: cases } = loadFixture('cpython-helpers.json');

for (const [key, v] of Object.entries<any>(cases)) {
  const [raw, type] = key.split('|');
  const seed = type === 'int' ? BigInt(raw) : raw;
  test(`random.Random(${type} ${JSON.stringify(raw)}) reproduces CPython draw for draw`, () => {
    const g = new PyRandom(seed);
    assert.deepEqual(
      Array.from({ length: 5 }, () => Number(g.getrandbits(32))),
      v.u32,
    );
    assert.deepEqual(
      Array.from({ length: 3 }, () => pyFloatRepr(g.random())),
      v.random,
    );
    assert.deepEqual(
      Array.from({ length: 5 }, () => g.randrange(1000)),
      v.randbelow,
    );
    assert.deepEqual(
      Array.from({ length: 5 }, () => g.randint(9, 20)),
      v.randint,
    );
    assert.deepEqual(
      Array.from({ length: 5 }, () => g.choice(Array.from('abcdefghijklmnop'))),
      v.choice,
    );
    assert.equal(g.getrandbits(100).toString(), v.big);
    assert.deepEqual(
      [...Array.from({ length: 3 }, () => g.randrange(3, 100, 7)), ...Array.from({ length: 3 }, () => g.randrange(50, 0, -3))],
      v.randrange_step,
    );
    assert.equal(String(g.randrange(2 ** 40)), v.randbig);
    const l = Array.from({ length: 20 }, (_, i) => i);
    g.shuffle(l);
    assert.deepEqual(l, v.shuffle);
    assert.deepEqual(
      g.sample(
        Array.from({ length: 30 }, (_, i) => i),
        5,
      ),
      v.sample_pool,
      'sample, pool algorithm',
    );
    assert.deepEqual(
      g.sample(
        Array.from({ length: 1000 }, (_, i) => i),
        8,
      ),
      v.sample_set,
      'sample, set algorithm',
    );
    assert.deepEqual(g.sample(['todo', 'summary', 'handover', 'budget', 'agenda', 'checklist'], 2), v.sample_all);
  });
}

test('a number seed and the same bigint seed give the same stream', () => {
  const a = new PyRandom(20260808);
  const b = new PyRandom(20260808n);
  assert.equal(a.random(), b.random());
});

test('errors mirror CPython: empty choice, empty range, non-integer seeds', () => {
  const g = new PyRandom(1);
  assert.throws(() => g.choice([]), /Cannot choose from an empty sequence/);
  assert.throws(() => g.randrange(5, 5), /empty range/);
  assert.throws(() => g.sample([1, 2], 3), /Sample larger than population/);
  assert.throws(() => new PyRandom(1.5), /integers/);
});

test('copyFrom: a generator copied from a seeded one draws exactly what the seeded one draws', () => {
  const seeded = new PyRandom(0);
  const copy = new PyRandom(null).copyFrom(seeded);
  const fresh = new PyRandom(0);
  for (let i = 0; i < 2000; i++) assert.equal(copy.random(), fresh.random());
  // The template itself was not advanced by the copy's draws.
  assert.equal(seeded.random(), new PyRandom(0).random());
});
