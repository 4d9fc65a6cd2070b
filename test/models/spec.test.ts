// Model specs and createModel: every scheme, query parameters, and the errors users see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createModel, requireScore, requireBan } from '../../src/models/index.ts';
import { parseSpec } from '../../src/models/spec.ts';
import { modelOptionsFromFlags } from '../../src/cli/flags.ts';
import { CapabilityError, UserError } from '../../src/core/errors.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/revloop.mjs', import.meta.url));

test('parseSpec: the five forms', () => {
  assert.deepEqual(parseSpec('openai:gpt-4o-mini'), { scheme: 'openai', spec: 'openai:gpt-4o-mini', target: 'gpt-4o-mini', params: {} });
  assert.deepEqual(parseSpec('openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B?rpm=60&vllm=1'), {
    scheme: 'openai-compatible',
    spec: 'openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B?rpm=60&vllm=1',
    target: 'Qwen/Qwen3-8B',
    baseUrl: 'http://localhost:8000/v1',
    params: { rpm: '60', vllm: '1' },
  });
  assert.equal(parseSpec('vllm:https://h.example/v1#m').scheme, 'vllm');
  assert.deepEqual(parseSpec('gguf:./models/a b.gguf?gpu=cuda').params, { gpu: 'cuda' });
  assert.equal(parseSpec('gguf:./models/a b.gguf?gpu=cuda').target, './models/a b.gguf');
  assert.deepEqual(parseSpec('sim:steady?gain=0.7&recur=0.2&seed=3'), {
    scheme: 'sim',
    spec: 'sim:steady?gain=0.7&recur=0.2&seed=3',
    target: 'steady',
    params: { gain: '0.7', recur: '0.2', seed: '3' },
  });
  // A simulator's model name travels whole, query included.
  assert.equal(parseSpec('openai-compatible:http://127.0.0.1:8100/v1#sim:steady?seed=3').target, 'sim:steady?seed=3');
  // OpenRouter-style names keep their colons and slashes.
  assert.equal(
    parseSpec('openai-compatible:https://openrouter.ai/api/v1#meta-llama/llama-3.1-70b-instruct:free').target,
    'meta-llama/llama-3.1-70b-instruct:free',
  );
});

