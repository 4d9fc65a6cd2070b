// The gguf:<path>?k=v spec and options (docs/gguf.md).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { parseGgufSpec, resolveGgufSettings } from '../../../src/models/gguf/options.ts';
import { ensureTinyModel } from '../../../src/test/tiny-model.ts';
import { UserError } from '../../../src/core/errors.ts';

let path = '';
before(() => {
  path = ensureTinyModel();
});

test('defaults: CPU, greedy, seed 0, no truncation, flash attention off, thinking off, pinned template date', () => {
  const s = resolveGgufSettings(`gguf:${path}`);
  assert.equal(s.path, path);
  assert.equal(s.gpu, false);
  assert.equal(s.gpuLayers, 0);
  assert.equal(s.temperature, 0);
  assert.equal(s.seed, 0);
  assert.equal(s.topK, 0);
  assert.equal(s.topP, 1);
  assert.equal(s.flashAttention, false);
  assert.deepEqual(s.templateKwargs, { enable_thinking: false });
  assert.equal(s.templateDate, '2024-07-26');
  assert.equal(s.scoreTokenization, 'separate');
  assert.match(s.label, /^tiny-llama-/);
});

test('query options are parsed and the options object wins over them', () => {
  const s = resolveGgufSettings(
    `gguf:${path}?gpu=cuda&contextSize=1024&threads=2&enableThinking=true&templateKwargs=${encodeURIComponent('{"date_string":"01 Jan 2026"}')}&seed=7`,
    { seed: 9, label: 'mine' },
  );
  assert.equal(s.gpu, 'cuda');
  assert.equal(s.gpuLayers, 'max');
  assert.equal(s.contextSize, 1024);
  assert.equal(s.threads, 2);
  assert.equal(s.seed, 9);
  assert.equal(s.label, 'mine');
  assert.deepEqual(s.templateKwargs, { enable_thinking: true, date_string: '01 Jan 2026' });
});

test('unknown keys, bad values and missing files are user errors that name the key', () => {
  assert.throws(
    () => resolveGgufSettings(`gguf:${path}?ctx=10`),
    (e: Error) => e instanceof UserError && /ctx: unknown option/.test(e.message),
  );
  assert.throws(() => resolveGgufSettings(`gguf:${path}?threads=two`), /threads: expected a number/);
  assert.throws(() => resolveGgufSettings(`gguf:${path}?gpu=tpu`), /gpu: expected/);
  assert.throws(() => resolveGgufSettings(`gguf:${path}?templateKwargs=nope`), /templateKwargs: expected a JSON object/);
  assert.throws(() => resolveGgufSettings(`gguf:${path}`, { temperature: -1 }), /temperature: must be >= 0/);
  assert.throws(() => resolveGgufSettings('gguf:/nonexistent/model.gguf'), /file not found/);
  assert.throws(() => parseGgufSpec('gguf:'), /missing the path/);
  assert.throws(() => parseGgufSpec('openai:x'), /expected gguf:<path>/);
});

test("unknown keys in the options object (other backends' options) are ignored", () => {
  const s = resolveGgufSettings(`gguf:${path}`, { timeoutMs: 5 } as never);
  assert.equal(s.temperature, 0);
});
