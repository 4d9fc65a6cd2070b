// The project's tiny random-weight GGUF: deterministic, small, and a well-formed GGUF v3 file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildTinyLlamaGguf,
  writeTinyLlamaGguf,
  ensureTinyModel,
  tinyVocabulary,
  TINY_CHAT_TEMPLATE,
} from '../../../src/test/tiny-model.ts';
import { serializeGguf } from '../../../src/models/gguf/gguf-writer.ts';
import { sha256Hex } from '../../../src/core/util/hash.ts';
import { tempDir } from '../../tmp.ts';

test('same options give byte-identical files; another seed gives other weights; under 1 MB', () => {
  const a = buildTinyLlamaGguf();
  const b = buildTinyLlamaGguf();
  const c = buildTinyLlamaGguf({ seed: 1 });
  assert.equal(sha256Hex(a), sha256Hex(b));
  assert.notEqual(sha256Hex(a), sha256Hex(c));
  assert.ok(a.length < 1024 * 1024, `size ${a.length}`);
});

test('header: GGUF magic, version 3, tensor and key counts; data section aligned to 32', () => {
  const bytes = buildTinyLlamaGguf();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), 'GGUF');
  assert.equal(dv.getUint32(4, true), 3);
  assert.equal(Number(dv.getBigUint64(8, true)), 2 + 2 * 9 + 1, 'token_embd, output_norm, output + 9 per block');
  assert.ok(Number(dv.getBigUint64(16, true)) >= 25);
  assert.equal(bytes.length % 32, 0);
});

test('node-llama-cpp parses the file: llama architecture, vocabulary, template', async () => {
  const { readGgufFileInfo } = await import('node-llama-cpp');
  const dir = tempDir('revloop-gguf-');
  try {
    const { path } = writeTinyLlamaGguf(join(dir, 't.gguf'));
    const info = await readGgufFileInfo(path, { readTensorInfo: true });
    const meta = info.metadata as any;
    assert.equal(meta.general.architecture, 'llama');
    assert.equal(meta.llama.block_count, 2);
    assert.equal(meta.llama.embedding_length, 64);
    assert.equal(meta.tokenizer.ggml.model, 'llama');
    assert.equal(meta.tokenizer.chat_template, TINY_CHAT_TEMPLATE);
    assert.equal(info.tensorInfo?.length, 21);
    const vocab = tinyVocabulary();
    assert.equal(meta.llama.vocab_size, vocab.tokens.length);
    assert.equal(vocab.tokens[vocab.bos], '<s>');
    assert.equal(vocab.tokens.filter((t) => /^<0x[0-9A-F]{2}>$/.test(t)).length, 256);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ensureTinyModel writes into the git-ignored test/.tmp and reuses an identical file', () => {
  const p1 = ensureTinyModel();
  const p2 = ensureTinyModel();
  assert.equal(p1, p2);
  assert.match(p1, /test\/\.tmp\/tiny-llama-[0-9a-f]{12}\.gguf$/);
  assert.equal(sha256Hex(readFileSync(p1)), sha256Hex(buildTinyLlamaGguf()));
});

test('the writer rejects tensors whose data does not match their dimensions', () => {
  assert.throws(() => serializeGguf([], [{ name: 'x', dims: [2, 3], data: new Float32Array(5) }]), /need 6 values/);
});
