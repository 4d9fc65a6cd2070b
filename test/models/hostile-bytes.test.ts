// Any bytes a model sends end as clean text or a recorded fault (issue 36): NUL, lone surrogates
// and invalid UTF-8 are a fault of their own kind with the bytes escaped; bodies beyond the cap are
// not read; error bodies are read only as far as a record keeps them; the key sent and URL
// credentials never reach a record.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createModel } from '../../src/models/index.ts';
import type { AttemptRecord } from '../../src/models/types.ts';
import type { ModelOptions } from '../../src/models/options.ts';
import { startFaultServer, chatOk, type FaultServer, type FaultStep as Step } from '../../src/test/fault-server.ts';
import { fakeClock } from './helpers/fake-clock.ts';

const servers: FaultServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function generate(script: Step[], options: ModelOptions = {}, env?: Record<string, string>) {
  const server = await startFaultServer(script);
  servers.push(server);
  const saved = { ...process.env };
  Object.assign(process.env, env ?? {});
  try {
    const model = await createModel(`openai-compatible:${server.url}#m`, {
      clock: fakeClock(),
      timeout: 5000,
      maxRetries: 0,
      ...options,
    });
    const r = await model.generate([{ role: 'user', content: 'hi' }], { maxTokens: 64 });
    return { r, server, a: r.attempts[0] as AttemptRecord };
  } finally {
    for (const k of Object.keys(env ?? {})) if (saved[k] === undefined) delete process.env[k];
  }
}

test('a reply holding NUL is an invalid_text fault, its text escaped, never a draft', async () => {
  const { r, a } = await generate([{ json: chatOk('alpha beta \u0000 gamma') }]);
  assert.equal(r.text, null);
  assert.equal(a.ok, false);
  assert.equal(a.text, undefined);
  assert.equal(a.error!.kind, 'invalid_text');
  assert.match(a.error!.message, /NUL/);
  assert.equal(a.error!.raw, 'alpha beta \\u0000 gamma');
  assert.ok(!a.error!.message.includes('\u0000') && !String(a.error!.raw).includes('\u0000'));
});

test('a reply holding a lone UTF-16 surrogate is an invalid_text fault', async () => {
  // JSON's escape for a lone high surrogate, as a server would send it.
  const { r, a } = await generate([
    { body: '{"choices":[{"message":{"role":"assistant","content":"alpha \\ud83d beta"},"finish_reason":"stop"}]}' },
  ]);
  assert.equal(r.text, null);
  assert.equal(a.error!.kind, 'invalid_text');
  assert.match(a.error!.message, /lone UTF-16 surrogate \(\\ud83d\)/);
  assert.equal(a.error!.raw, 'alpha \\ud83d beta');
  // A proper pair (an emoji) is text.
  const ok = await generate([{ json: chatOk('alpha \ud83d\ude00 beta') }]);
  assert.equal(ok.r.text, 'alpha \ud83d\ude00 beta');
});

