// The feedback wording of the eight COLLIE families the paper does not use (revloop's own, in the
// paper's exact-feedback style; docs/verify.md shows the same examples), their prompts (COLLIE's
// task text in the paper's wrapper), token limits and target validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requirePunkt } from '../helpers.ts';
import { getFamily, type ConstraintCase } from '../../src/core/verify/index.ts';

const punkt = requirePunkt();
const SUFFIX =
  'Revise the complete previous response so every reported constraint is satisfied. Return only the revised text, with no analysis, count, or commentary.';

function report(family: string, targets: unknown, text: string): string {
  const f = getFamily(family);
  const c: ConstraintCase = { id: 'x', family, source: 'mine', task: 'Please generate a word.', targets };
  const fb = f.feedback(f.verify(text, c), c);
  assert.ok(fb.endsWith('\n' + SUFFIX));
  return fb.slice(0, -SUFFIX.length - 1);
}

const H = 'DETERMINISTIC VERIFIER REPORT\n';

test('feedback of c01 c02 c03 c04 c06a c08 c11 c14', { skip: punkt.skip }, () => {
  assert.equal(report('c01', [11], 'pedantic'), H + '- characters: observed=8, minimum=11, below-minimum-by=3');
  assert.equal(
    report('c02', [12, ['o', 's', 'r']], 'vasopressor'),
    H +
      '- total characters: observed=11, target=12, residual(observed-target)=-1\n' +
      "- character 4: target='o', observed='o', correct=true\n" +
      "- character 8: target='s', observed='s', correct=true\n" +
      "- character 11: target='r', observed='r', correct=true",
  );
  assert.equal(
    report('c03', [11, 'x'], 'progenitor.'),
    H + "- total characters: observed=11, target=11, residual(observed-target)=0\n- last character: target='x', observed='', correct=false",
  );
  assert.equal(
    report('c04', 30, 'A short sentence here.'),
    H + '- total characters (whitespace included): observed=22, target=30, residual(observed-target)=-8',
  );
  assert.equal(
    report('c06a', [12, 5], 'The quick brown fox jumps over lazy dogs today.'),
    H + '- total words: observed=9, minimum=12, below-minimum-by=3\n- allowed characters per word: at most 5\n- words over the limit: none',
  );
  assert.equal(
    report('c08', 'He', 'He ran. She walked.'),
    H +
      '- sentences: observed=2\n' +
      "- sentence 1 first word: target='He', observed='He', correct=true\n" +
      "- sentence 2 first word: target='He', observed='She', correct=false",
  );
  assert.equal(
    report('c11', [3, 5], 'One two three four five six. Short one.'),
    H +
      '- sentences: observed=2, minimum=3, below-minimum-by=1\n- minimum words per sentence: 5\n' +
      '- sentence 1: words=6, below-minimum-by=0\n- sentence 2: words=2, below-minimum-by=3',
  );
  assert.equal(
    report('c14', [['The end', 'Second end'], 2], 'A first. The end.\n\nOnly one here.'),
    H +
      '- paragraphs (separated by a blank line): observed=2, target=2, residual(observed-target)=0\n' +
      '- minimum sentences per paragraph: 2\n' +
      '- paragraph 1: sentences=2, below-minimum-by=0\n' +
      "- paragraph 1 final sentence: target='The end', observed='The end', correct=true\n" +
      '- paragraph 2: sentences=1, below-minimum-by=1\n' +
      "- paragraph 2 final sentence: target='Second end', observed='Only one here', correct=false",
  );
  assert.equal(
    report('c06a', [3, 4], 'Tiny words extraordinarily'),
    H +
      '- total words: observed=3, minimum=3, below-minimum-by=0\n- allowed characters per word: at most 4\n' +
      "- word 2: 'words', characters=5, above-maximum-by=1\n- word 3: 'extraordinarily', characters=15, above-maximum-by=11",
  );
});

test('prompts are COLLIE task text in the paper wrapper; token limits; target validation', () => {
  const c: ConstraintCase = {
    id: 'x',
    family: 'c14',
    source: 'mine',
    task: 'Please generate a passage.',
    targets: [['a'], 2],
    witness: 'A b c.',
  };
  const f = getFamily('c14');
  assert.equal(
    f.initialPrompt(c, 'baseline'),
    'Please generate a passage.\n\nThe constraints are checked by a deterministic verifier. Return only the requested text, with no preface, analysis, count, or commentary.',
  );
  assert.deepEqual(f.validateCase(c), []);
  assert.deepEqual(getFamily('c02').validateCase({ ...c, family: 'c02', targets: [12, ['o', 'ss', 'r']] }), [
    ['targets', 'each position character must be one character, got "ss"'],
  ]);
  assert.deepEqual(getFamily('c04').validateCase({ ...c, family: 'c04', targets: [82] }), [['targets', 'must be an integer, got a list']]);
  assert.equal(getFamily('c01').maxNewTokens({ ...c, witness: undefined }), 1024);
});
