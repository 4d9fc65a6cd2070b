// CodeRepair (docs/harness.md §7): mutation operators, execution through a real Python subprocess, the
// observation renderings and the item builder. Expected values were generated with
// /usr/bin/python3 (3.11.2) from a transcription of the reference's functions, run on problems
// written for this test (test/coderepair/fixtures/toy-mbpp.json; not MBPP data).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  buildCodeRepairItems,
  extractCode,
  findPython,
  loadMbpp,
  mutate,
  renderExecObservation,
  runProgram,
} from '../../src/envs/coderepair/index.ts';
import { parseExecOutput } from '../../src/envs/coderepair/runner.ts';
import { itemsJsonl } from '../../src/studies/probe/items.ts';
import { buildConditionMessages } from '../../src/studies/probe/conditions.ts';
import { sha256Hex } from '../../src/core/util/hash.ts';
import { UserError } from '../../src/core/errors.ts';

const TOY = fileURLToPath(new URL('./fixtures/toy-mbpp.json', import.meta.url));
const MUTANTS = [
  ['def add_nums(a, b):\n    return a + b', [['flip_arith', 'def add_nums(a, b):\n    return a - b']]],
  [
    'def max_of(lst):\n    best = lst[0]\n    for x in lst:\n        if x > best:\n            best = x\n    return best\n',
    [
      [
        'flip_comparison2',
        'def max_of(lst):\n    best = lst[0]\n    for x in lst:\n        if x >= best:\n            best = x\n    return best\n',
      ],
      [
        'index_shift',
        'def max_of(lst):\n    best = lst[1]\n    for x in lst:\n        if x > best:\n            best = x\n    return best\n',
      ],
      ['drop_return', 'def max_of(lst):\n    best = lst[0]\n    for x in lst:\n        if x > best:\n            best = x\n    pass'],
      [
        'undefined_name',
        'def max_of(lst):\n    best = lst[0]\n    for x in lst_x:\n        if x > best:\n            best = x\n    return best\n',
      ],
    ],
  ],
  [
    'def count_upto(n):\n    total = 0\n    for i in range(n + 1):\n        if i <= n:\n            total += i\n    return total',
    [
      [
        'flip_comparison',
        'def count_upto(n):\n    total = 0\n    for i in range(n + 1):\n        if i < n:\n            total += i\n    return total',
      ],
      [
        'off_by_one',
        'def count_upto(n):\n    total = 0\n    for i in range(n + 1 - 1):\n        if i <= n:\n            total += i\n    return total',
      ],
      [
        'drop_return',
        'def count_upto(n):\n    total = 0\n    for i in range(n + 1):\n        if i <= n:\n            total += i\n    pass',
      ],
      [
        'undefined_name',
        'def count_upto(n):\n    total = 0\n    for i in range(n + 1):\n        if i <= n:\n            total += i\n    return total_x',
      ],
      [
        'flip_arith',
        'def count_upto(n):\n    total = 0\n    for i in range(n - 1):\n        if i <= n:\n            total += i\n    return total',
      ],
    ],
  ],
  [
    'import math\ndef ok_list(xs):\n    if not xs:\n        return False\n    return xs == sorted(xs, reverse = True) or math.isfinite(xs[-1]) and xs == sorted(xs)',
    [
      [
        'index_shift',
        'import math\ndef ok_list(xs):\n    if not xs:\n        return False\n    return xs == sorted(xs, reverse = True) or math.isfinite(xs[0]) and xs == sorted(xs)',
      ],
      ['drop_return', 'import math\ndef ok_list(xs):\n    if not xs:\n        return False\n    pass'],
      [
        'undefined_name',
        'import math\ndef ok_list(xs):\n    if not xs:\n        return False\n    return xs == sorted(xs, reverse = True) or math_x.isfinite(xs[-1]) and xs == sorted(xs)',
      ],
    ],
  ],
  [
    'def f(a):\n    if a >= 1 and not a < 0:\n        return [a][ 0 ] + 1 if True else a',
    [
      ['flip_comparison', 'def f(a):\n    if a >= 1 and not a <= 0:\n        return [a][ 0 ] + 1 if True else a'],
      ['flip_comparison2', 'def f(a):\n    if a > 1 and not a < 0:\n        return [a][ 0 ] + 1 if True else a'],
      ['index_shift', 'def f(a):\n    if a >= 1 and not a < 0:\n        return [a][1] + 1 if True else a'],
      ['drop_return', 'def f(a):\n    if a >= 1 and not a < 0:\n        pass'],
      ['flip_arith', 'def f(a):\n    if a >= 1 and not a < 0:\n        return [a][ 0 ] - 1 if True else a'],
    ],
  ],
  [
    'def g(s, t):\n    return sorted(s, reverse=True) == t and s != t or s <> t',
    [
      ['flip_comparison', 'def g(s, t):\n    return sorted(s, reverse=True) == t and s != t or s <=> t'],
      ['flip_bool', 'def g(s, t):\n    return sorted(s, reverse=False) == t and s != t or s <> t'],
    ],
  ],
] as Array<[string, Array<[string, string]>]>;