test('a reply with invalid UTF-8 bytes is an invalid_text fault, the bytes escaped as \\xNN', async () => {
  const body = Buffer.concat([
    Buffer.from('{"choices":[{"message":{"role":"assistant","content":"caf'),
    Buffer.from([0xe9, 0xff]),
    Buffer.from(' ok"},"finish_reason":"stop"}]}'),
  ]);
  const { r, a } = await generate([{ body }]);
  assert.equal(r.text, null);
  assert.equal(a.error!.kind, 'invalid_text');
  assert.match(a.error!.message, /not valid UTF-8 \(byte 0xe9/);
  assert.match(String(a.error!.raw), /caf\\xe9\\xff ok/);
});

test('a body beyond --max-response-bytes is not read: a response_too_large fault, and the server is cut off', async () => {
  const sent = { bytes: 0 };
  const chunk = Buffer.from('x'.repeat(64 * 1024));
  const { r, a } = await generate([{ stream: { chunk, sent } }], { maxResponseBytes: 256 * 1024 });
  assert.equal(r.text, null);
  assert.equal(a.error!.kind, 'response_too_large');
  assert.match(a.error!.message, /262144-byte limit/);
  assert.ok(String(a.error!.raw).length <= 4100);
  // An endless body: the client stopped reading near the cap (a timeout would have taken 5 s).
  assert.ok(a.latencyMs < 4000, `took ${a.latencyMs} ms`);
  // A body announced too large by its content-length is refused before any of it is read.
  const big = await generate([{ body: 'y'.repeat(300 * 1024), headers: { 'content-length': String(300 * 1024) } }], {
    maxResponseBytes: 256 * 1024,
  });
  assert.equal(big.a.error!.kind, 'response_too_large');
  assert.match(big.a.error!.message, /announced 307200 bytes/);
});

test('an error body is read only as far as a record keeps it', async () => {
  const sent = { bytes: 0 };
  const { a } = await generate([{ stream: { status: 500, chunk: Buffer.from('e'.repeat(64 * 1024)), sent } }]);
  assert.equal(a.error!.kind, 'server_error');
  assert.match(a.error!.message, /the error body was cut at 16000 bytes/);
  assert.ok(a.error!.message.length < 4200, `message of ${a.error!.message.length} chars`);
  assert.ok(a.latencyMs < 4000, `an endless error body took ${a.latencyMs} ms`);
});

test('the key revloop sent and URL credentials, echoed by the provider, are masked in every field', async () => {
  const key = 'sk-test-SECRET1234567890';
  const echo = `Incorrect API key provided: Bearer ${key}. See https://admin:hunter22@example.com/keys`;
  const { a } = await generate(
    [{ status: 401, json: { error: { message: echo, type: 'invalid_request_error', detail: { key, again: `Bearer ${key}` } } } }],
    { apiKeyEnv: 'REVLOOP_TEST_KEY' },
    { REVLOOP_TEST_KEY: key },
  );
  const record = JSON.stringify(a);
  assert.equal(a.error!.kind, 'auth');
  assert.ok(!record.includes('SECRET1234567890'), record);
  assert.ok(!record.includes('hunter22'), record);
  assert.match(a.error!.message, /Bearer \*\*\*/);
  assert.match(a.error!.message, /https:\/\/admin:\*\*\*@example\.com/);
  // A successful reply echoing the key is masked before it is verified or stored.
  const ok = await generate([{ json: chatOk(`the key is ${key}`) }], { apiKeyEnv: 'REVLOOP_TEST_KEY' }, { REVLOOP_TEST_KEY: key });
  assert.equal(ok.r.text, 'the key is ***');
  assert.equal(ok.a.meta!.secretsMasked, 1);
});

test('max_tokens is never absurd: a request beyond the limit is refused before it is sent', async () => {
  const server = await startFaultServer([]);
  servers.push(server);
  const model = await createModel(`openai-compatible:${server.url}#m`, { clock: fakeClock() });
  await assert.rejects(model.generate([{ role: 'user', content: 'hi' }], { maxTokens: 3_000_000_000_000_000 }), /max tokens must be/);
  assert.equal(server.requests.length, 0);
});

test('serve-sim survives absurd counts: a target of 10^15 words or sentences is answered (the simulation writes at most its cap), max_tokens 3·10^15 is a 400', async () => {
  const { startSimServer } = await import('../../src/models/sim/server.ts');
  const sim = await startSimServer({ port: 0 });
  try {
    const ask = (body: Record<string, unknown>) =>
      fetch(`${sim.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const exact =
      'Write.\n\nLength constraint: write exactly 1000000000000000 words under the deterministic word counter. The response must explicitly retain these required content items: a. Return only the requested response. Do not include a preface, word-count note, analysis, or commentary.';
    const c09 = "Please generate a paragraph:\n1) with exactly 99999999999999999 sentences;\n2) not containing the word 'a'.";
    for (const content of [exact, c09]) {
      const r = await ask({ model: 'sim:ideal', messages: [{ role: 'user', content }] });
      assert.equal(r.status, 200);
      const text = ((await r.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content;
      assert.ok(text.split(/\s+/).length <= 100_000 * 20, 'bounded by the simulation cap');
    }
    const tokens = await ask({ model: 'sim:steady', max_tokens: 3_000_000_000_000_000, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(tokens.status, 400);
    assert.match(
      ((await tokens.json()) as { error: { message: string } }).error.message,
      /"max_tokens" must be an integer from 0 to 2097152/,
    );
    // Still serving.
    assert.equal((await fetch(`${sim.url}/models`)).status, 200);
  } finally {
    await sim.close();
  }
});
