// Case readers: each format (auto-detected and explicit), validation errors that name file, line
// and field, unsupported COLLIE structures, manifests, the native writer, and the reference files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CaseSetError,
  loadCaseSet,
  manifestIsIntact,
  validateCaseFile,
  writeCaseSet,
  type LoadedCaseSet,
} from '../../src/core/cases/index.ts';
import { computeManifest, rowSha256 } from '../../src/core/cases/manifest.ts';
import { canonicalJson, sha256Hex } from '../../src/core/util/hash.ts';
import { InputError } from '../../src/core/errors.ts';
import { requireShared } from '../helpers.ts';
import { punktSkip } from '../verify/doc-example.ts';
import { collieRows, nativeRows, paperExactRows, paperStructuredRows, tmpDir, writeLines } from './fixtures.ts';

const skipStructured = punktSkip();

async function problemsOf(path: string, options = {}): Promise<string[]> {
  try {
    await loadCaseSet(path, options);
  } catch (e) {
    assert.ok(e instanceof CaseSetError, `expected CaseSetError, got ${(e as Error).message}`);
    assert.ok(e instanceof InputError);
    return e.message.split('\n').slice(1);
  }
  assert.fail('expected the load to fail');
}

test('paper-exact: detected, normalised, reference kept as witness, row kept verbatim', async () => {
  const dir = tmpDir();
  const path = writeLines(dir, 'gen.jsonl', paperExactRows());
  const set = await loadCaseSet(path);
  assert.equal(set.format, 'paper-exact');
  assert.equal(set.cases.length, 2);
  const c = set.cases[0];
  assert.equal(c.family, 'exact-length');
  assert.equal(c.target, 14);
  assert.deepEqual(c.anchors, ['bees', 'old mill']);
  assert.equal(c.instruction, 'Tell me about Lena.');
  assert.equal(c.source, 'mine_notes');
  assert.ok(c.witness?.startsWith('Lena keeps bees'));
  assert.deepEqual(c.row, paperExactRows()[0]);
});

test('paper-exact validation: every problem names file, line and field; nothing is returned', async () => {
  const dir = tmpDir();
  const rows: unknown[] = paperExactRows();
  const bad = [
    rows[0],
    { ...(rows[1] as object), target: '9' },
    { ...(rows[1] as object), id: 'mine__0003', anchors: undefined },
    { ...(rows[1] as object), id: 'mine__0004', target: 10 },
    { ...(rows[1] as object), id: 'mine__0005', reference_sha256: '0'.repeat(64) },
    { ...(rows[0] as object) },
    '{"id": "mine__0007", ',
    { ...(rows[1] as object), id: 'mine__0008', anchors: ['quiet period', 'lock-up'] },
  ];
  const path = writeLines(dir, 'gen.jsonl', bad);
  const problems = await problemsOf(path);
  assert.deepEqual(problems, [
    `${path}:2: target: must be an integer, got the string "9"`,
    `${path}:3: anchors: must be a list of strings, got nothing`,
    `${path}:4: reference: does not pass its own verifier: it has 9 words, target 10`,
    `${path}:5: reference_sha256: does not match the SHA-256 of reference (${sha256Hex(paperExactRows()[1].reference as string).slice(0, 12)}…)`,
    `${path}:6: id: duplicate id "mine__0001" (first on line 1)`,
    problems[5],
    `${path}:8: reference: does not pass its own verifier: it has 9 words, target 9; missing anchors: "lock-up"`,
  ]);
  assert.ok(problems[5].startsWith(`${path}:7: invalid JSON (`), problems[5]);
});

test('the error message shows the first N problems, then a count', async () => {
  const dir = tmpDir();
  const rows = Array.from({ length: 25 }, (_, i) => ({ ...paperExactRows()[0], id: `r${i}`, target: 0 }));
  const path = writeLines(dir, 'gen.jsonl', rows);
  const problems = await problemsOf(path, { maxShown: 2 });
  assert.equal(problems.length, 3);
  assert.equal(problems[0], `${path}:1: target: must be at least 1, got 0`);
  assert.equal(problems[2], `… and 23 more problems in ${path}`);
  // With room for more, three of one kind are shown and the rest of that kind counted (issue 14 #5).
  const many = await problemsOf(path, { maxShown: 20 });
  assert.equal(many.length, 4);
  assert.equal(many[3], '… and 22 more of the kind "target: must be at least N, got N" (lines 4–25)');
  await assert.rejects(loadCaseSet(path), (e: Error) => e.message.startsWith(`${path}: 25 problems; nothing was loaded\n`));
});

