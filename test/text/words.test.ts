// The word counter and anchor matcher against Python's own answers (values generated with
// /usr/bin/python3 3.11 during development and committed; no Python at test time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { countWords, PY_WORD_CHAR, wordMatches, WORD_PATTERN_LITERAL } from '../../src/core/text/words.ts';
import { anchorPresent, anchorRegExp, anchorSearchText, missingAnchors } from '../../src/core/text/anchors.ts';
import { PY_CASE_CLASSES } from '../../src/core/py/case-classes.ts';

interface Fixture {
  python: string;
  words: Array<{ text: string; matches: string[]; count: number }>;
  anchors: Array<{ anchor: string; text: string; present: boolean }>;
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/python-words.json', import.meta.url), 'utf8')) as Fixture;

// Hand-picked cases; expected values printed by Python 3.11 `WORD_RE.findall`.
const WORD_CASES: Array<[string, string[]]> = [
  ['don\u2019t', ['don', 't']],
  ["don't", ["don't"]],
  ['45-day', ['45-day']],
  ['e\u2013mail', ['e', 'mail']],
  ['snake_case', ['snake_case']],
  ['\u00bd and \u00b2', ['\u00bd', 'and', '\u00b2']],
  ['cafe\u0301 na\u00efve', ['cafe', 'na\u00efve']],
  ['1. 2. # **bold**', ['1', '2', 'bold']],
  ['x--y', ['x', 'y']],
  ["a-'b", ['a', 'b']],
  ["'quoted'", ['quoted']],
  ["rock'n'roll well-to-do", ["rock'n'roll", 'well-to-do']],
];

test('word counter: hand-picked Unicode rules match Python', () => {
  for (const [text, expected] of WORD_CASES) {
    assert.deepEqual(wordMatches(text), expected, JSON.stringify(text));
    assert.equal(countWords(text), expected.length, JSON.stringify(text));
  }
});

test(`word counter: ${fixture.words.length} random edge-case strings match Python ${fixture.python}`, () => {
  for (const c of fixture.words) {
    assert.deepEqual(wordMatches(c.text), c.matches, JSON.stringify(c.text));
    assert.equal(countWords(c.text), c.count);
  }
});

const literalRe = new RegExp(WORD_PATTERN_LITERAL, 'gu');
const edgeChar = fc.constantFrom(
  'a',
  'Z',
  '9',
  '_',
  ' ',
  '-',
  "'",
  '\u2019',
  '\u2013',
  '\u00e9',
  '\u0301',
  '\u00bd',
  '\u00b2',
  '\u00df',
  '\u00a0',
  '\u{1F600}',
  '\u{10400}',
  '\u0663',
  '.',
  '\n',
);
const edgeText = fc.array(edgeChar, { maxLength: 40 }).map((a) => a.join(''));

test('property: the compiled counter equals the literal translation with Python \\b lookarounds', () => {
  fc.assert(
    fc.property(edgeText, (t) => {
      assert.deepEqual(wordMatches(t), t.match(literalRe) ?? []);
    }),
    { numRuns: 2000, seed: 7 },
  );
});

test('property: the allocation-free countWords scanner counts exactly the regex matches (any code points, lone surrogates)', () => {
  const anyText = fc.oneof(edgeText, fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }));
  fc.assert(
    fc.property(anyText, (t) => {
      assert.equal(countWords(t), (t.match(literalRe) ?? []).length);
    }),
    { numRuns: 3000, seed: 11 },
  );
});

test('property: a combining mark, curly apostrophe or en dash between two words splits them', () => {
  const word = fc.stringMatching(/^[a-z]{1,6}$/);
  fc.assert(
    fc.property(word, word, fc.constantFrom('\u0301', '\u2019', '\u2013', ' '), (a, b, sep) => {
      assert.equal(countWords(a + sep + b), 2);
    }),
    { numRuns: 300, seed: 11 },
  );
});

test('property: ASCII hyphen, ASCII apostrophe and underscore join words; digits and ½ ² count', () => {
  const word = fc.stringMatching(/^[a-z0-9½²]{1,6}$/);
  fc.assert(
    fc.property(word, word, fc.constantFrom('-', "'", '_'), (a, b, sep) => {
      assert.deepEqual(wordMatches(a + sep + b), [a + sep + b]);
    }),
    { numRuns: 300, seed: 13 },
  );
});

