// Issue 14 #10: the GGUF probe sizes its context from the items before it starts, says so up front,
// and never stops part way with "needs N tokens but the context holds M". Where the model's training
// context allows, the context grows; beyond it, or beyond a contextSize set in the spec, the probe is
// refused before anything is written, saying what to do.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { disposeAllGgufRuntimes } from '../../src/models/gguf/index.ts';
import { ensureTinyModel } from '../../src/test/tiny-model.ts';
import { probeCommand } from '../../src/app/probe.ts';
import { itemsJsonl } from '../../src/studies/probe/items.ts';
import { ProbeStore } from '../../src/studies/probe/probe-store.ts';
import type { ProbeItem } from '../../src/studies/probe/probe-types.ts';
import { shortItems } from './fixtures.ts';
import { revloop } from '../cli/cli.ts';
import { tempDir } from '../tmp.ts';

after(() => disposeAllGgufRuntimes());
const dir = tempDir('revloop-probe-context-');

/** The fixture items, the second one with a goal of about `words` tokens. */
function itemsFile(name: string, words: number): string {
  const [a, b] = shortItems();
  const long: ProbeItem = { ...b, goal: `${b.goal} ${'the '.repeat(words)}`.trim() };
  const path = join(dir, name);
  writeFileSync(path, itemsJsonl([a, long]));
  return path;
}

test('a default context too small for the longest item grows before the first score, and says so first', async () => {
  const model = `gguf:${ensureTinyModel({ contextLength: 8192 })}`; // default context: min(8192, 4096)
  const events: string[] = [];
  const store = join(dir, 'grown.db');
  const r = await probeCommand(
    { model, items: { file: itemsFile('long.jsonl', 4500) }, conditions: ['pre', 'fail'], store },
    { onNote: (t) => events.push(`note: ${t}`), onStart: () => events.push('start') },
  );
  assert.equal(r.status, 'complete');
  assert.match(
    events[0],
    /^note: the longest request needs (\d+) tokens \(item mine-0002-s0-b, condition (pre|fail)\); the context was grown from 4096 to 8192 tokens \(trained for 8192\)$/,
  );
  assert.equal(events[1], 'start', 'the note comes before the run starts');
  const probe = await ProbeStore.open(store);
  try {
    assert.equal((await probe.scores(r.runId)).length, r.nScored);
    assert.ok(r.nScored > 0);
  } finally {
    await probe.close();
  }
});

test("beyond the model's training context: refused up front, nothing written", async () => {
  const model = `gguf:${ensureTinyModel()}`; // trained for 2048
  const store = join(dir, 'refused.db');
  await assert.rejects(
    probeCommand({ model, items: { file: itemsFile('longer.jsonl', 2500) }, conditions: ['pre', 'fail'], store }),
    (e: Error) =>
      /the longest request needs \d+ tokens, more than the model's training context \(2048\).*\?contextSize=4096/.test(e.message),
  );
  assert.ok(!existsSync(store), 'no store was created');
});

test('beyond a contextSize set in the spec: refused up front, naming it', async () => {
  const model = `gguf:${ensureTinyModel()}?contextSize=512`;
  const store = join(dir, 'fixed.db');
  await assert.rejects(probeCommand({ model, items: { file: itemsFile('mid.jsonl', 800) }, conditions: ['pre'], store }), (e: Error) =>
    /needs \d+ tokens but contextSize=512 was set in the spec; set a larger one \(e\.g\. gguf:.*\?contextSize=1024\)/.test(e.message),
  );
  assert.ok(!existsSync(store));
});

test('the issue command (tiny model, --build 100) is refused in seconds with the fix, not at item 85', () => {
  const store = join(dir, 'build100.db');
  const r = revloop(['probe', '--model', `gguf:${ensureTinyModel()}`, '--build', '100', '--store', store, '--no-progress']);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /revloop: .*the longest request needs 2112 tokens, more than the model's training context \(2048\)/);
  assert.doesNotMatch(r.err, /new scores/);
  assert.ok(!existsSync(store));
});
