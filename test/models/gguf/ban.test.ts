// The decoder-ban rule of docs/harness.md §6, independent of any model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildBanList, bannedNextTokens, findBannedOccurrence } from '../../../src/models/ban.ts';

// A toy tokenizer: one token per character code (space = 32), so token lists are easy to read.
const chars = (s: string) => [...s].map((c) => c.codePointAt(0)!);

test('ban list: strips, skips empty strings, adds the leading-space variant, dedups token tuples', () => {
  const list = buildBanList(['  ab \n', '', '   ', 'ab', 'c'], chars);
  assert.deepEqual(list, [chars('ab'), chars(' ab'), chars('c'), chars(' c')]);
});

test('ban list: a tokenizer returning nothing drops that variant', () => {
  const list = buildBanList(['x'], (s) => (s.startsWith(' ') ? [] : chars(s)));
  assert.deepEqual(list, [chars('x')]);
});

test('a one-token sequence is masked at every step, including the first', () => {
  const banned = [[7]];
  assert.deepEqual([...bannedNextTokens(banned, []).tokens], [7]);
  assert.deepEqual([...bannedNextTokens(banned, [1, 2, 3]).tokens], [7]);
  assert.equal(bannedNextTokens(banned, [1]).applications, 1);
});

test('a longer sequence masks only its last token, and only after its prefix was generated', () => {
  const banned = [[1, 2, 3]];
  assert.equal(bannedNextTokens(banned, []).tokens.size, 0);
  assert.equal(bannedNextTokens(banned, [1]).tokens.size, 0);
  assert.deepEqual([...bannedNextTokens(banned, [1, 2]).tokens], [3]);
  assert.deepEqual([...bannedNextTokens(banned, [9, 9, 1, 2]).tokens], [3], 'the match is not anchored at the start');
  assert.equal(bannedNextTokens(banned, [1, 2, 9]).tokens.size, 0);
});

test('matches never reach into the prompt: only tokens generated in this turn count', () => {
  // The prompt ended with [1, 2], but generation has produced nothing yet.
  assert.equal(bannedNextTokens([[1, 2, 3]], []).tokens.size, 0);
});

test('applications count every (sequence, step) match, as n_banned_masked does', () => {
  const r = bannedNextTokens([[5], [1, 4], [2, 4], [1, 6]], [2, 1]);
  assert.deepEqual([...r.tokens].sort(), [4, 5, 6]);
  assert.equal(r.applications, 3);
});

test('property: a decoder that obeys the mask never emits a banned sequence', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
      fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 30 }),
      (banned, wishes) => {
        // Degenerate case: every token banned outright leaves nothing to emit.
        const singles = new Set(banned.filter((b) => b.length === 1).map((b) => b[0]));
        fc.pre(singles.size < 6);
        const out: number[] = [];
        for (const w of wishes) {
          const { tokens } = bannedNextTokens(banned, out);
          // Take the wished token unless masked, else the smallest allowed one.
          let t = w;
          if (tokens.has(t)) t = [0, 1, 2, 3, 4, 5].find((x) => !tokens.has(x))!;
          out.push(t);
        }
        assert.equal(findBannedOccurrence(banned, out), null);
      },
    ),
    { seed: 20260808, numRuns: 300 },
  );
});

test('findBannedOccurrence finds the sequence completed earliest (list order breaks ties)', () => {
  assert.deepEqual(findBannedOccurrence([[2, 3], [3]], [1, 2, 3]), { index: 1, sequence: [2, 3] });
  assert.deepEqual(findBannedOccurrence([[3], [1, 2]], [1, 2, 3]), { index: 0, sequence: [1, 2] });
  assert.equal(findBannedOccurrence([[2, 4]], [1, 2, 3]), null);
});
