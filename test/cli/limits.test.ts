// Upper bounds on flags and secrets in messages (issue 36): a seed of 10^20, a budget of a million or
// a response cap of 10 bytes are refused with the flag named (exit 2), and a model URL refused for its
// credentials is printed with the password masked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { hasStack, revloop } from './cli.ts';
import { tempDir } from '../tmp.ts';

test('flags have upper bounds: seed, budget, response cap', () => {
  const dir = tempDir('revloop-limits-');
  const cases = join(dir, 'c.jsonl');
  writeFileSync(
    cases,
    JSON.stringify({ id: 'a', family: 'exact-length', source: 'own', instruction: 'Say hi.', target: 3, anchors: [] }) + '\n',
  );
  const store = join(dir, 'runs.db');
  for (const [args, pattern] of [
    [
      ['--seed', '99999999999999999999'],
      /--seed must be an integer from -9007199254740991 to 9007199254740991 \(got "99999999999999999999"\)/,
    ],
    [['--budget', '1000000'], /--budget must be a whole number from 0 to 1000/],
    [['--max-response-bytes', '10'], /--max-response-bytes must be a whole number from 1024 to 1073741824/],
  ] as const) {
    const r = revloop(['run', '--cases', cases, '--model', 'sim:steady', '--store', store, ...args]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, pattern);
    assert.ok(!hasStack(r.err));
  }
  for (const cmd of ['analyze', 'report']) {
    const r = revloop([cmd, '--store', store, '--max-cap', '1000000', ...(cmd === 'report' ? ['-o', join(dir, 'r.html')] : [])]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /--max-cap must be a whole number from 0 to 1000/);
  }
});

test('a model URL refused for its credentials is printed with the password masked', () => {
  const r = revloop(['model', 'try', 'openai-compatible:http://admin:hunter22@127.0.0.1:9/v1#m', '--prompt', 'hi']);
  assert.equal(r.code, 2, r.err);
  assert.ok(!r.err.includes('hunter22'), r.err);
  assert.match(r.err, /http:\/\/admin:\*\*\*@127\.0\.0\.1:9\/v1#m/);
  assert.match(r.err, /contains credentials/);
});
