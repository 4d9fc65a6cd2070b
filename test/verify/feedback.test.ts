// Feedback and prompt texts for every family × variant, against strings written by hand from the
// reference templates (docs/protocol.md §1.2, §1.3). States here are built by hand, so these tests check
// the renderers alone; verification is tested elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getFamily, type ConstraintCase, type PromptVariant, type VerifierState } from '../../src/core/verify/index.ts';
import { requirePunkt } from '../helpers.ts';

const punkt = requirePunkt();

const SUFFIX: Record<PromptVariant, string> = {
  baseline:
    'Revise the complete previous response so every reported constraint is satisfied. Return only the revised text, with no analysis, count, or commentary.',
  structured:
    'INSTRUCTION: Revise the complete previous response so every reported constraint is satisfied. Return only the revised text; no analysis, count, or commentary.',
  concise:
    'Revise the whole response to satisfy every reported constraint. Output only the revision, without analysis, a count, or commentary.',
};
const VARIANTS: PromptVariant[] = ['baseline', 'structured', 'concise'];

const exactCase: ConstraintCase = {
  id: 'e1',
  family: 'exact-length',
  source: 'mine',
  instruction: 'Describe the listing.',
  target: 12,
  anchors: ['quiet period', "O'Brien"],
};

function exactState(word_count: number, missing: string[]): VerifierState {
  return {
    word_count,
    error: word_count - 12,
    exact_length: word_count === 12,
    missing,
    joint_success: word_count === 12 && missing.length === 0,
    violation_vector: [Math.abs(word_count - 12) / 12, ...exactCase.anchors!.map((a) => (missing.includes(a) ? 1 : 0))],
  };
}

test('exact-length feedback: baseline, structured and concise', () => {
  const f = getFamily('exact-length');
  const s = exactState(4, ['quiet period', "O'Brien"]);
  assert.equal(
    f.feedback(s, exactCase, 'baseline'),
    "DETERMINISTIC VERIFIER: previous response = 4 words; target = 12; required action = add exactly 8 words. Missing required content items: quiet period; O'Brien. Revise the complete response to satisfy the exact target and retain every required content item. Return only the revised response with no analysis, count, or commentary.",
  );
  assert.equal(f.feedback(s, exactCase), f.feedback(s, exactCase, 'baseline'), 'baseline is the default');
  assert.equal(
    f.feedback(s, exactCase, 'structured'),
    "DETERMINISTIC_VERIFIER\nCURRENT_WORDS: 4\nTARGET_WORDS: 12\nREQUIRED_ACTION: add exactly 8 words\nMISSING_REQUIRED_CONTENT: quiet period; O'Brien\nINSTRUCTION: Revise the complete response to hit TARGET_WORDS exactly and retain every required content item. Return only the revised response; no analysis, count, or commentary.",
  );
  assert.equal(
    f.feedback(s, exactCase, 'concise'),
    "Verifier result: the response has 4 words; the target is 12. Add exactly 8 words. Missing required content: quiet period; O'Brien. Revise the whole response to exactly 12 words while keeping every required item. Output only the revision, without analysis, a count, or commentary.",
  );
});

test('exact-length feedback quirks: "remove exactly 0 words" when exact but anchors missing; "none"; too long', () => {
  const f = getFamily('exact-length');
  assert.equal(
    f.feedback(exactState(12, ["O'Brien"]), exactCase, 'baseline'),
    "DETERMINISTIC VERIFIER: previous response = 12 words; target = 12; required action = remove exactly 0 words. Missing required content items: O'Brien. Revise the complete response to satisfy the exact target and retain every required content item. Return only the revised response with no analysis, count, or commentary.",
  );
  assert.equal(
    f.feedback(exactState(15, []), exactCase, 'concise'),
    'Verifier result: the response has 15 words; the target is 12. Remove exactly 3 words. Missing required content: none. Revise the whole response to exactly 12 words while keeping every required item. Output only the revision, without analysis, a count, or commentary.',
  );
  assert.equal(
    f.feedback(exactState(12, ['quiet period']), exactCase, 'structured'),
    'DETERMINISTIC_VERIFIER\nCURRENT_WORDS: 12\nTARGET_WORDS: 12\nREQUIRED_ACTION: remove exactly 0 words\nMISSING_REQUIRED_CONTENT: quiet period\nINSTRUCTION: Revise the complete response to hit TARGET_WORDS exactly and retain every required content item. Return only the revised response; no analysis, count, or commentary.',
  );
});

