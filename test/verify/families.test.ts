// Verification of our own small texts, end to end through the word/sentence tokenizers; the
// expected states were produced during development by the reference functions
// (constraint_protocol / structured_data / exact_protocol, NLTK 3.8 + the shared Punkt parameters)
// and are committed here as JSON bytes. Also: energy, the registry and the documented example family.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import {
  familyNames,
  getFamily,
  listFamilies,
  registerFamily,
  stateJson,
  unregisterFamily,
  violationEnergy,
  type ConstraintCase,
  type Family,
} from '../../src/core/verify/index.ts';
import { UserError } from '../../src/core/errors.ts';
import { punktSkip as punktSkipReason, writeDocExample } from './doc-example.ts';

const punktSkip = punktSkipReason();

const STRUCTURED: Array<[string, unknown, string, string]> = [
  [
    'c05',
    [11, ['fence', 'and', 'spring']],
    'Mara painted the fence, which was old and grey before spring.',
    '{"joint_success": true, "observed_word_count": 11, "target_word_count": 11, "count_residual": 0, "target_positions_zero_based": [3, 7, 10], "target_words": ["fence", "and", "spring"], "observed_words": ["fence", "and", "spring"], "position_matches": [true, true, true], "position_mismatch_count": 0, "violation_vector": [0.0, 0.0, 0.0, 0.0]}',
  ],
  [
    'c05',
    [12, ['FENCE', 'Old', 'grey']],
    'Mara painted the fence, which was old and grey before spring.',
    '{"joint_success": false, "observed_word_count": 11, "target_word_count": 12, "count_residual": -1, "target_positions_zero_based": [3, 7, 10], "target_words": ["FENCE", "Old", "grey"], "observed_words": ["fence", "and", "spring"], "position_matches": [true, false, false], "position_mismatch_count": 2, "violation_vector": [0.08333333333333333, 0.0, 1.0, 1.0]}',
  ],
  [
    'c05',
    [5, ['a', 'b', 'c']],
    'He said "hi" loudly. Wait ... what',
    '{"joint_success": false, "observed_word_count": 9, "target_word_count": 5, "count_residual": 4, "target_positions_zero_based": [3, 7, 10], "target_words": ["a", "b", "c"], "observed_words": ["hi", "", null], "position_matches": [false, false, false], "position_mismatch_count": 3, "violation_vector": [0.8, 1.0, 1.0, 1.0]}',
  ],
  [
    'c07',
    ['Lena', 'is', 'heron!'],
    'A heron is waiting by the pond, Lena said.',
    '{"joint_success": true, "target_words": ["Lena", "is", "heron!"], "target_present": [true, true, true], "missing_count": 0, "violation_vector": [0.0, 0.0, 0.0]}',
  ],
  [
    'c07',
    ['owl', 'night'],
    'The owls fly at night.',
    '{"joint_success": false, "target_words": ["owl", "night"], "target_present": [false, true], "missing_count": 1, "violation_vector": [1.0, 0.0]}',
  ],
  [
    'c09',
    [3, 'this', 'is', 'be'],
    'This is it. We go.',
    '{"joint_success": false, "observed_sentence_count": 2, "target_sentence_count": 3, "sentence_count_residual": -1, "forbidden_words": ["this", "is", "be"], "forbidden_word_counts": [1, 1, 0], "violation_vector": [0.3333333333333333, 1.0, 1.0, 0.0]}',
  ],
  [
    'c10',
    [3, 4, 5],
    'The cat sat on the mat. It was happy there today. Then it slept.',
    '{"joint_success": false, "observed_sentence_count": 3, "target_sentence_count": 3, "sentence_count_residual": 0, "sentence_word_counts": [6, 5, 3], "lower_bound": 4, "upper_bound": 5, "lower_deficits": [0, 0, 1], "upper_excesses": [1, 0, 0], "violation_vector": [0.0, 0.0, 0.0, 0.25, 0.2, 0.0, 0.0]}',
  ],
  [
    'c10',
    [3, 5, 20],
    '',
    '{"joint_success": false, "observed_sentence_count": 0, "target_sentence_count": 3, "sentence_count_residual": -3, "sentence_word_counts": [], "lower_bound": 5, "upper_bound": 20, "lower_deficits": [], "upper_excesses": [], "violation_vector": [1.0]}',
  ],
  [
    'c12',
    [2, ['tea', 'milk']],
    'I like tea. You like coffee.',
    '{"joint_success": false, "observed_sentence_count": 2, "target_sentence_count": 2, "sentence_count_residual": 0, "target_last_words": ["tea", "milk"], "observed_last_words": ["tea", "coffee"], "last_word_matches": [true, false], "last_word_mismatch_count": 1, "violation_vector": [0.0, 0.0, 1.0]}',
  ],
  [
    'c12',
    [3, ['dr', 'home', 'end']],
    'I met Dr. Smith at noon. He went home.',
    '{"joint_success": false, "observed_sentence_count": 2, "target_sentence_count": 3, "sentence_count_residual": -1, "target_last_words": ["dr", "home", "end"], "observed_last_words": ["noon", "home"], "last_word_matches": [false, true, false], "last_word_mismatch_count": 2, "violation_vector": [0.3333333333333333, 1.0, 0.0, 1.0]}',
  ],
];