test('paper-structured: stored states and corruption checks are verified', { skip: skipStructured }, async () => {
  const dir = tmpDir();
  const good = await loadCaseSet(writeLines(dir, 'lex.jsonl', paperStructuredRows()));
  assert.equal(good.format, 'paper-structured');
  assert.deepEqual(
    good.cases.map((c) => [c.id, c.family, c.source]),
    [
      ['lexical_constraints__c07__mine__0001', 'c07', 'mine'],
      ['compositional_structure_c10__mine__0002', 'c10', 'mine'],
    ],
  );
  assert.equal(good.cases[1].task?.startsWith('Please generate a paragraph:'), true);

  const [c07, c10] = paperStructuredRows();
  const tampered = [
    { ...c07, initial_verifier_state: { ...(c07.initial_verifier_state as object), missing_count: 1 } },
    { ...c10, corruption_checks: { sentence_count_corruption_detected: true, bound_corruption_detected: false } },
    { ...c10, id: 'x3', structure: 'c11' },
    { ...c10, id: 'x4', targets: [2, 3, 6] },
    { ...c10, id: 'x5', targets: [3, 6] },
  ];
  const path = writeLines(dir, 'bad.jsonl', tampered);
  const problems = await problemsOf(path);
  assert.equal(
    problems[0],
    `${path}:1: initial_verifier_state: differs from the verifier's state of the witness: missing_count: stored 1, computed 0`,
  );
  assert.equal(
    problems[1],
    `${path}:2: corruption_checks: differ from the recomputed checks: stored {"sentence_count_corruption_detected": true, "bound_corruption_detected": false}, computed {"sentence_count_corruption_detected": true, "bound_corruption_detected": true}`,
  );
  assert.equal(problems[2], `${path}:3: structure: must be one of c05, c07, c09, c10, c12, got "c11"`);
  const line4 = problems.filter((p) => p.startsWith(`${path}:4: `));
  assert.match(
    line4[0],
    new RegExp(`^${path}:4: witness: does not pass its own verifier: - sentences: observed=3, target=2, residual\\(observed-target\\)=1`),
  );
  assert.match(
    line4[1],
    new RegExp(
      `^${path}:4: initial_verifier_state: differs from the verifier's state of the witness: joint_success: stored true, computed false`,
    ),
  );
  assert.deepEqual(
    problems.filter((p) => p.startsWith(`${path}:5: `)),
    [`${path}:5: targets: must be [sentence count, lower, upper], got a list`],
  );
});

test(
  'collie: runnable rows load, other structures are reported (manifest) not dropped; --strict makes them errors',
  { skip: skipStructured },
  async () => {
    const dir = tmpDir();
    const path = writeLines(dir, 'collie.jsonl', collieRows());
    const set = await loadCaseSet(path);
    assert.equal(set.format, 'collie');
    assert.deepEqual(
      set.cases.map((c) => c.id),
      ['collie__mine_c07__0000', 'collie__mine_c10__0001'],
    );
    assert.equal(set.cases[0].task, "Please generate a sentence containing the word 'Lena', 'is', 'heron'.");
    assert.deepEqual(
      set.unsupported.map((u) => [u.line, u.id, u.structure]),
      [[2, 'collie__mine_c13__0000', 'c13']],
    );
    assert.deepEqual(set.manifest.unsupported, {
      count: 1,
      by_structure: { c13: 1 },
      rows: [{ id: 'collie__mine_c13__0000', structure: 'c13', sha256: rowSha256(collieRows()[1]) }],
    });
    assert.deepEqual(await problemsOf(path, { strict: true }), [
      `${path}:2: structure: structure c13 has no family (runnable: c01, c02, c03, c04, c05, c06a, c07, c08, c09, c10, c11, c12, c14)`,
    ]);
  },
);

