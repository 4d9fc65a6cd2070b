// `revloop verify` end to end: spawns the real CLI (node bin/revloop.mjs) for single texts, JSON,
// feedback, batches with malformed lines, atomic output, plugins and bad flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { punktSkip, writeDocExample } from './doc-example.ts';
import { messyJsonl } from '../../bench/messy-outputs.ts';
import { tempDir } from '../tmp.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'revloop.mjs');
const skipStructured = punktSkip();

function revloop(args: string[], input?: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    input: input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmp(): string {
  return tempDir('revloop-verify-cli-');
}

function assertUserError(r: ReturnType<typeof revloop>, pattern: RegExp): void {
  assert.notEqual(r.code, 0, 'non-zero exit');
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout, '', 'nothing on stdout');
}

test('single text from stdin: readable state, exit 0 even when the text fails', () => {
  const r = revloop(
    ['verify', '--family', 'exact-length', '--target', '6', '--anchors', 'IPO; quiet period ;lock-up'],
    "  The IPO's quiet period ended.\n",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    'exact-length: FAIL (violation energy 1.1666666666666667)\n' +
      '  word_count: 5\n  error: -1\n  exact_length: false\n  missing: ["lock-up"]\n  joint_success: false\n' +
      '  violation_vector: [0.16666666666666666, 0.0, 0.0, 1.0]\n',
  );
});

test('single text --json: the reference json.dumps bytes; --feedback adds the message', () => {
  const r = revloop(['verify', '--family', 'exact-length', '--target', '5', '--json'], 'Exactly five words are here.\n');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    '{"word_count": 5, "error": 0, "exact_length": true, "missing": [], "joint_success": true, "violation_vector": [0.0]}\n',
  );
  const f = revloop(
    ['verify', '--family', 'exact-length', '--target', '5', '--anchors', 'cat', '--json', '--feedback'],
    'Exactly five words are here.',
  );
  assert.equal(f.code, 0, f.stderr);
  assert.equal(
    JSON.parse(f.stdout).feedback,
    'DETERMINISTIC VERIFIER: previous response = 5 words; target = 5; required action = remove exactly 0 words. Missing required content items: cat. Revise the complete response to satisfy the exact target and retain every required content item. Return only the revised response with no analysis, count, or commentary.',
  );
});

test('c10 from --text-file with --feedback --variant concise prints the exact message', { skip: skipStructured }, () => {
  const dir = tmp();
  const file = join(dir, 'draft.txt');
  writeFileSync(file, 'The cat sat on the mat. It was happy there today. Then it slept.\n');
  const r = revloop(['verify', '--family', 'c10', '--targets', '[3, 4, 5]', '--text-file', file, '--feedback', '--variant', 'concise']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.startsWith('c10: FAIL (violation energy 0.45)\n'), r.stdout);
  assert.ok(r.stdout.includes('  sentence_word_counts: [6, 5, 3]\n'));
  assert.ok(
    r.stdout.endsWith(
      '\nfeedback (concise):\nDETERMINISTIC VERIFIER REPORT\n- sentences: observed=3, target=3, residual(observed-target)=0\n' +
        '- allowed words per sentence: 4 to 5 inclusive\n- sentence 1: words=6, below-minimum-by=0, above-maximum-by=1\n' +
        '- sentence 2: words=5, below-minimum-by=0, above-maximum-by=0\n- sentence 3: words=3, below-minimum-by=1, above-maximum-by=0\n' +
        'Revise the whole response to satisfy every reported constraint. Output only the revision, without analysis, a count, or commentary.\n',
    ),
    r.stdout,
  );
});

const BATCH =
  [
    JSON.stringify({ id: 'a1', family: 'exact-length', target: 5, anchors: ['five'], text: 'Exactly five words are here.' }),
    '{"id": "broken", "family": ',
    '',
    JSON.stringify({ id: 7, family: 'c99', targets: [1], text: 'x' }),
    JSON.stringify({ family: 'exact-length', target: 3, anchors: [] }),
    JSON.stringify({ id: 'a2', family: 'exact-length', target: 'ten', anchors: [], text: 'x' }),
    JSON.stringify({ id: 'a3', family: 'exact-length', target: 2, anchors: [], text: ' two words \n' }),
  ].join('\n') + '\n';

const BATCH_OUT =
  [
    '{"id": "a1", "word_count": 5, "error": 0, "exact_length": true, "missing": [], "joint_success": true, "violation_vector": [0.0, 0.0]}',
    '{"id": null, "line": 2, "error": "invalid JSON (Unexpected end of JSON input)"}',
    '{"id": 7, "line": 4, "error": "family: unknown family \'c99\'; known families: exact-length, c05, c07, c09, c10, c12, c01, c02, c03, c04, c06a, c08, c11, c14, ifeval"}',
    '{"id": null, "line": 5, "error": "text: must be a string, got nothing"}',
    '{"id": "a2", "line": 6, "error": "target: must be an integer, got the string \\"ten\\""}',
    '{"id": "a3", "word_count": 2, "error": 0, "exact_length": true, "missing": [], "joint_success": true, "violation_vector": [0.0]}',
  ].join('\n') + '\n';

test('batch: one line per input in order, malformed lines become error lines, exit 1', () => {
  const r = revloop(['verify', '--jsonl', '-'], BATCH);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, BATCH_OUT);
  assert.match(r.stderr, /4 of 6 lines failed/);
});