test('structured families reproduce the reference states on our own texts', { skip: punktSkip }, () => {
  for (const [family, targets, text, expected] of STRUCTURED) {
    const c: ConstraintCase = { id: 'x', family, source: 'mine', targets };
    assert.equal(stateJson(getFamily(family).verify(text, c)), expected, `${family} ${JSON.stringify(targets)} ${JSON.stringify(text)}`);
  }
});

const EXACT: Array<[string, number, string[], string]> = [
  [
    "The IPO's quiet\u00a0period ended; O'Brien smiled at the 45-day mark.",
    12,
    ['quiet period', 'IPO', "o'brien", 'C++', "Brien's", '...'],
    '{"word_count": 11, "error": -1, "exact_length": false, "missing": ["C++", "Brien\'s", "..."], "joint_success": false, "violation_vector": [0.08333333333333333, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]}',
  ],
  [
    'Don\u2019t e\u2013mail snake_case ½ ² now.',
    8,
    ['don'],
    '{"word_count": 8, "error": 0, "exact_length": true, "missing": [], "joint_success": true, "violation_vector": [0.0, 0.0]}',
  ],
  [
    'Exactly five words are here.',
    5,
    [],
    '{"word_count": 5, "error": 0, "exact_length": true, "missing": [], "joint_success": true, "violation_vector": [0.0]}',
  ],
];

test('exact-length reproduces the reference counter and anchor matcher on our own texts', () => {
  for (const [text, target, anchors, expected] of EXACT) {
    const state = getFamily('exact-length').verify(text, { id: 'x', family: 'exact-length', source: 'mine', target, anchors });
    assert.equal(stateJson(state), expected, text);
    assert.deepEqual(Object.keys(state), ['word_count', 'error', 'exact_length', 'missing', 'joint_success', 'violation_vector']);
  }
});

test('energy is the plain left-to-right float sum of the vector', () => {
  assert.equal(violationEnergy([0.2, 0.2, 0.2]), 0.6000000000000001);
  assert.equal(violationEnergy([0.1, 0.2, 0.3]), 0.6000000000000001);
  assert.equal(violationEnergy([0.3, 0.2, 0.1]), 0.6);
  assert.equal(violationEnergy([]), 0);
  const f = getFamily('exact-length');
  const state = f.verify('one two', { id: 'x', family: 'exact-length', source: 's', target: 3, anchors: ['three', 'one'] });
  assert.equal(f.energy(state), 1 / 3 + 1 + 0);
  assert.equal(state.joint_success, false);
});

test('energy is zero exactly on joint success (all built-in families, our texts)', { skip: punktSkip }, () => {
  for (const [family, targets, text] of STRUCTURED) {
    const f = getFamily(family);
    const state = f.verify(text, { id: 'x', family, source: 'mine', targets });
    assert.equal(f.energy(state) === 0, state.joint_success, `${family} ${text}`);
  }
});

test('registry: built-ins in order, unknown names list the known families', () => {
  assert.deepEqual(familyNames().slice(0, 6), ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12']);
  assert.deepEqual(
    listFamilies()
      .slice(0, 6)
      .map((f) => f.name),
    ['exact-length', 'c05', 'c07', 'c09', 'c10', 'c12'],
  );
  assert.throws(
    () => getFamily('c11'),
    (e: unknown) => e instanceof UserError && /unknown family 'c11'; known families: exact-length, c05, c07, c09, c10, c12/.test(e.message),
  );
});

test('registry refuses bad registrations', () => {
  const base = getFamily('c07') as Family;
  assert.throws(() => registerFamily({ ...base, name: 'c07' }), /built-in family/);
  assert.throws(() => registerFamily({ ...base, name: 'Bad Name' }), /lower-case/);
  assert.throws(() => registerFamily({ ...base, name: 'no-verify', verify: undefined as any }), /no verify\(\) method/);
  assert.throws(() => registerFamily({ ...base, name: 'no-version', version: '' }), /version/);
  registerFamily({ ...base, name: 'c07-copy' });
  try {
    assert.throws(() => registerFamily({ ...base, name: 'c07-copy' }), /already registered/);
    registerFamily({ ...base, name: 'c07-copy', version: '2' }, { replace: true });
    assert.equal(getFamily('c07-copy').version, '2');
  } finally {
    assert.equal(unregisterFamily('c07-copy'), true);
  }
  assert.throws(() => unregisterFamily('c05'), /built-in/);
});

test('the documented max-chars example registers and works', async () => {
  const file = writeDocExample('.mts');
  await import(pathToFileURL(file).href);
  try {
    const f = getFamily('max-chars');
    const c: ConstraintCase = { id: 't', family: 'max-chars', source: 'mine', task: 'Announce the release.', targets: 10 };
    assert.deepEqual(f.validateCase(c), []);
    assert.deepEqual(f.validateCase({ ...c, targets: 0 }), [['targets', 'must be a positive whole number of characters']]);
    const s = f.verify('héllo wörld, again', c);
    assert.equal(stateJson(s), '{"char_count": 18, "max_chars": 10, "excess": 8, "joint_success": false, "violation_vector": [0.8]}');
    assert.equal(
      f.feedback(s, c),
      'VERIFIER: the response has 18 characters; the limit is 10. Remove at least 8 characters. Return only the revised text.',
    );
    assert.equal(f.initialPrompt(c), 'Announce the release.\n\nWrite at most 10 characters. Return only the text.');
    assert.equal(f.verify('short', c).joint_success, true);
    assert.equal(f.maxNewTokens(c), 64);
  } finally {
    unregisterFamily('max-chars');
  }
});