test('native: any family, optional source, unknown fields and families refused, CRLF tolerated', { skip: skipStructured }, async () => {
  const dir = tmpDir();
  const path = writeLines(dir, 'mine.jsonl', nativeRows(), '\r\n');
  const set = await loadCaseSet(path);
  assert.equal(set.format, 'native');
  assert.deepEqual(
    set.cases.map((c) => [c.id, c.family, c.source]),
    [
      ['n1', 'exact-length', 'mine'],
      ['n2', 'c07', 'mine'],
      ['n3', 'c10', 'unspecified'],
    ],
  );
  assert.equal(set.cases[2].witness, undefined);

  const bad = writeLines(dir, 'bad.jsonl', [
    { id: 'b1', family: 'exact-length', instruction: 'x', target: 3, anchor: ['typo'] },
    { id: 'b2', family: 'c99', targets: [] },
    { id: 'b3', family: 'c07', task: 'x', targets: ['heron'], witness: 'No bird here.' },
    [1, 2],
  ]);
  assert.deepEqual(await problemsOf(bad), [
    `${bad}:1: anchor: unknown field; native case fields are id, family, source, instruction, target, anchors, task, targets, witness, meta`,
    `${bad}:2: family: unknown family 'c99'; known families: exact-length, c05, c07, c09, c10, c12, c01, c02, c03, c04, c06a, c08, c11, c14, ifeval`,
    `${bad}:3: witness: does not pass its own verifier: - required word 'heron': present=false`,
    `${bad}:4: expected a JSON object`,
  ]);
});

test('format override and undetectable files', async () => {
  const dir = tmpDir();
  const path = writeLines(dir, 'gen.jsonl', paperExactRows());
  const asNative = await problemsOf(path, { format: 'native' });
  assert.match(asNative[0], new RegExp(`^${path}:1: family: is required`));
  const odd = writeLines(dir, 'odd.jsonl', [{ hello: 'world' }]);
  await assert.rejects(
    loadCaseSet(odd),
    /odd.jsonl:1: cannot tell the case format from the first row \(fields: hello\); set format to one of the formats \(paper-exact: /,
  );
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '\n\n');
  assert.deepEqual(await problemsOf(empty), [`${empty}: the file has no rows`]);
  await assert.rejects(loadCaseSet(join(dir, 'missing.jsonl')), /missing.jsonl: no such file/);
});

test('manifest: counts, hashes of file and rows, stable across paths, sensitive to content', async () => {
  const dir = tmpDir();
  const a = await loadCaseSet(writeLines(dir, 'a.jsonl', paperExactRows()));
  const b = await loadCaseSet(writeLines(tmpDir(), 'other-name.jsonl', paperExactRows()));
  const m = a.manifest;
  assert.deepEqual(m, b.manifest, 'same bytes, same manifest, whatever the path');
  assert.equal(m.schema, 'revloop.case-set-manifest/1');
  assert.equal(m.case_count, 2);
  assert.deepEqual(m.counts, {
    by_family: { 'exact-length': 2 },
    by_structure: { 'exact-length': 2 },
    by_source: { mine_faq: 1, mine_notes: 1 },
  });
  assert.equal(m.rows[0].sha256, sha256Hex(canonicalJson(paperExactRows()[0])));
  assert.deepEqual(
    m.rows.map((r) => r.id),
    ['mine__0001', 'mine__0002'],
  );
  assert.ok(manifestIsIntact(m));
  const { manifest_sha256, ...body } = m;
  assert.equal(manifest_sha256, sha256Hex(canonicalJson(body)));
  assert.deepEqual(computeManifest({ format: a.format, fileSha256: m.file_sha256, fileBytes: m.file_bytes, cases: a.cases }), m);
  const changed = paperExactRows();
  changed[1].instruction = 'When does the quiet period begin?';
  const c = await loadCaseSet(writeLines(tmpDir(), 'a.jsonl', changed));
  assert.notEqual(c.manifest.file_sha256, m.file_sha256);
  assert.equal(c.manifest.rows[0].sha256, m.rows[0].sha256);
  assert.notEqual(c.manifest.rows[1].sha256, m.rows[1].sha256);
  assert.notEqual(c.manifest.manifest_sha256, m.manifest_sha256);
});

