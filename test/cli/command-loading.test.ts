// A command line that names one command loads only that command's module (cli/main.ts); anything
// else (no command, --help, `help`, a misspelt name) gets every command, so the full help and
// commander's "did you mean" are as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProgram, namedCommand } from '../../src/cli/main.ts';
import { COMMANDS } from '../../src/cli/commands/index.ts';
import { revloop } from './cli.ts';

const argv = (...args: string[]) => ['node', 'revloop', ...args];

test('the command a command line names, if it is one of ours', () => {
  assert.equal(namedCommand(argv('run', '--cases', 'x.jsonl')), 'run');
  assert.equal(namedCommand(argv('import-trajectories', 'f.jsonl')), 'import-trajectories');
  for (const other of [argv(), argv('--help'), argv('--version'), argv('help', 'run'), argv('rnu'), argv('--store', 'run')]) {
    assert.equal(namedCommand(other), undefined, other.join(' '));
  }
});

test('every command is registered under the name its table entry gives, and alone when named', async () => {
  const all = await buildProgram();
  assert.deepEqual(
    all.commands.map((c) => c.name()),
    COMMANDS.map(([name]) => name),
  );
  for (const [name] of COMMANDS) {
    const one = await buildProgram(name);
    assert.deepEqual(
      one.commands.map((c) => c.name()),
      [name],
    );
  }
});

test('a misspelt command still gets every command: the error suggests the right one', () => {
  const r = revloop(['rnu']);
  assert.notEqual(r.code, 0);
  assert.match(r.err, /unknown command 'rnu'/);
  assert.match(r.err, /Did you mean run\?/);
});

test("a named command's own help and option errors are as with every command registered", () => {
  const help = revloop(['runs', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: revloop runs/);
  const bad = revloop(['runs', '--no-such-flag']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.err, /unknown option '--no-such-flag'/);
});
