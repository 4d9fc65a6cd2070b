// Shared CLI flag helpers: repeatable flags and the one run a command names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collect, oneRun } from '../../src/cli/flags.ts';
import { UserError } from '../../src/core/errors.ts';

test('collect gathers a repeated flag in order', () => {
  assert.deepEqual(collect('b.ts', collect('a.ts', [])), ['a.ts', 'b.ts']);
});

test('oneRun: the argument or --run, the same name twice is fine, two names or none are refused', () => {
  assert.equal(oneRun('audit', 'r1', undefined, 'u'), 'r1');
  assert.equal(oneRun('audit', undefined, 'r2', 'u'), 'r2');
  assert.equal(oneRun('audit', 'r3', 'r3', 'u'), 'r3');
  assert.throws(
    () => oneRun('export', 'a', 'b', 'usage'),
    (e) => e instanceof UserError && /^export: two runs named \('a' and --run 'b'\); name one \(usage\)$/.test(e.message),
  );
  assert.throws(
    () => oneRun('audit', undefined, undefined, 'usage'),
    (e) => e instanceof UserError && /^audit: name the run \(usage\)$/.test(e.message),
  );
});
