// The single-pass Treebank scanner (simpleTreebankTokens) against the rule-by-rule port of NLTK's
// NLTKWordTokenizer (treebankRegexTokenize, itself checked against NLTK in nltk-parity.test.ts and
// tokenize.test.ts): wherever the scanner answers, the tokens must be the same. Exhaustive over short
// strings of the characters the rules care about, then random sentences of realistic pieces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanTreebankInto, simpleTreebankTokens, treebankRegexTokenize, treebankWordTokenize } from '../../src/core/text/treebank.ts';

function check(s: string): boolean {
  const fast = simpleTreebankTokens(s);
  if (fast === null) return false;
  assert.deepEqual(fast, treebankRegexTokenize(s), JSON.stringify(s));
  return true;
}

/** Every string of length 1..max over the alphabet; returns how many the scanner answered. */
function exhaustive(alphabet: readonly string[], max: number): { answered: number; total: number } {
  let answered = 0;
  let total = 0;
  const walk = (prefix: string, depth: number): void => {
    if (depth > 0) {
      total++;
      if (check(prefix)) answered++;
    }
    if (depth === max) return;
    for (const ch of alphabet) walk(prefix + ch, depth + 1);
  };
  walk('', 0);
  return { answered, total };
}

test('exhaustive: every string of up to 5 characters over punctuation, quotes, apostrophes and spaces', () => {
  const alphabet = ['a', 'n', 't', 's', "'", '"', '.', ',', ':', '1', ' ', '\n', ')', '(', '!', '\u2019', '\u201c'];
  const { answered, total } = exhaustive(alphabet, 5);
  assert.ok(answered > total / 4, `scanner answered ${answered} of ${total}`);
});

test("exhaustive: apostrophe suffixes ('s 'S 'll 'Ll n't N'T 're …) before every kind of boundary, up to 5 characters", () => {
  const alphabet = ['d', 'n', 'N', 't', 'T', 's', 'l', 'L', "'", ' ', '.', ',', '?', '\u00a0', '"'];
  exhaustive(alphabet, 5);
});

test('exhaustive: ellipses and dashes ("...", "--", "---") next to words, apostrophes, quotes and closers, up to 6 characters', () => {
  const alphabet = ['a', 's', '.', '-', "'", '"', ')', ' ', '\n'];
  const { answered, total } = exhaustive(alphabet, 6);
  assert.ok(answered > total / 4, `scanner answered ${answered} of ${total}`);
});

test('exhaustive: final periods with closing brackets and quotes, and whitespace of every kind', () => {
  const alphabet = ['x', '.', ')', ']', '"', '\u201d', '\u00bb', '>', ' ', '\t', '\u00a0', '\n', '-', ';'];
  exhaustive(alphabet, 5);
});

const PIECES = [
  'the',
  'The',
  'cat',
  'I',
  'Mr.',
  'U.S.',
  'e.g.',
  '3.5',
  '1,000',
  '10:30',
  '$1,200',
  '100%',
  'x_y',
  'naïve',
  'Σοφία',
  '😊',
  "don't",
  "DON'T",
  "it's",
  "It'S",
  "we're",
  "they'RE",
  "I'm",
  "you'll",
  "we've",
  "she'd",
  "students'",
  "o'clock",
  "rock'n'roll",
  "'90s",
  "'tis",
  "can't",
  "won't",
  "n't",
  "isn't",
  'cannot',
  'gonna',
  'Wanna',
  "more'n",
  "d'ye",
  "ma'am",
  'don’t',
  '’s',
  '“Hi,”',
  '‘ok’',
  '«oui»',
  '„so“',
  '"quoted"',
  '"',
  "''",
  '``',
  '`',
  '(see',
  'p.',
  '42)',
  '[1]',
  '{x}',
  '<b>',
  '--',
  '—',
  '–',
  '...',
  '..',
  '…',
  '.',
  ',',
  ';',
  ':',
  '!',
  '?',
  '?!',
  '*',
  '**bold**',
  '@home',
  '#tag',
  '&',
  'http://x.org',
  'İstanbul',
  'ıi',
  'ſ',
  '-5',
  'well-known',
  'end.',
  'end.)',
  'end."',
  'end.”',
  "end.'",
  'Hi!',
  'Why?',
  'a,b',
  'a:b',
  'a,,b',
];
const SEPS = [' ', ' ', ' ', ' ', '', '\n', '\t', '\u00a0', '  ', ' \n '];

test('random sentences of realistic pieces: the scanner agrees with the rules wherever it answers', () => {
  let answered = 0;
  let total = 0;
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom(...SEPS)), { minLength: 1, maxLength: 14 }), (parts) => {
      const s = parts.map(([p, sep]) => p + sep).join('');
      total++;
      if (check(s)) answered++;
      if (check(s.trim())) answered++;
    }),
    { numRuns: 30000, seed: 31 },
  );
  assert.ok(answered > total / 10, `scanner answered ${answered} of ${2 * total}`);
});

test('random strings of any characters: the scanner agrees with the rules wherever it answers', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), (a, b) => {
      check(a);
      check(b);
      check(a + ' ' + b);
    }),
    { numRuns: 5000, seed: 37 },
  );
});

test('treebankWordTokenize answers through the scanner or the rules, never differently', () => {
  for (const s of ["It's 10:30, and we're done.", 'He said "go" (twice)!', "Rock'n'roll isn't dead..", 'gimme the ball']) {
    assert.deepEqual(treebankWordTokenize(s), treebankRegexTokenize(s));
  }
  assert.deepEqual(simpleTreebankTokens("It's 10:30, and we're done."), ['It', "'s", '10:30', ',', 'and', 'we', "'re", 'done', '.']);
  assert.equal(simpleTreebankTokens('gimme the ball'), null);
  for (const s of ['You GoNNa go', "d'ye see", "MORE'N enough", "x'gotta", 'Cannot.', 'a lemme,'])
    assert.equal(simpleTreebankTokens(s), null, s);
});

test('scanTreebankInto appends to the array it is given, and leaves it as it was when it bails out', () => {
  const out = ['kept'];
  assert.equal(scanTreebankInto('Hello, world.', out), true);
  assert.deepEqual(out, ['kept', 'Hello', ',', 'world', '.']);
  assert.equal(scanTreebankInto('We were -- gonna -- go', out), false);
  assert.deepEqual(out, ['kept', 'Hello', ',', 'world', '.']);
});
