// Issue 14 #4: every usage mistake exits 2 (docs/running.md), with commander's one-line message and
// no stack trace: unknown command, unknown option, missing required option, missing argument, a
// command group without its subcommand. Help and --version still exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasStack, revloop } from './cli.ts';

const MISTAKES: Array<[string[], RegExp]> = [
  [['frobnicate'], /unknown command 'frobnicate'/],
  [['runs', '--bogus'], /unknown option '--bogus'/],
  [['run', '--cases', 'x.jsonl'], /required option '--model <spec>' not specified/],
  [['cases', 'validate'], /missing required argument 'files'/],
  [['verify', '--family'], /option '--family <name>' argument missing/],
  [['export', '--run', 'r'], /required option '-o, --output <file>' not specified/],
  [['cases'], /Usage: revloop cases/],
  [[], /Usage: revloop/],
];

for (const [args, message] of MISTAKES) {
  test(`usage mistake exits 2: revloop ${args.join(' ') || '(no command)'}`, () => {
    const r = revloop(args);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, message);
    assert.ok(!hasStack(r.err), r.err);
  });
}

test('--help and --version exit 0', () => {
  assert.equal(revloop(['--help']).code, 0);
  assert.equal(revloop(['run', '--help']).code, 0);
  assert.equal(revloop(['--version']).code, 0);
});
