// The events linkEvents returns (every event a run stores) keep one V8 hidden class per shape.
// On Node 20 an object literal that starts with a spread and goes on with more properties
// (`{ ...e, id }`) gets a hidden class of its own once its call site is warm, and in linkEvents that
// cost a whole run about 8% of its CPU (docs/performance.md#hidden-classes).
// V8's own test intrinsic %HaveSameMap compares them; the flag that allows it is set for this file's
// process only, and the one Function compiled after it is the only code that uses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { linkEvents, type ChainHead } from '../../src/store/chain.ts';
import type { NewEvent } from '../../src/store/events.ts';

setFlagsFromString('--allow-natives-syntax');
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** How many of the objects after the first `warm` share the hidden class of the first of them. */
function sharing(objects: object[], warm: number): number {
  const later = objects.slice(warm);
  return later.filter((o) => sameHiddenClass(o, later[0])).length;
}

test('the intrinsic tells a spread followed by more properties apart (the pattern the store avoids)', () => {
  const spread = Array.from({ length: 60 }, (_, i) => {
    const e = { type: 'attempt_started', caseIndex: i, payload: {} };
    return { ...e, id: i };
  });
  // If a later Node shares these, the pattern is harmless there, and this file's other tests prove nothing.
  assert.ok(sharing(spread, 20) < 40, 'on this Node, `{ ...e, id }` shares one hidden class');
});

test('linkEvents gives the stored events of one shape one hidden class', () => {
  let head: ChainHead | null = null;
  let id = 0;
  const stored: object[] = [];
  const clock = () => '2026-01-01T00:00:00.000Z';
  head = linkEvents('r', head, [{ type: 'run_planned', payload: {} } as unknown as NewEvent], clock, 'test', () => ++id).head;
  for (let i = 0; i < 60; i++) {
    const events = [
      { type: 'attempt_started', caseIndex: i % 7, revision: i % 3, payload: { messages_sha256: 'x', message_count: 1, max_tokens: 8 } },
      { type: 'draft_accepted', caseIndex: i % 7, revision: i % 3, payload: { text: `draft ${i}` } },
    ] as unknown as NewEvent[];
    const linked = linkEvents('r', head, events, clock, 'test', () => ++id);
    head = linked.head;
    stored.push(...linked.stored);
  }
  // Both event types have the same fields, so every stored event past the warm-up shares one class.
  assert.equal(sharing(stored, 40), stored.length - 40);
});