test('exact-length initial prompts and token limit', () => {
  const f = getFamily('exact-length');
  assert.equal(
    f.initialPrompt(exactCase, 'baseline'),
    "Describe the listing.\n\nLength constraint: write exactly 12 words under the deterministic word counter. The response must explicitly retain these required content items: quiet period; O'Brien. Return only the requested response. Do not include a preface, word-count note, analysis, or commentary.",
  );
  assert.equal(
    f.initialPrompt(exactCase, 'structured'),
    "TASK\nDescribe the listing.\n\nCONSTRAINTS\nTARGET_WORDS: 12\nREQUIRED_CONTENT: quiet period; O'Brien\nCOUNTING: deterministic word counter\nOUTPUT: only the requested response; no preface, word-count note, analysis, or commentary.",
  );
  assert.equal(
    f.initialPrompt(exactCase, 'concise'),
    "Describe the listing.\n\nWrite exactly 12 words, as measured by the deterministic word counter. Include each of these required content items explicitly: quiet period; O'Brien. Output the response only, without a preface, count, analysis, or commentary.",
  );
  assert.equal(f.maxNewTokens(exactCase), 128);
  assert.equal(f.maxNewTokens({ ...exactCase, target: 120 }), 360);
});

const c05State: VerifierState = {
  joint_success: false,
  observed_word_count: 9,
  target_word_count: 17,
  count_residual: -8,
  target_positions_zero_based: [3, 7, 10],
  target_words: ['fence', "don't", 'spring'],
  observed_words: ['fence', '', null],
  position_matches: [true, false, false],
  position_mismatch_count: 2,
  violation_vector: [8 / 17, 0, 1, 1],
};
const C05_REPORT =
  'DETERMINISTIC VERIFIER REPORT\n' +
  '- total words: observed=9, target=17, residual(observed-target)=-8\n' +
  "- word 4: target='fence', observed='fence', correct=true\n" +
  "- word 8: target=\"don't\", observed='', correct=false\n" +
  "- word 11: target='spring', observed=<missing>, correct=false";

const c07State: VerifierState = {
  joint_success: false,
  target_words: ['Lena', 'is', 'heron'],
  target_present: [true, false, true],
  missing_count: 1,
  violation_vector: [0, 1, 0],
};
const C07_REPORT =
  "DETERMINISTIC VERIFIER REPORT\n- required word 'Lena': present=true\n- required word 'is': present=false\n- required word 'heron': present=true";

const c09State: VerifierState = {
  joint_success: false,
  observed_sentence_count: 2,
  target_sentence_count: 3,
  sentence_count_residual: -1,
  forbidden_words: ['be', 'this', 'is'],
  forbidden_word_counts: [0, 2, 1],
  violation_vector: [1 / 3, 0, 2, 1],
};
const C09_REPORT =
  'DETERMINISTIC VERIFIER REPORT\n- sentences: observed=2, target=3, residual(observed-target)=-1\n' +
  "- forbidden word 'be': observed-count=0\n- forbidden word 'this': observed-count=2\n- forbidden word 'is': observed-count=1";

const c10State: VerifierState = {
  joint_success: false,
  observed_sentence_count: 2,
  target_sentence_count: 3,
  sentence_count_residual: -1,
  sentence_word_counts: [4, 12],
  lower_bound: 5,
  upper_bound: 10,
  lower_deficits: [1, 0],
  upper_excesses: [0, 2],
  violation_vector: [1 / 3, 0.2, 0, 0, 0.2],
};
const C10_REPORT =
  'DETERMINISTIC VERIFIER REPORT\n- sentences: observed=2, target=3, residual(observed-target)=-1\n' +
  '- allowed words per sentence: 5 to 10 inclusive\n' +
  '- sentence 1: words=4, below-minimum-by=1, above-maximum-by=0\n- sentence 2: words=12, below-minimum-by=0, above-maximum-by=2';

const c12State: VerifierState = {
  joint_success: false,
  observed_sentence_count: 2,
  target_sentence_count: 3,
  sentence_count_residual: -1,
  target_last_words: ['tea', 'type', 'end'],
  observed_last_words: ['tea', 'kind'],
  last_word_matches: [true, false, false],
  last_word_mismatch_count: 2,
  violation_vector: [1 / 3, 0, 1, 1],
};
const C12_REPORT =
  'DETERMINISTIC VERIFIER REPORT\n- sentences: observed=2, target=3, residual(observed-target)=-1\n' +
  "- sentence 1 final word: target='tea', observed='tea', correct=true\n" +
  "- sentence 2 final word: target='type', observed='kind', correct=false\n" +
  "- sentence 3 final word: target='end', observed=<missing>, correct=false";

const structured: Array<[string, VerifierState, string]> = [
  ['c05', c05State, C05_REPORT],
  ['c07', c07State, C07_REPORT],
  ['c09', c09State, C09_REPORT],
  ['c10', c10State, C10_REPORT],
  ['c12', c12State, C12_REPORT],
];