test('property: the count never depends on surrounding whitespace (the reference counts the stripped text)', () => {
  fc.assert(
    fc.property(edgeText, fc.constantFrom(' ', '\n', '\u00a0', '\u3000'), (t, ws) => {
      assert.equal(countWords(ws + t + ws), countWords(t));
    }),
    { numRuns: 500, seed: 17 },
  );
});

// Hand-picked anchor cases; expected values printed by Python 3.11 `contains_literal`.
const ANCHOR_CASES: Array<[string, string, boolean]> = [
  ['IPO', 'the ipo filed', true],
  ['quiet period', 'a quiet\u00a0period.', true],
  ['stra\u00dfe', 'STRASSE', false],
  ['STRA\u1e9eE', 'stra\u00dfe', true],
  ['C++', 'C is old', true],
  ['++', '++', false],
  ['Kelvin', '\u212aelvin', true],
  ['sun', '\u017fun', true],
  ['\u0130stanbul', 'istanbul', true],
  ['\u0131', 'I', true],
  ['\u03a3\u0391\u03a3', '\u03c3\u03b1\u03c2', true],
  ['quiet period', 'quietperiod', false],
  ['ipo', 'IPOs', false],
  ['well-known', 'well known', false],
  ['e-mail', 'E-MAIL', true],
  ['x', 'x_y', false],
];

test('anchors: hand-picked cases (NBSP is whitespace, ß ≠ SS, ſ/K/ẞ/İ/ı quirks) match Python', () => {
  for (const [anchor, text, present] of ANCHOR_CASES) {
    assert.equal(anchorPresent(anchor, text), present, `${JSON.stringify(anchor)} in ${JSON.stringify(text)}`);
  }
});

test(`anchors: ${fixture.anchors.length} random edge-case pairs match Python ${fixture.python}`, () => {
  const wrong = fixture.anchors.filter((c) => anchorPresent(c.anchor, c.text) !== c.present);
  assert.deepEqual(wrong, []);
});

test('anchors: missingAnchors keeps the anchor order; an anchor with no tokens is always missing', () => {
  const text = 'The IPO entered its quiet period.';
  assert.deepEqual(missingAnchors(['zeta', 'quiet period', '', '--', 'alpha', 'ipo'], text), ['zeta', '', '--', 'alpha']);
  assert.deepEqual(missingAnchors([], text), []);
});

test('the Python case table is a partition (every character belongs to one class)', () => {
  const seen = new Set<string>();
  for (const group of PY_CASE_CLASSES.split('|')) {
    for (const ch of group) {
      assert.ok(!seen.has(ch), `U+${ch.codePointAt(0)!.toString(16)} is in two classes`);
      seen.add(ch);
    }
  }
  assert.ok(seen.size > 2800);
});

const PY_SPACES = [' ', '\t', '\n', '\u00a0', '\u0085', '\u001c', '\u2009', '\u3000'];

test('property: anchor words joined by any Python whitespace run (NBSP, U+0085, U+001C, …) are found', () => {
  const word = fc.stringMatching(/^[a-zA-Z0-9éß]{1,6}$/);
  fc.assert(
    fc.property(
      fc.array(word, { minLength: 1, maxLength: 4 }),
      fc.array(fc.constantFrom(...PY_SPACES), { minLength: 1, maxLength: 3 }),
      (words, ws) => {
        assert.ok(anchorPresent(words.join(' '), `x ${words.join(ws.join(''))}.`));
        // ... and never when glued to a neighbouring word character.
        assert.ok(!anchorPresent(words.join(' '), `x_${words.join(' ')}`));
      },
    ),
    { numRuns: 300, seed: 19 },
  );
});

