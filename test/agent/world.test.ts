// Seeded world generation (HARNESS.md §1.2, §9) against values computed with CPython.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildWorld, cloneWorld } from '../../src/envs/toolshed/world.ts';
import { deriveSeed, rngFor } from '../../src/envs/toolshed/seeding.ts';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/cpython-worlds.json', import.meta.url), 'utf8'));

test('derive_seed = BLAKE2b-64("{base}:{name}") mod (2^31 − 1)', () => {
  for (const [base, name, want] of fixture.derive as [number, string, number][]) assert.equal(deriveSeed(base, name), want, name);
});

test('rngFor is a random.Random on the derived seed', () => {
  assert.equal(rngFor(1, 'x').random(), rngFor(1, 'x').random());
  assert.notEqual(rngFor(1, 'x').random(), rngFor(1, 'y').random());
});

for (const [key, want] of Object.entries<any>(fixture.worlds)) {
  test(`build_world(${key}) matches CPython's draws`, () => {
    const [seed, index] = key.split(':').map(Number);
    const w = buildWorld(seed, index);
    assert.deepEqual(
      w.contacts.map((c) => [c.name, c.email, c.team]),
      want.contacts,
    );
    assert.deepEqual([...w.files.keys()], [...want.files, 'system/config.ini'], 'insertion order, read-only config last');
    assert.deepEqual(
      w.events.map((e) => [e.id, e.title, e.date, e.time, e.attendees[0]]),
      want.events,
    );
  });
}

test('worlds: fixed contents, read-only config, every team non-empty, fresh copies', () => {
  const w = buildWorld(20260808, 0);
  assert.deepEqual(w.files.get('system/config.ini'), { content: 'mode=standard', readonly: true });
  assert.equal(w.files.get('drafts/agenda.md')?.content, 'roadmap, hiring, incident review');
  assert.deepEqual(
    w.contacts.slice(0, 4).map((c) => c.team),
    ['design', 'platform', 'research', 'support'],
  );
  assert.ok(w.events.every((e) => !e.cancelled && e.attendees.length === 1));
  const copy = cloneWorld(w);
  copy.files.delete('drafts/agenda.md');
  copy.contacts[0].team = 'x';
  assert.ok(w.files.has('drafts/agenda.md'));
  assert.equal(w.contacts[0].team, 'design');
  assert.deepEqual(buildWorld(20260808, 0), w, 'deterministic');
  assert.notDeepEqual(buildWorld(1, 0).contacts, w.contacts, 'another seed, another office');
});