for (const [name, state, report] of structured) {
  test(`${name} feedback in the baseline, structured and concise variants`, () => {
    const f = getFamily(name);
    const c: ConstraintCase = { id: 'x', family: name, source: 'mine', task: 't', targets: [] };
    for (const v of VARIANTS) assert.equal(f.feedback(state, c, v), `${report}\n${SUFFIX[v]}`, `${name}/${v}`);
    assert.equal(f.feedback(state, c), `${report}\n${SUFFIX.baseline}`);
  });
}

test('c10 with no observed sentences prints "- no sentences detected"', () => {
  const s: VerifierState = {
    joint_success: false,
    observed_sentence_count: 0,
    target_sentence_count: 3,
    sentence_count_residual: -3,
    sentence_word_counts: [],
    lower_bound: 5,
    upper_bound: 20,
    lower_deficits: [],
    upper_excesses: [],
    violation_vector: [1],
  };
  assert.equal(
    getFamily('c10').feedback(s, { id: 'x', family: 'c10', source: 's' }, 'concise'),
    'DETERMINISTIC VERIFIER REPORT\n- sentences: observed=0, target=3, residual(observed-target)=-3\n- allowed words per sentence: 5 to 20 inclusive\n- no sentences detected\n' +
      SUFFIX.concise,
  );
});

test('repr quoting in feedback: both quote kinds, backslashes, non-ASCII kept, NBSP escaped', () => {
  const s: VerifierState = {
    joint_success: false,
    target_words: [`it's "x"`, 'a\\b', 'café', 'nb\u00a0sp'],
    target_present: [false, false, true, false],
    missing_count: 3,
    violation_vector: [1, 1, 0, 1],
  };
  assert.equal(
    getFamily('c07').feedback(s, { id: 'x', family: 'c07', source: 's' }),
    'DETERMINISTIC VERIFIER REPORT\n' +
      `- required word 'it\\'s "x"': present=false\n` +
      "- required word 'a\\\\b': present=false\n" +
      "- required word 'café': present=true\n" +
      "- required word 'nb\\xa0sp': present=false\n" +
      SUFFIX.baseline,
  );
});

test("structured initial prompts strip the task and use each variant's wording", () => {
  const c: ConstraintCase = {
    id: 'x',
    family: 'c07',
    source: 's',
    task: "  Please generate a sentence containing the word 'owl'.\n",
    targets: ['owl'],
  };
  const task = "Please generate a sentence containing the word 'owl'.";
  for (const name of ['c05', 'c07', 'c09', 'c10', 'c12']) {
    const f = getFamily(name);
    assert.equal(
      f.initialPrompt(c, 'baseline'),
      `${task}\n\nThe constraints are checked by a deterministic verifier. Return only the requested text, with no preface, analysis, count, or commentary.`,
    );
    assert.equal(f.initialPrompt(c), f.initialPrompt(c, 'baseline'));
    assert.equal(
      f.initialPrompt(c, 'structured'),
      `TASK\n${task}\n\nCONSTRAINTS\nCHECKING: deterministic verifier\nOUTPUT: only the requested text; no preface, analysis, count, or commentary.`,
    );
    assert.equal(
      f.initialPrompt(c, 'concise'),
      `${task}\n\nA deterministic verifier checks every constraint. Output only the requested text, without a preface, analysis, count, or commentary.`,
    );
  }
});

test('max new tokens per family (docs/protocol.md §1.4)', { skip: punkt.skip }, () => {
  const base = { id: 'x', source: 's', task: 't' };
  assert.equal(getFamily('c05').maxNewTokens({ ...base, family: 'c05', targets: [17, ['a', 'b', 'c']] }), 128);
  assert.equal(getFamily('c05').maxNewTokens({ ...base, family: 'c05', targets: [50, ['a', 'b', 'c']] }), 150);
  assert.equal(getFamily('c10').maxNewTokens({ ...base, family: 'c10', targets: [5, 11, 15] }), 225);
  assert.equal(getFamily('c10').maxNewTokens({ ...base, family: 'c10', targets: [3, 5, 10] }), 128);
  // c07/c09/c12: 3 × NLTK words of the witness, clamped to [128, 1024].
  const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.';
  assert.equal(getFamily('c07').maxNewTokens({ ...base, family: 'c07', targets: ['a'], witness: long }), 180);
  assert.equal(getFamily('c09').maxNewTokens({ ...base, family: 'c09', targets: [1, 'a'], witness: 'Short one.' }), 128);
  const huge = Array.from({ length: 400 }, () => 'w').join(' ');
  assert.equal(getFamily('c12').maxNewTokens({ ...base, family: 'c12', targets: [1, ['w']], witness: huge }), 1024);
  assert.equal(getFamily('c12').maxNewTokens({ ...base, family: 'c12', targets: [1, ['w']] }), 1024, 'no witness: the cap');
});