test('invalid specs are UserErrors that list the valid forms', () => {
  for (const [spec, why] of [
    ['', /empty/],
    ['gpt-4o', /no scheme/],
    ['anthropic:claude', /unknown scheme "anthropic:"/],
    ['openai:', /model name is missing/],
    ['openai-compatible:http://localhost:8000/v1', /<base-url>#<model>/],
    ['openai-compatible:localhost:8000#m', /must start with http/],
    ['openai-compatible:http://x/v1#', /model name/],
    ['sim:', /profile name is missing/],
    ['sim:steady?gain=1&gain=2', /given twice/],
    ['openai-compatible:http://user:pw@host/v1#m', /contains credentials/],
  ] as const) {
    assert.throws(
      () => parseSpec(spec),
      (e: Error) =>
        e instanceof UserError &&
        why.test(e.message) &&
        /valid forms:[\s\S]*openai-compatible:<base-url>#<model>[\s\S]*sim:<profile>/.test(e.message),
      spec,
    );
  }
});

test('HTTP spec parameters are validated and applied', async () => {
  const m = await createModel(
    'openai-compatible:http://127.0.0.1:9/v1#m?timeout=5000&max_retries=1&concurrency=2&rpm=30&seed=4&label=local%20qwen',
  );
  const c = (m as unknown as { config: Record<string, unknown> }).config;
  assert.equal(c.timeoutMs, 5000);
  assert.equal(c.maxRetries, 1);
  assert.equal(c.concurrency, 2);
  assert.equal(c.rpm, 30);
  assert.equal(c.seed, 4);
  assert.equal(m.label, 'local qwen');
  await assert.rejects(createModel('openai-compatible:http://127.0.0.1:9/v1#m?timeout=abc'), /parameter "timeout" must be a number/);
  await assert.rejects(createModel('openai-compatible:http://127.0.0.1:9/v1#m?concurrency=0'), /at least 1/);
  await assert.rejects(createModel('openai-compatible:http://127.0.0.1:9/v1#m?bogus=1'), /unknown parameter "bogus"/);
  await assert.rejects(createModel('openai-compatible:http://127.0.0.1:9/v1#m', { maxRetries: -1 }), /maxRetries must be at least 0/);
  await assert.rejects(createModel('openai-compatible:http://127.0.0.1:9/v1#m?vllm=maybe'), /true or false/);
  const v = await createModel('openai-compatible:http://127.0.0.1:9/v1#m?vllm=1');
  assert.deepEqual(v.capabilities, {
    score: true,
    ban: true,
    banAnswers: false,
    tokenize: true,
    decode: false,
    stopTokens: true,
    counters: false,
    info: true,
    sizeContext: false,
    simulated: false,
  });
  requireScore(v);
  assert.equal(typeof v.scoreMany, 'function');
});

test('gguf specs go to the GGUF backend (or say it is missing)', async () => {
  await assert.rejects(createModel('gguf:/nonexistent/definitely-missing.gguf'), (e: Error) => e instanceof Error && e.message.length > 0);
});

test('CLI flags become model options (seconds → ms), with clear errors', () => {
  assert.deepEqual(
    modelOptionsFromFlags({
      timeout: '30',
      retries: '2',
      modelConcurrency: '8',
      rpm: '60',
      apiKeyEnv: 'OPENROUTER_API_KEY',
      extraBody: '{"chat_template_kwargs":{"enable_thinking":false}}',
      temperature: '0',
      seed: '0',
      label: 'x',
    }),
    {
      timeout: 30000,
      maxRetries: 2,
      concurrency: 8,
      rpm: 60,
      apiKeyEnv: 'OPENROUTER_API_KEY',
      extraBody: { chat_template_kwargs: { enable_thinking: false } },
      temperature: 0,
      seed: 0,
      label: 'x',
    },
  );
  assert.equal(modelOptionsFromFlags({ temperature: 'omit' }).temperature, null);
  assert.throws(() => modelOptionsFromFlags({ extraBody: '{oops' }), /--extra-body is not valid JSON/);
  assert.throws(() => modelOptionsFromFlags({ extraBody: '[1]' }), /must be a JSON object/);
  assert.throws(() => modelOptionsFromFlags({ retries: '1.5' }), /--retries must be an integer/);
});

test('revloop model info / try / sims', () => {
  const info = spawnSync(process.execPath, [BIN, 'model', 'info', 'sim:stubborn?seed=2', '--json'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(info.status, 0, info.stderr);
  const j = JSON.parse(info.stdout);
  assert.equal(j.label, 'sim:stubborn?seed=2 [simulated]');
  assert.equal(j.params.seed, 2);
  assert.equal(j.capabilities.simulated, true);
  const env = { ...process.env, REVLOOP_TEST_SECRET: 'sk-should-not-print' };
  const http = spawnSync(
    process.execPath,
    [BIN, 'model', 'info', 'openai-compatible:http://127.0.0.1:9/v1#m', '--api-key-env', 'REVLOOP_TEST_SECRET'],
    { cwd: ROOT, encoding: 'utf8', env },
  );
  assert.equal(http.status, 0, http.stderr);
  assert.doesNotMatch(http.stdout, /sk-should-not-print/);
  assert.match(http.stdout, /from \$REVLOOP_TEST_SECRET/);
  const tried = spawnSync(
    process.execPath,
    [BIN, 'model', 'try', 'sim:ideal', '--prompt', "Please generate a sentence containing the word 'harbour', 'gulls', 'dawn'."],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(tried.status, 0, tried.stderr);
  assert.match(tried.stderr, /SIMULATED/);
  assert.ok(tried.stdout.trim().length > 0);
  const sims = spawnSync(process.execPath, [BIN, 'model', 'sims'], { cwd: ROOT, encoding: 'utf8' });
  assert.match(sims.stdout, /^sim:stubborn \[SIMULATED\] — /m);
  assert.doesNotMatch(sims.stdout, /\[simulated\]/, 'one mark per name');
  const bad = spawnSync(process.execPath, [BIN, 'model', 'info', 'nonsense'], { cwd: ROOT, encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /valid forms/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace for a user error');
});

test('requireScore / requireBan refuse plain OpenAI-compatible models with a CapabilityError', async () => {
  const plain = await createModel('openai-compatible:http://127.0.0.1:9/v1#m');
  assert.throws(
    () => requireScore(plain, 'the corrective-gain probe'),
    (e: Error) => e instanceof CapabilityError && /cannot score[\s\S]*corrective-gain probe[\s\S]*vllm:/.test(e.message),
  );
  assert.throws(
    () => requireBan(plain),
    (e: Error) => e instanceof CapabilityError && /cannot ban/.test(e.message),
  );
  const vllm = await createModel('vllm:http://127.0.0.1:9/v1#m');
  requireScore(vllm);
  requireBan(vllm);
  requireScore(await createModel('sim:steady'));
});