let python: { executable: string; version: string } | null = null;
try {
  python = findPython();
} catch {
  python = null;
}
const skip = python ? false : 'python3 is not available: CodeRepair execution cannot be tested here';

test("mutation operators: the reference's single edits, in its order", () => {
  for (const [code, want] of MUTANTS)
    assert.deepEqual(
      mutate(code).map((m) => [m.operator, m.code]),
      want,
      code,
    );
});

test('extracting the program from a model turn', () => {
  assert.equal(extractCode('Here:\n```python\ndef f():\n    return 1\n```\nDone.'), 'def f():\n    return 1');
  assert.equal(extractCode('text ``` def g(): pass'), 'def g(): pass');
  assert.equal(extractCode('  def h(): pass  '), 'def h(): pass');
});

test('driver output: markers parsed and removed, the first failing assert found', () => {
  const r = parseExecOutput(
    'Traceback (most recent call last):\n  File "tests.py", line 2, in <module>\n    assert f(2) == 3\nAssertionError\n@@KIND@@test_failure\n@@PASSED@@1\n',
  );
  assert.deepEqual(r, {
    ok: false,
    kind: 'test_failure',
    raw: 'Traceback (most recent call last):\n  File "tests.py", line 2, in <module>\n    assert f(2) == 3\nAssertionError',
    passed: 1,
    firstFailingTest: 'assert f(2) == 3',
  });
  assert.equal(renderExecObservation(r, 3, 'verbose'), '1/3 tests passed, then this assertion failed:\nassert f(2) == 3\nAssertionError');
  assert.equal(renderExecObservation(r, 3, 'terse'), 'Test failed.');
  assert.equal(
    renderExecObservation(r, 3, 'standard', true, 'def f(x): return x'),
    'assert f(2) == 3\nAssertionError\n  submitted:\ndef f(x): return x',
  );
  const rt = parseExecOutput(
    'Traceback (most recent call last):\n  File "solution.py", line 2, in f\n    return y\nNameError: name \'y\' is not defined\n@@KIND@@runtime_error\n@@PASSED@@0\n',
  );
  assert.equal(renderExecObservation(rt, 2), 'File "solution.py", line 2, in f\n    return y\nNameError: name \'y\' is not defined');
  assert.equal(renderExecObservation(rt, 2, 'terse'), "NameError: name 'y' is not defined");
});

test('running programs in a subprocess: ok, test failure with passed count, runtime and syntax errors, timeout', { skip }, async () => {
  const py = python!.executable;
  const tests = ['assert f(1) == 2', 'assert f(2) == 3', 'assert f(3) == 5'];
  assert.deepEqual(await runProgram('def f(x):\n    return x + 1', tests.slice(0, 2), { python: py }), {
    ok: true,
    kind: 'ok',
    raw: '',
    passed: 2,
    firstFailingTest: null,
  });
  const tf = await runProgram('def f(x):\n    return x + 1', tests, { python: py });
  assert.deepEqual([tf.kind, tf.passed, tf.firstFailingTest], ['test_failure', 2, 'assert f(3) == 5']);
  const rt = await runProgram('def f(x):\n    return y', tests, { python: py });
  assert.equal(rt.kind, 'runtime_error');
  assert.match(rt.raw, /^Traceback \(most recent call last\):\n {2}File "tests\.py", line 1, in <module>/);
  assert.ok(!rt.raw.includes('revloop-coderepair'), 'the sandbox path is removed');
  assert.match(rt.raw, /NameError: name 'y' is not defined$/);
  const se = await runProgram('def f(x) return x', tests, { python: py });
  assert.equal(se.kind, 'syntax_error');
  assert.match(se.raw, /SyntaxError/);
  const to = await runProgram('def f(x):\n    while True: pass', tests, { python: py, timeoutS: 0.5 });
  assert.deepEqual(to, { ok: false, kind: 'timeout', raw: 'TimeoutError: execution timed out', passed: 0, firstFailingTest: null });
});