test('writeCaseSet writes native JSON Lines that load back to the same cases; invalid cases write nothing', async () => {
  const dir = tmpDir();
  const src = await loadCaseSet(writeLines(dir, 'gen.jsonl', paperExactRows()));
  const out = join(dir, 'native.jsonl');
  await writeCaseSet(out, src.cases);
  const back = await loadCaseSet(out);
  assert.equal(back.format, 'native');
  const strip = (s: LoadedCaseSet) => s.cases.map(({ row: _row, ...c }) => c);
  assert.deepEqual(strip(back), strip(src));
  await assert.rejects(
    writeCaseSet(join(dir, 'bad.jsonl'), [
      { id: 'x', family: 'c10', source: 's', task: 't', targets: [3, 9, 2] },
      { id: 'x', family: 'nope', source: 's' },
    ]),
    (e: Error) => {
      assert.match(e.message, /bad.jsonl:1: targets: lower bound 9 is above upper bound 2/);
      assert.match(e.message, /bad.jsonl:2: id: duplicate id "x" \(first on line 1\)/);
      assert.match(e.message, /bad.jsonl:2: family: unknown family 'nope'/);
      return true;
    },
  );
  assert.deepEqual(readdirSync(dir).sort(), ['gen.jsonl', 'native.jsonl'], 'no partial or temporary file');
  assert.equal(existsSync(join(dir, 'bad.jsonl')), false);
});

test('validateCaseFile reports problems without throwing', async () => {
  const dir = tmpDir();
  const path = writeLines(dir, 'gen.jsonl', [{ ...paperExactRows()[0], target: -1 }]);
  const report = await validateCaseFile(path);
  assert.equal(report.format, 'paper-exact');
  assert.deepEqual(report.problems, [{ line: 1, field: 'target', problem: 'must be at least 1, got -1' }]);
  assert.equal(report.manifest, undefined);
});

const exact = requireShared('paper-cases', 'generation_combined480.jsonl');
const lexical = requireShared('paper-cases', 'lexical_constraints_combined480.jsonl');
const compositional = requireShared('paper-cases', 'compositional_constraints_combined480.jsonl');
const collie = requireShared('collie', 'collie_all.jsonl');

test("the paper's exact-length set loads: 480 cases, 1,907 anchors", { skip: exact.skip }, async () => {
  const set = await loadCaseSet(exact.path!);
  assert.equal(set.format, 'paper-exact');
  assert.equal(set.cases.length, 480);
  assert.equal(
    set.cases.reduce((n, c) => n + c.anchors!.length, 0),
    1907,
  );
  assert.equal(set.manifest.file_sha256.slice(0, 8), '6ffebda7');
  assert.equal(set.manifest.file_sha256.slice(-4), 'ed0a');
  assert.deepEqual(set.manifest.counts.by_source, {
    dolly_creative_writing: 120,
    no_robots_test_generation: 60,
    no_robots_train_generation: 60,
    oasst1_train_root_text: 60,
    oasst1_validation_root_text: 60,
    writingprompts_validation: 120,
  });
});

test(
  "the paper's lexical (CRLF) and compositional sets load with every stored state reproduced",
  { skip: lexical.skip || compositional.skip || skipStructured },
  async () => {
    const lex = await loadCaseSet(lexical.path!);
    assert.equal(lex.format, 'paper-structured');
    assert.deepEqual(lex.manifest.counts.by_family, { c05: 240, c07: 120, c12: 120 });
    assert.equal(lex.manifest.file_sha256.slice(0, 8), '82196c5c');
    const comp = await loadCaseSet(compositional.path!);
    assert.deepEqual(comp.manifest.counts.by_family, { c09: 240, c10: 240 });
    assert.equal(comp.manifest.file_sha256.slice(0, 8), 'b79f7d2d');
    assert.deepEqual(comp.manifest.counts.by_source, { ccnews: 160, guten: 160, wiki: 160 });
  },
);

test(
  "COLLIE's collie_all.jsonl: all 2,080 rows of the 13 structures are runnable, every witness passes",
  { skip: collie.skip || skipStructured },
  async () => {
    const set = await loadCaseSet(collie.path!, { strict: true });
    assert.equal(set.format, 'collie');
    assert.equal(set.cases.length, 2080);
    assert.deepEqual(set.manifest.counts.by_family, {
      c01: 100,
      c02: 98,
      c03: 7,
      c04: 113,
      c05: 279,
      c06a: 108,
      c07: 267,
      c08: 36,
      c09: 274,
      c10: 286,
      c11: 55,
      c12: 229,
      c14: 228,
    });
    assert.equal(set.manifest.unsupported.count, 0);
  },
);
