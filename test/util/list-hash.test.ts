// Incremental hashing of growing message lists (core/util/hash.ts ListHasher) gives exactly the
// one-shot hashes the records and the audit use, whatever the sequence of lists: extensions,
// edits in the middle, shorter lists, interleaved conversations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { messagesHasher, messagesSha256 } from '../../src/engine/loop.ts';
import { ConversationHashes, messagesCanonicalSha256 } from '../../src/models/http/openai-compatible.ts';
import type { ChatMessage } from '../../src/models/types.ts';

const message = fc.record({
  role: fc.constantFrom('user', 'assistant'),
  content: fc.string({ unit: 'binary', maxLength: 40 }),
}) as fc.Arbitrary<ChatMessage>;

/** A sequence of lists: mostly each one extending the last, sometimes edited or cut. */
const lists = fc
  .array(fc.tuple(fc.constantFrom('extend', 'extend', 'extend', 'edit', 'cut'), fc.array(message, { maxLength: 3 }), fc.nat()), {
    maxLength: 12,
  })
  .map((steps) => {
    const out: ChatMessage[][] = [];
    let cur: ChatMessage[] = [];
    for (const [kind, add, n] of steps) {
      if (kind === 'extend') cur = [...cur, ...add];
      else if (kind === 'edit' && cur.length) cur = cur.map((m, i) => (i === n % cur.length ? { ...m, content: m.content + 'x' } : m));
      else cur = cur.slice(0, cur.length ? n % cur.length : 0);
      out.push(cur);
    }
    return out;
  });

test("the engine hashes a trajectory's growing lists exactly as messagesSha256 does", () => {
  fc.assert(
    fc.property(lists, (seq) => {
      const h = messagesHasher();
      for (const l of seq) assert.equal(h(l), messagesSha256(l));
    }),
    { numRuns: 300 },
  );
});

test('the HTTP backend hashes interleaved conversations exactly as messagesCanonicalSha256 does', () => {
  fc.assert(
    fc.property(fc.array(lists, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 3 }), (convs, limit) => {
      const h = new ConversationHashes(limit);
      const n = Math.max(...convs.map((c) => c.length));
      for (let i = 0; i < n; i++) for (const c of convs) if (c[i]) assert.equal(h.digest(c[i]), messagesCanonicalSha256(c[i]));
    }),
    { numRuns: 300 },
  );
});

test('one array grown in place between digests is hashed whole (its earlier length is remembered, not its identity)', () => {
  const h = messagesHasher();
  const list: ChatMessage[] = [{ role: 'user', content: 'draft this' }];
  assert.equal(h(list), messagesSha256(list));
  list.push({ role: 'assistant', content: 'a draft' }, { role: 'user', content: 'revise it' });
  assert.equal(h(list), messagesSha256(list));
  assert.equal(h(list), messagesSha256(list), 'the same list twice (a retry)');
});
