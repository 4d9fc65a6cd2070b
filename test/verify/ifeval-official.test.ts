// IFEval's 25 instruction checks in strict and loose modes against google-research's own checker,
// from the fixtures scripts/ifeval-fixtures.py writes (our own instructions and responses; and every
// prompt of ../shared/data/ifeval/input_data.jsonl against our own responses), plus the langdetect
// port against Python's langdetect (scripts/langdetect-fixtures.py) and hand-made checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { requirePunkt, requireShared } from '../helpers.ts';
import { getFamily, type ConstraintCase, type IfevalState } from '../../src/core/verify/index.ts';
import { evaluateIfeval, looseVariants } from '../../src/core/verify/ifeval/evaluate.ts';
import { detectLangs } from '../../src/core/verify/ifeval/langdetect/detector.ts';
import { INSTRUCTION_IDS } from '../../src/core/verify/ifeval/instructions.ts';
import { buildInstructions } from '../../src/core/verify/ifeval/evaluate.ts';
import type { BuiltInstruction } from '../../src/core/verify/ifeval/instructions.ts';

const FIXTURES = new URL('../fixtures/ifeval/', import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
const punkt = requirePunkt();
const ifeval = requireShared('ifeval', 'input_data.jsonl');

function built(instruction_id_list: string[], kwargs: Array<Record<string, unknown>>): BuiltInstruction[] {
  const b = buildInstructions({ instruction_id_list, kwargs });
  assert.ok(!b.length || 'id' in (b[0] as object), `cannot build ${JSON.stringify(b)}`);
  return b as BuiltInstruction[];
}

test('the 25 instruction ids are the official registry', () => {
  assert.equal(INSTRUCTION_IDS.length, 25);
  const { cases } = fixture('own-cases.json');
  assert.deepEqual(new Set(cases.flatMap((c: any) => c.instruction_id_list)), new Set(INSTRUCTION_IDS));
});

test('strict and loose follow lists equal the official checker on our own cases (all 25 types)', { skip: punkt.skip }, () => {
  const { cases } = fixture('own-cases.json');
  const mismatches: string[] = [];
  let followedStrict = 0;
  let followedLoose = 0;
  for (const c of cases) {
    const e = evaluateIfeval(c.response, built(c.instruction_id_list, c.kwargs));
    followedStrict += e.follow_instruction_list_strict.filter(Boolean).length;
    followedLoose += e.follow_instruction_list_loose.filter(Boolean).length;
    if (JSON.stringify([e.follow_instruction_list_strict, e.follow_instruction_list_loose]) !== JSON.stringify([c.strict, c.loose]))
      mismatches.push(`${c.instruction_id_list} ${JSON.stringify(c.kwargs)} ${JSON.stringify(c.response)}`);
  }
  // The fixture has passes and failures, and loose passes that strict misses.
  assert.ok(followedStrict > 100 && followedLoose > followedStrict);
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} of ${cases.length} cases differ from the official checker`);
});

test('every prompt of input_data.jsonl × our own responses: the official follow lists', { skip: punkt.skip || ifeval.skip }, () => {
  const { responses, verdicts } = fixture('input-data-verdicts.json');
  const rows = readFileSync(ifeval.path!, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  assert.equal(rows.length, 541);
  let compared = 0;
  let skipped = 0;
  const mismatches: string[] = [];
  for (const r of rows) {
    const b = built(r.instruction_id_list, r.kwargs);
    responses.forEach((response: string, j: number) => {
      const e = evaluateIfeval(response, b);
      verdicts[String(r.key)][j].split(' ').forEach((mark: string, k: number) => {
        if (mark === '--') {
          skipped++; // the official checker draws a random letter here (keys 1122, 1129)
          return;
        }
        compared++;
        const ours = `${+e.follow_instruction_list_strict[k]}${+e.follow_instruction_list_loose[k]}`;
        if (ours !== mark) mismatches.push(`key ${r.key} ${r.instruction_id_list[k]} response ${j}: ours ${ours}, official ${mark}`);
      });
    });
  }
  assert.equal(skipped, 2 * responses.length);
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} of ${compared} verdicts differ`);
});

test('langdetect port: same languages and probabilities as Python langdetect (seed 0), incl. short and ambiguous texts', (t) => {
  const { cases, runs } = fixture('langdetect.json');
  let exact = 0;
  let unstable = 0;
  let agreeMajority = 0;
  let stable = 0;
  for (const c of cases) {
    let ours: unknown;
    try {
      ours = { langs: detectLangs(c.text).map((l) => [l.lang, l.prob]) };
    } catch (e) {
      ours = { error: (e as Error).message };
    }
    assert.deepEqual(ours, c.seeded, `text ${JSON.stringify(c.text)}`);
    exact++;
    // Python's unseeded detect(): several answers over the runs for some short texts.
    const answers = Object.entries(c.unseeded as Record<string, number>).sort((a, b) => b[1] - a[1]);
    if (answers.length > 1) unstable++;
    else {
      stable++;
      const top = (ours as any).langs?.[0]?.[0] ?? '<error>';
      if (top === answers[0][0] || ((ours as any).langs?.length === 0 && answers[0][0] === 'unknown')) agreeMajority++;
    }
  }
  assert.equal(exact, cases.length);
  assert.ok(cases.length > 1000 && runs === 10);
  // The official call is unseeded: where it gave one answer in all runs, the seeded port (like
  // seeded Python, asserted above) almost always gives it too; a seed can still land on a rare answer.
  t.diagnostic(
    `unseeded Python: ${stable} texts with one answer over ${runs} runs, port agrees on ${agreeMajority}; ${unstable} texts vary`,
  );
  assert.ok(agreeMajority / stable >= 0.995, `${stable - agreeMajority} of ${stable} stable texts differ`);
  assert.ok(unstable > 0, 'the fixture includes texts whose unseeded verdict varies');
});