/** SHA-256 of the reference transcription's JSONL for the toy problems under CPython 3.11.2. */
const TOY_ITEMS_SHA256_PY311 = 'e02072be59d3ce98d41be6336c12d65cccc1bd2d75e1ff5092b55df5ee45cb2f';

test("CodeRepair items from the toy problems: the reference builder's output byte for byte (CPython 3.11)", { skip }, async () => {
  const items = await buildCodeRepairItems(loadMbpp(TOY), { python: python!.executable });
  assert.deepEqual(
    items.map((i) => i.item_id),
    [
      'mbpp-0001-flip_arith-0',
      'mbpp-0002-drop_return-1',
      'mbpp-0002-index_shift-0',
      'mbpp-0002-undefined_name-2',
      'mbpp-0003-drop_reverse-0',
      'mbpp-0004-drop_return-2',
      'mbpp-0004-flip_arith-4',
      'mbpp-0004-flip_comparison-0',
      'mbpp-0004-off_by_one-1',
      'mbpp-0004-undefined_name-3',
      'mbpp-0006-drop_return-0',
      'mbpp-0006-undefined_name-1',
    ],
  );
  const tf = items[0];
  assert.deepEqual(
    [tf.obs_fail, tf.obs_fail_terse, tf.obs_fail_verbose],
    [
      'assert add_nums(1, 2) == 3\nAssertionError',
      'Test failed.',
      '0/3 tests passed, then this assertion failed:\nassert add_nums(1, 2) == 3\nAssertionError',
    ],
  );
  assert.deepEqual(tf.meta, { traceback_quotes_source: false, tests_passed_before_failure: 0, n_tests: 3 });
  assert.equal(tf.gold_action, 'def add_nums(a, b):\n    return a + b');
  assert.equal(items[2].meta.traceback_quotes_source, true);
  assert.equal(
    buildConditionMessages(tf, 'abstract')[2].content,
    '[attempt 1 failed: the tool \u2014 the code did not pass the tests; that call is not repeatable]',
  );
});

const skip311 =
  skip ||
  (python!.version.startsWith('3.11.')
    ? false
    : `the pinned digest was made with CPython 3.11; this is ${python!.version} (tracebacks differ between versions)`);
test(
  "CodeRepair items: the whole JSONL equals the reference transcription's (pinned digest, CPython 3.11)",
  { skip: skip311 },
  async () => {
    const items = await buildCodeRepairItems(loadMbpp(TOY), { python: python!.executable });
    assert.equal(sha256Hex(itemsJsonl(items)), TOY_ITEMS_SHA256_PY311);
  },
);

test('what is missing is said clearly: no MBPP file, no python', () => {
  assert.throws(
    () => loadMbpp('/nonexistent/sanitized-mbpp.json'),
    (e: unknown) =>
      e instanceof UserError && /cannot read the MBPP file \(no such file\).*pass its path with mbpp\.$/.test((e as Error).message),
  );
  assert.throws(
    () => findPython('/nonexistent/python3'),
    (e: unknown) =>
      e instanceof UserError &&
      /needs a Python 3 interpreter.*name one with python \(a path\) or REVLOOP_PYTHON/.test((e as Error).message),
  );
});

test('revloop probe --env coderepair without --mbpp explains what to supply', () => {
  const bin = fileURLToPath(new URL('../../bin/revloop.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [bin, 'probe', 'items', '--env', 'coderepair', '--build', '3', '-o', '/tmp/never-written.jsonl'], {
    encoding: 'utf8',
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /sanitized MBPP file.*pass its path with --mbpp PATH/);
});