test('batch -o writes the same bytes atomically; a clean batch exits 0', () => {
  const dir = tmp();
  const input = join(dir, 'in.jsonl');
  const out = join(dir, 'out.jsonl');
  writeFileSync(input, BATCH);
  const r = revloop(['verify', '--jsonl', input, '-o', out]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.equal(readFileSync(out, 'utf8'), BATCH_OUT);
  assert.deepEqual(readdirSync(dir).sort(), ['in.jsonl', 'out.jsonl'], 'no temporary file left behind');
  writeFileSync(input, BATCH.split('\n')[0] + '\n');
  const ok = revloop(['verify', '--jsonl', input, '-o', out]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(readFileSync(out, 'utf8'), BATCH_OUT.split('\n')[0] + '\n');
});

test('batch with a missing input file fails cleanly and writes nothing', () => {
  const dir = tmp();
  const out = join(dir, 'out.jsonl');
  const r = revloop(['verify', '--jsonl', join(dir, 'nope.jsonl'), '-o', out]);
  assertUserError(r, /--jsonl: no such file/);
  assert.equal(existsSync(out), false);
  assert.deepEqual(readdirSync(dir), []);
});

test('bad flags: clear message, non-zero exit, no stack trace', () => {
  assertUserError(revloop(['verify'], 'x'), /--family is required/);
  assertUserError(revloop(['verify', '--family', 'c99'], 'x'), /unknown family 'c99'; known families: exact-length, c05/);
  assertUserError(
    revloop(['verify', '--family', 'exact-length', '--target', 'abc'], 'x'),
    /--target must be a whole number of words, got 'abc'/,
  );
  assertUserError(revloop(['verify', '--family', 'exact-length'], 'x'), /--target must be an integer, got nothing/);
  assertUserError(revloop(['verify', '--family', 'c10', '--targets', '[3, 5'], 'x'), /--targets must be JSON/);
  assertUserError(revloop(['verify', '--family', 'c10', '--targets', '[3, 5]'], 'x'), /--targets must be \[sentence count, lower, upper\]/);
  assertUserError(
    revloop(['verify', '--family', 'c07', '--targets', '["a"]', '--variant', 'terse'], 'x'),
    /--variant must be one of baseline, structured, concise/,
  );
  assertUserError(
    revloop(['verify', '--jsonl', '-', '--family', 'c10'], ''),
    /--jsonl takes the family and targets from each line; drop --family/,
  );
  assertUserError(
    revloop(['verify', '--family', 'c07', '--targets', '["a"]', '--text-file', '/nonexistent/draft.txt']),
    /--text-file: cannot read \/nonexistent\/draft.txt \(ENOENT\)/,
  );
  assertUserError(revloop(['verify', '--family', 'c07', '--targets', '["a"]', '-o', 'x.jsonl'], 'x'), /--output is for batches/);
});

test('--plugin loads the documented max-chars family (a .ts file outside the package)', () => {
  const plugin = writeDocExample('.ts');
  const r = revloop(
    ['verify', '--plugin', plugin, '--family', 'max-chars', '--targets', '10', '--json', '--feedback'],
    'héllo wörld, again\n',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    '{"char_count": 18, "max_chars": 10, "excess": 8, "joint_success": false, "violation_vector": [0.8], ' +
      '"feedback": "VERIFIER: the response has 18 characters; the limit is 10. Remove at least 8 characters. Return only the revised text."}\n',
  );
  assertUserError(revloop(['verify', '--plugin', '/nonexistent/plugin.ts', '--family', 'max-chars'], 'x'), /--plugin: no such file/);
});

test(
  'batch --jobs 1 and --jobs 3, and --jobs 1 with V8 defaults (REVLOOP_V8_TUNING=0), write the same bytes (messy texts over all six families, large enough for workers)',
  { skip: skipStructured },
  () => {
    const dir = tmp();
    const input = join(dir, 'messy.jsonl');
    const rows = 2600; // an explicit --jobs 3 starts its worker threads before reading
    writeFileSync(input, messyJsonl({ rows, seed: 3, targets: 'synthetic' }));
    const outs = ['1', '3', '1 untuned'].map((setting) => {
      const [jobs, untuned] = setting.split(' ');
      const out = join(dir, `out-${jobs}${untuned ?? ''}.jsonl`);
      const r = revloop(['verify', '--jsonl', input, '-o', out, '--jobs', jobs], '', untuned ? { REVLOOP_V8_TUNING: '0' } : {});
      assert.equal(r.code, 0, r.stderr);
      return readFileSync(out, 'utf8');
    });
    assert.equal(outs[1], outs[0]);
    assert.equal(outs[2], outs[0]);
    assert.equal(outs[0].split('\n').length - 1, rows);
    assertUserError(revloop(['verify', '--jsonl', input, '--jobs', '0']), /--jobs must be a whole number ≥ 1/);
    assertUserError(revloop(['verify', '--family', 'c10', '--targets', '[1, 1, 9]', '--jobs', '2'], 'One.'), /--jobs is for batches/);
  },
);

test('batch to a pipe the reader closes early (revloop verify --jsonl … | head): stops quietly, exit 0', async () => {
  const dir = tmp();
  const input = join(dir, 'big.jsonl');
  writeFileSync(
    input,
    Array.from(
      { length: 20000 },
      (_, i) => JSON.stringify({ id: i, family: 'exact-length', target: 3, anchors: ['w'], text: 'w w w' }) + '\n',
    ).join(''),
  );
  const child = spawn(process.execPath, [BIN, 'verify', '--jsonl', input], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // Read the first chunk of output, then close the pipe, as `head -1` does.
  const [first] = await once(child.stdout, 'data');
  assert.match(first.toString(), /^\{"id": 0, "word_count": 3/);
  child.stdout.destroy();
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /Error|\n\s+at /, 'no error message, no stack trace');
});
