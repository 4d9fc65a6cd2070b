// Punkt sentence splitting and NLTK word tokenisation against NLTK's own answers on our own random,
// punctuation-heavy texts (fixtures/python-nltk.json, generated with Debian NLTK 3.8 and the shared
// English parameters), plus hand-written cases (expected values printed by NLTK 3.8 with the same
// parameters) for the rules that matter to the verifiers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { requireShared } from '../helpers.ts';
import { loadPunktParams, sentSpans, sentTokenize, treebankWordTokenize, wordTokenize } from '../../src/core/text/index.ts';
import { parsePunktJson } from '../../src/core/text/punkt-params.ts';

const punkt = requireShared('punkt', 'english.json');
const fixture = JSON.parse(readFileSync(new URL('./fixtures/python-nltk.json', import.meta.url), 'utf8')) as {
  nltk: string;
  cases: Array<{ text: string; sent_tokenize: string[]; word_tokenize: string[]; spans: Array<[number, number]> }>;
};

/** UTF-16 offset → code-point offset (Python's string indices). */
function codePointOffset(text: string, utf16: number): number {
  return [...text.slice(0, utf16)].length;
}

test(`random texts: sent_tokenize, span_tokenize and word_tokenize equal NLTK ${fixture.nltk}`, { skip: punkt.skip }, () => {
  const params = loadPunktParams(punkt.path!);
  for (const c of fixture.cases) {
    const label = JSON.stringify(c.text);
    assert.deepEqual(sentTokenize(c.text, params), c.sent_tokenize, label);
    assert.deepEqual(wordTokenize(c.text, params), c.word_tokenize, label);
    const spans = sentSpans(c.text, params).map(([s, e]) => [codePointOffset(c.text, s), codePointOffset(c.text, e)]);
    assert.deepEqual(spans, c.spans, label);
  }
});

// Parameters written for these tests only: enough to exercise every heuristic by name.
const tiny = parsePunktJson(
  JSON.stringify({
    abbrev_types: ['mr', 'dr', 'u.s', 'inc', 'co'],
    collocations: [['##number##', 'million']],
    sent_starters: ['however', 'the'],
    ortho_context: { the: 2 | 32, however: 2, smith: 4, million: 32, corp: 4 },
  }),
  'test',
);

test('Punkt heuristics: abbreviations, collocations, sentence starters, initials, realignment', () => {
  assert.deepEqual(sentTokenize('Mr. Smith went home. He slept.', tiny), ['Mr. Smith went home.', 'He slept.']);
  assert.deepEqual(sentTokenize('It cost 5. million dollars.', tiny), ['It cost 5. million dollars.']);
  assert.deepEqual(sentTokenize('He works at Acme Inc. However, he left.', tiny), ['He works at Acme Inc.', 'However, he left.']);
  assert.deepEqual(sentTokenize('(How does it end?) "Quoted." Next one!', tiny), ['(How does it end?)', '"Quoted."', 'Next one!']);
  assert.deepEqual(sentTokenize('Wait... what?!  Yes.\n\nNew paragraph.  ', tiny), ['Wait...', 'what?!', 'Yes.', 'New paragraph.']);
  assert.deepEqual(sentTokenize('', tiny), []);
  assert.deepEqual(sentTokenize('   ', tiny), []);
});

test('NLTKWordTokenizer rules: quotes, clitics, contractions, punctuation, brackets, dashes', () => {
  assert.deepEqual(treebankWordTokenize('"We\u2019ve had enough," she said.'), [
    '``',
    'We',
    '\u2019',
    've',
    'had',
    'enough',
    ',',
    "''",
    'she',
    'said',
    '.',
  ]);
  assert.deepEqual(treebankWordTokenize("I cannot believe they're gonna win, can't you?"), [
    'I',
    'can',
    'not',
    'believe',
    'they',
    "'re",
    'gon',
    'na',
    'win',
    ',',
    'ca',
    "n't",
    'you',
    '?',
  ]);
  assert.deepEqual(treebankWordTokenize('Costs $3.88 (roughly 3,36 euros)--fine...'), [
    'Costs',
    '$',
    '3.88',
    '(',
    'roughly',
    '3,36',
    'euros',
    ')',
    '--',
    'fine',
    '...',
  ]);
  assert.deepEqual(treebankWordTokenize("'Tis the e\u2013mail \u2014 ok."), ["'T", 'is', 'the', 'e\u2013mail', '\u2014', 'ok', '.']);
  assert.deepEqual(treebankWordTokenize('\u00abBonjour\u00bb, dit-il: \u201cBon\u201d!'), [
    '\u00ab',
    'Bonjour',
    '\u00bb',
    ',',
    'dit-il',
    ':',
    '\u201c',
    'Bon',
    '\u201d',
    '!',
  ]);
});

test('wordTokenize splits sentences first (a period inside the text stays attached until its sentence ends)', () => {
  assert.deepEqual(wordTokenize('Mr. Smith left. Then we ate.', tiny), ['Mr.', 'Smith', 'left', '.', 'Then', 'we', 'ate', '.']);
});
