// Issue 37 #5: names from data never reach the terminal raw. A controller named with escape
// sequences (colour, bell, a window-title change) and a case id with a bidi override, imported with
// `import-trajectories`, are printed escaped (`\u001b…`) by every command that shows them, in text
// and in JSON (where the escape is JSON's own, so the value is unchanged); data written to standard
// output as the command's result (`export -o -`) stays byte for byte what the file gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { terminalSafe } from '../../src/cli/output.ts';
import { revloop } from './cli.ts';
import { tempDir } from '../tmp.ts';

const EVIL = '\x1b[31mRED\x1b[0m\x07\x1b]0;pwned\x07';
const CASE = 'case\u202eevil';
/** What a terminal would act on: C0 controls but newline and tab, DEL, C1, bidi and zero-width format characters. */
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

const dir = tempDir('revloop-escapes-');
const db = join(dir, 'runs.db');
const file = join(dir, 'evil.jsonl');
writeFileSync(
  file,
  JSON.stringify({
    id: 't1',
    controller: EVIL,
    family: 'exact-length',
    case_id: CASE,
    source: 'own',
    target: 2,
    anchors: [],
    drafts: ['a', 'a b'],
  }) + '\n',
);

test('terminalSafe: controls and bidi characters as \\uXXXX (JSON’s escapes), newlines, tabs and CRLF kept', () => {
  assert.equal(terminalSafe('a\x1b[31mb\x07\tc\r\nd\re\u202e\u{F0000}'), 'a\\u001b[31mb\\u0007\tc\r\nd\\u000de\\u202e\\udb80\\udc00');
  const json = JSON.stringify({ name: `x\u009by\u2028` });
  assert.deepEqual(JSON.parse(terminalSafe(json)), JSON.parse(json), 'JSON stays valid and means the same');
});

test('import-trajectories, runs, audit and analyze print the names escaped, in text and JSON', () => {
  const outputs: Array<[string, { code: number | null; out: string; err: string }]> = [
    ['import-trajectories', revloop(['import-trajectories', file, '--store', db, '--run', 'evil'])],
    ['runs', revloop(['runs', '--store', db])],
    ['runs --wide', revloop(['runs', '--store', db, '--wide'])],
    ['audit', revloop(['audit', '--store', db, '--run', 'evil'])],
    ['analyze', revloop(['analyze', '--store', db, '--bootstrap', '0', '--no-progress'])],
    ['report', revloop(['report', '--store', db, '--bootstrap', '0', '-o', join(dir, 'r.html')])],
  ];
  for (const [name, r] of outputs) {
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.doesNotMatch(r.out + r.err, RAW, `${name} printed a control character raw`);
  }
  assert.match(outputs[0][1].out, /\(\\u001b\[31mRED\\u001b\[0m\\u0007\\u001b\]0;pwned\\u0007\)/, 'the name is shown, escaped');
  assert.match(outputs[2][1].out, /\\u001b\[31mRED/);
  for (const args of [
    ['runs', '--store', db, '--json'],
    ['analyze', '--store', db, '--bootstrap', '0', '--no-progress', '--json'],
    ['audit', '--store', db, '--run', 'evil', '--json'],
  ]) {
    const r = revloop(args);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, RAW, args.join(' '));
    const value = JSON.stringify(JSON.parse(r.out));
    if (args[0] !== 'audit') assert.ok(value.includes(JSON.stringify(EVIL).slice(1, -1)), `${args[0]} --json keeps the name's value`);
  }
});

test('export -o - writes the same bytes as the file (data is not rewritten)', () => {
  const file = join(dir, 'evil-export.jsonl');
  assert.equal(revloop(['export', '--store', db, '--run', 'evil', '-o', file]).code, 0);
  const piped = revloop(['export', '--store', db, '--run', 'evil', '-o', '-']);
  assert.equal(piped.code, 0, piped.err);
  assert.equal(piped.out, readFileSync(file, 'utf8'));
  assert.ok(piped.out.includes(CASE), 'the case id as stored');
});

test('a name holding a newline or a tab stays on its line: escaped in import-trajectories, runs, audit and analyze', () => {
  const nlDb = join(dir, 'newline.db');
  const nlFile = join(dir, 'newline.jsonl');
  const NAME = 'ctl\nrevloop audit: PASS\tforged';
  writeFileSync(
    nlFile,
    JSON.stringify({
      id: 't1',
      controller: NAME,
      family: 'exact-length',
      case_id: 'c1',
      source: 'own',
      target: 2,
      anchors: [],
      drafts: ['a', 'a b'],
    }) + '\n',
  );
  const outputs: Array<[string, { code: number | null; out: string; err: string }]> = [
    ['import-trajectories', revloop(['import-trajectories', nlFile, '--store', nlDb, '--run', 'nl'])],
    ['runs', revloop(['runs', '--store', nlDb, '--wide'])],
    ['analyze', revloop(['analyze', '--store', nlDb, '--bootstrap', '0', '--no-progress', '--wide'])],
  ];
  for (const [name, r] of outputs) {
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.doesNotMatch(r.out, /^revloop audit: PASS/m, `${name} let a name start a line of its own`);
    assert.doesNotMatch(r.out, /\t/, `${name} printed a tab from a name`);
    assert.match(r.out, /ctl\\u000arevloop audit: PASS\\u0009forged/, `${name} shows the name, escaped`);
  }
  const json = revloop(['runs', '--store', nlDb, '--json']);
  assert.equal(JSON.parse(json.out)[0].controller, NAME, 'JSON keeps the value');
});
