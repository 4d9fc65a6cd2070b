// Issue 14 #6: `-` is standard output for every -o/--out/--output and standard input for every
// input file (docs/running.md); no file named "-" ever appears.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { tempDir } from '../tmp.ts';
import { revloop, shell } from './cli.ts';

const dir = tempDir('revloop-stdio-');
const casesFile = join(dir, 'own.jsonl');
const db = join(dir, 'runs.db');
const noDash = () => assert.ok(!existsSync(join(dir, '-')), 'no file named "-"');
const opts = { cwd: dir };

test('verify: --jsonl FILE -o - writes the results to stdout; --text-file - reads stdin', () => {
  const texts = join(dir, 'texts.jsonl');
  writeFileSync(texts, JSON.stringify({ id: 'a', family: 'exact-length', target: 3, anchors: [], text: 'a b c' }) + '\n');
  const r = revloop(['verify', '--jsonl', texts, '-o', '-'], opts);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^\{"id": "a", "word_count": 3, /);
  noDash();
  const one = revloop(['verify', '--family', 'exact-length', '--target', '3', '--text-file', '-', '--json'], {
    ...opts,
    input: 'one two three',
  });
  assert.equal(one.code, 0, one.err);
  assert.match(one.out, /"word_count": 3/);
});

test('cases validate - and cases manifest - read stdin; errors name standard input', async () => {
  await writeCaseSet(casesFile, exactLengthDemoCases());
  const text = readFileSync(casesFile, 'utf8');
  const v = revloop(['cases', 'validate', '-'], { ...opts, input: text });
  assert.equal(v.code, 0, v.err);
  // Issue 40: named as standard input, as the docs say, not as `-:`.
  assert.match(v.out, /^ok {3}standard input: 10 cases/);
  const m = revloop(['cases', 'manifest', '-', '--json'], { ...opts, input: text });
  assert.equal(m.code, 0, m.err);
  assert.equal(JSON.parse(m.out).case_count, 10);
  const bad = revloop(['cases', 'manifest', '-'], { ...opts, input: '{"id": 1}\n' });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /standard input/);
  assert.doesNotMatch(bad.err, /revloop-stdin-/, 'the temporary copy is never named');
});

test('run --cases - reads the cases from stdin; report -o - writes the HTML to stdout', async () => {
  await writeCaseSet(casesFile, exactLengthDemoCases());
  const run = revloop(['run', '--cases', '-', '--model', 'sim:instant', '--store', db, '--limit', '3'], {
    ...opts,
    input: readFileSync(casesFile, 'utf8'),
  });
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^run 'stdin__sim-instant/m);
  const report = revloop(['report', '--store', db, '-o', '-', '--bootstrap', '0', '--no-progress'], opts);
  assert.equal(report.code, 0, report.err);
  assert.match(report.out, /^<!doctype html>/i);
  assert.match(report.err, /^wrote standard output/m);
  noDash();
});

test('export -o -, probe items -o -, probe --items -, import-trajectories -, model try --prompt-file -', () => {
  const items = revloop(['probe', 'items', '--build', '2', '-o', '-', '--no-progress'], opts);
  assert.equal(items.code, 0, items.err);
  assert.equal(items.out.trim().split('\n').length, 2);
  noDash();
  const probe = revloop(['probe', '--items', '-', '--model', 'sim:steady', '--store', db, '--no-progress'], { ...opts, input: items.out });
  assert.equal(probe.code, 0, probe.err);
  assert.match(probe.err, /complete; \d+ new scores/);

  const imp = JSON.stringify({
    id: 't1',
    controller: 'mine',
    family: 'exact-length',
    case_id: 'c1',
    source: 'own',
    target: 2,
    anchors: [],
    drafts: ['one', 'one two'],
  });
  const i = revloop(['import-trajectories', '-', '--store', db], { ...opts, input: imp + '\n' });
  assert.equal(i.code, 0, i.err);
  assert.match(i.out, /imported run 'stdin'/);
  const e = revloop(['export', '--store', db, '--run', 'stdin', '-o', '-'], opts);
  assert.equal(e.code, 0, e.err);
  assert.match(e.out, /^\{"id": "c1", /);

  const t = revloop(['model', 'try', 'sim:instant', '--prompt-file', '-'], { ...opts, input: 'Write two words.' });
  assert.equal(t.code, 0, t.err);
  noDash();
});

test('-o /dev/stdout is standard output, like -o -: the same bytes into a pipe or a redirected file, notes on stderr', async () => {
  const before = lstatSync('/dev/stdout');
  await writeCaseSet(casesFile, exactLengthDemoCases());
  const store = join(dir, 'devstdout.db');
  assert.equal(
    revloop(['run', '--cases', casesFile, '--model', 'sim:instant', '--store', store, '--run', 'r', '--limit', '2'], opts).code,
    0,
  );
  const texts = join(dir, 'texts-devstdout.jsonl');
  writeFileSync(texts, JSON.stringify({ id: 'a', family: 'exact-length', target: 3, anchors: [], text: 'a b c' }) + '\n');
  for (const args of [
    ['export', '--store', store, '--run', 'r'],
    ['verify', '--jsonl', texts],
  ]) {
    const dash = revloop([...args, '-o', '-'], opts);
    assert.equal(dash.code, 0, dash.err);
    const piped = revloop([...args, '-o', '/dev/stdout'], opts);
    assert.equal(piped.code, 0, piped.err);
    assert.equal(piped.out, dash.out, `${args[0]} -o /dev/stdout into a pipe`);
    const file = join(dir, `${args[0]}-redirected.jsonl`);
    const q = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
    const redirected = shell(`$REVLOOP ${args.map(q).join(' ')} -o /dev/stdout > ${q(file)}`);
    assert.equal(redirected.code, 0, redirected.err);
    assert.equal(readFileSync(file, 'utf8'), dash.out, `${args[0]} -o /dev/stdout > file`);
  }
  const after = lstatSync('/dev/stdout');
  assert.deepEqual([after.mode, after.ino], [before.mode, before.ino], '/dev/stdout is still what it was, never replaced');
});