test('property: case changes that keep one character per character still match; ß never matches SS', () => {
  const word = fc.stringMatching(/^[a-zA-Zéèßσς]{1,8}$/);
  fc.assert(
    fc.property(word, (w) => {
      const perChar = (f: (c: string) => string) => [...w].map((c) => (f(c).length === 1 ? f(c) : c)).join('');
      assert.ok(
        anchorPresent(
          w,
          perChar((c) => c.toUpperCase()),
        ),
      );
      assert.ok(
        anchorPresent(
          w,
          perChar((c) => c.toLowerCase()),
        ),
      );
      if (w.includes('ß')) assert.ok(!anchorPresent(w, w.replace(/ß/g, 'SS')));
    }),
    { numRuns: 300, seed: 23 },
  );
});

test('property: the anchor scanner equals the regex translation (IGNORECASE classes, \\s+ joins, \\w lookarounds) on any code points', () => {
  // The literal Python pattern `(?<!\w)tok1\s+tok2…(?!\w)` with re.IGNORECASE, in JavaScript.
  const literal = (anchor: string): RegExp | null => {
    const re = anchorRegExp(anchor);
    return re && new RegExp(`(?<!${PY_WORD_CHAR})(?:${re.source})(?!${PY_WORD_CHAR})`, 'u');
  };
  const caseChars = [...PY_CASE_CLASSES.split('|').slice(0, 40).join(''), ...'\u0130\u0131\u017f\u212a\u1e9e\u00df\u03c3\u03c2\u03a3'];
  const ch = fc.oneof(edgeChar, fc.constantFrom(...caseChars, ...PY_SPACES, "'", '-', 'k', 'K', '\u{10428}'));
  const str = (max: number) => fc.array(ch, { maxLength: max }).map((a) => a.join(''));
  // Texts built around the anchor (so matches happen), or unrelated.
  const pair = fc.oneof(
    fc.tuple(str(8), str(30)),
    fc.tuple(str(8), str(6), str(6)).map(([a, l, r]) => [a, l + a + r] as [string, string]),
    fc.tuple(str(8), fc.constantFrom(...PY_SPACES)).map(([a, s]) => [a, `${a.toUpperCase()}${s}${a}`] as [string, string]),
  );
  fc.assert(
    fc.property(pair, ([anchor, text]) => {
      const re = literal(anchor);
      assert.equal(anchorPresent(anchor, text), re !== null && re.test(text), `${JSON.stringify(anchor)} in ${JSON.stringify(text)}`);
    }),
    { numRuns: 20000, seed: 29 },
  );
});

test('property: the quick rejection (ASCII tokens not in the lower-cased text) never changes an answer, İ ı ſ K included', () => {
  // Texts over the letters whose IGNORECASE classes hold non-ASCII twins (i k s), their twins, other
  // cases and spaces; anchors over the same ASCII letters, so present and absent anchors both occur.
  const textChar = fc.constantFrom(
    'i',
    'I',
    'k',
    'K',
    's',
    'S',
    'a',
    'B',
    '-',
    "'",
    ' ',
    '\u00a0',
    '\u0130',
    '\u0131',
    '\u017f',
    '\u212a',
    'é',
    '\u03a3',
  );
  const anchorChar = fc.constantFrom('i', 'I', 'k', 'K', 's', 'S', 'a', 'b', ' ', '-', "'", 'é');
  const str = (c: fc.Arbitrary<string>, max: number) => fc.array(c, { maxLength: max }).map((a) => a.join(''));
  const pair = fc.oneof(
    fc.tuple(str(anchorChar, 6), str(textChar, 24)),
    fc.tuple(str(anchorChar, 6), str(textChar, 5), str(textChar, 5)).map(([a, l, r]) => [a, l + a.toUpperCase() + r] as [string, string]),
  );
  let rejected = 0;
  fc.assert(
    fc.property(pair, ([anchor, text]) => {
      const quick = anchorPresent(anchor, text, anchorSearchText(text));
      const full = anchorPresent(anchor, text);
      assert.equal(quick, full, `${JSON.stringify(anchor)} in ${JSON.stringify(text)}`);
      if (!full && anchorSearchText(text) !== null) rejected++;
    }),
    { numRuns: 20000, seed: 31 },
  );
  assert.ok(rejected > 1000, `the quick test ran (${rejected} absent anchors)`);
  assert.equal(anchorSearchText('\u212aelvin'), null, 'a Kelvin sign turns the quick test off');
  assert.equal(anchorPresent('kelvin', '\u212aelvin', anchorSearchText('\u212aelvin')), true);
});