const ifevalCase = (ids: string[], kwargs: Array<Record<string, unknown>>, mode?: 'strict' | 'loose'): ConstraintCase => ({
  id: 'x',
  family: 'ifeval',
  source: 'mine',
  task: 'Write something.',
  targets: { instruction_id_list: ids, kwargs, ...(mode ? { mode } : {}) },
});

test(
  'ifeval family: joint success is strict by default, loose on request; feedback names measured vs required',
  { skip: punkt.skip },
  () => {
    const family = getFamily('ifeval');
    const c = ifevalCase(
      ['punctuation:no_comma', 'detectable_format:number_highlighted_sections', 'detectable_format:title'],
      [{}, { num_highlights: 3 }, {}],
    );
    const text = 'Sure, here you go:\n<<Notes>>\nOne *bold* idea.';
    const s = family.verify(text, c) as IfevalState;
    assert.deepEqual(s.follow_instruction_list_strict, [false, false, true]);
    assert.deepEqual(s.follow_instruction_list_loose, [true, false, true]);
    assert.equal(s.joint_success, false);
    assert.equal(s.ifeval_mode, 'strict');
    assert.deepEqual(s.violation_vector, [1, 1, 0]);
    assert.equal(
      family.feedback(s, c),
      'DETERMINISTIC VERIFIER REPORT\n' +
        '- instructions followed (strict): 1 of 3\n' +
        '- punctuation:no_comma: the response contains 1 comma; use none\n' +
        '- detectable_format:number_highlighted_sections: 1 highlighted section found; at least 3 highlighted sections such as *highlighted section*\n' +
        'Revise the complete previous response so every reported constraint is satisfied. Return only the revised text, with no analysis, count, or commentary.',
    );
    const loose = family.verify(text, ifevalCase(['punctuation:no_comma', 'detectable_format:title'], [{}, {}], 'loose')) as IfevalState;
    assert.equal(loose.joint_success, true);
    assert.equal(family.energy(loose), 0);
    assert.equal(family.initialPrompt(c), 'Write something.');
  },
);

test('hand-made checks: counts at the boundary, Python semantics', { skip: punkt.skip }, () => {
  const one = (id: string, kwargs: Record<string, unknown>, text: string) =>
    evaluateIfeval(text, built([id], [kwargs])).follow_instruction_list_strict[0];
  assert.equal(one('length_constraints:number_words', { num_words: 3, relation: 'less than' }, 'one two'), true);
  assert.equal(one('length_constraints:number_words', { num_words: 3, relation: 'less than' }, 'one two three'), false);
  assert.equal(one('length_constraints:number_words', { num_words: 3, relation: 'at least' }, 'naïve café_x ½'), true);
  assert.equal(one('keywords:frequency', { keyword: 'cat', frequency: 2, relation: 'at least' }, 'Cat catalog'), true); // substrings count
  assert.equal(one('keywords:forbidden_words', { forbidden_words: ['cat'] }, 'a catalog'), true); // whole words only
  assert.equal(one('keywords:forbidden_words', { forbidden_words: ['cat'] }, 'the CAT.'), false);
  assert.equal(one('startend:quotation', {}, '  "x"  '), true);
  assert.equal(one('startend:quotation', {}, '"'), false);
  assert.equal(one('detectable_format:json_format', {}, '```json\n{"a": NaN}\n```'), true); // Python json accepts NaN
  assert.equal(one('detectable_format:json_format', {}, "{'a': 1}"), false);
  assert.equal(one('detectable_format:number_bullet_lists', { num_bullets: 2 }, '* a\n- b\n** c'), true);
  assert.equal(one('change_case:english_lowercase', {}, 'hello there, this is all lower case english text.'), true);
  assert.equal(one('change_case:english_capital', {}, '123'), false); // not isupper(): no detection needed
  assert.equal(one('language:response_language', { language: 'de' }, '12345'), true); // LangDetectException counts as followed
  // letter_frequency with a non-letter counts that character (the documented deviation).
  assert.equal(one('keywords:letter_frequency', { letter: '#', let_frequency: 2, let_relation: 'at least' }, '# a # b'), true);
  assert.equal(one('punctuation:no_comma', {}, ''), false); // an empty response never follows
  assert.deepEqual(looseVariants('a\nb*\nc'), ['a\nb*\nc', 'a\nb\nc', 'b*\nc', 'a\nb*', 'b*', 'b\nc', 'a\nb', 'b']);
});

test('case validation refuses kwargs the official checker would randomise', () => {
  const family = getFamily('ifeval');
  const problems = (ids: string[], kwargs: Array<Record<string, unknown>>) => family.validateCase(ifevalCase(ids, kwargs));
  assert.deepEqual(problems(['punctuation:no_comma'], [{}]), []);
  assert.match(problems(['length_constraints:number_words'], [{ relation: 'at least' }])[0][1], /num_words: required/);
  assert.match(problems(['keywords:existence'], [{ keywords: ['a.b'] }])[0][1], /regular-expression syntax/);
  assert.match(problems(['no:such'], [{}])[0][1], /unknown instruction id/);
  assert.match(problems(['punctuation:no_comma'], [{ extra: 1 }])[0][1], /unexpected "extra"/);
  assert.match(problems(['punctuation:no_comma', 'detectable_format:title'], [{}])[0][1], /one object per instruction/);
});
