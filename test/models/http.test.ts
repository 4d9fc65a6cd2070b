// The OpenAI-compatible backend against a scripted fault-injecting server: the exact sequence of
// recorded attempts for each fault, retry waits, and that no failed attempt's body is ever text.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createModel } from '../../src/models/index.ts';
import { canScore, canTokenize } from '../../src/models/capabilities.ts';
import type { AttemptRecord, GenerateOptions, Model } from '../../src/models/types.ts';
import type { ModelOptions } from '../../src/models/options.ts';
import { CapabilityError, UserError } from '../../src/core/errors.ts';
import { startFaultServer, chatOk, type FaultServer, type FaultStep as Step } from '../../src/test/fault-server.ts';
import { fakeClock } from './helpers/fake-clock.ts';

const MESSAGES = [{ role: 'user' as const, content: 'Write one sentence.' }];
const servers: FaultServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function setup(script: Step[], options: ModelOptions = {}, fallback?: Step) {
  const server = await startFaultServer(script, fallback);
  servers.push(server);
  const clock = fakeClock();
  const model = await createModel(`openai-compatible:${server.url}#test-model`, { clock, timeout: 2000, ...options });
  return { server, clock, model };
}

async function run(model: Model, extra: Partial<GenerateOptions> = {}) {
  const seen: AttemptRecord[] = [];
  const result = await model.generate(MESSAGES, { maxTokens: 64, onAttempt: (a) => seen.push(a), ...extra });
  assert.deepEqual(seen, result.attempts, 'onAttempt reports every attempt, in order');
  for (const a of result.attempts) if (!a.ok) assert.equal(a.text, undefined, 'a failed attempt carries no text');
  return result;
}

const kinds = (attempts: AttemptRecord[]) => attempts.map((a) => (a.ok ? 'ok' : a.error!.kind));

test('429 with Retry-After in seconds: the wait is honoured, then success', async () => {
  const { server, clock, model } = await setup([
    { status: 429, headers: { 'retry-after': '2' }, json: { error: { message: 'slow down', type: 'rate_limit' } } },
    { json: chatOk('Hello there.') },
  ]);
  const r = await run(model);
  assert.equal(r.text, 'Hello there.');
  assert.deepEqual(kinds(r.attempts), ['rate_limit', 'ok']);
  assert.equal(r.attempts[0].status, 429);
  assert.equal(r.attempts[0].error!.retryable, true);
  assert.equal(r.attempts[0].meta!.retryInMs, 2000);
  assert.equal(r.attempts[0].meta!.retryDelaySource, 'retry-after');
  assert.deepEqual(clock.sleeps, [2000]);
  assert.equal(server.requests.length, 2);
});

test('429 Retry-After as an HTTP date, and a huge Retry-After capped by the policy', async () => {
  const clock0 = fakeClock();
  const date = new Date(clock0.now() + 3000).toUTCString();
  const { clock, model } = await setup(
    [{ status: 429, headers: { 'retry-after': date } }, { status: 429, headers: { 'retry-after': '3600' } }, { json: chatOk('ok text') }],
    { retry: { retryAfterCapMs: 5000 } },
  );
  const r = await run(model);
  assert.equal(r.text, 'ok text');
  assert.deepEqual(kinds(r.attempts), ['rate_limit', 'rate_limit', 'ok']);
  assert.ok(clock.sleeps[0] > 1000 && clock.sleeps[0] <= 3000, `date wait ${clock.sleeps[0]}`);
  assert.equal(clock.sleeps[1], 5000);
});

test('a real Retry-After wait: the retry is not sent before the server asked', async () => {
  const server = await startFaultServer([{ status: 503, headers: { 'retry-after': '1' } }, { json: chatOk('after the wait') }]);
  servers.push(server);
  const model = await createModel(`openai-compatible:${server.url}#m`, { timeout: 3000 });
  const r = await run(model);
  assert.equal(r.text, 'after the wait');
  assert.deepEqual(kinds(r.attempts), ['server_error', 'ok']);
  const gap = server.requests[1].at - server.requests[0].at;
  assert.ok(gap >= 950, `retried after ${gap} ms, asked for 1000`);
});

test('500 then success, with exponential backoff when there is no Retry-After', async () => {
  const { clock, model } = await setup([
    { status: 500, json: { error: { message: 'boom' } } },
    { status: 502, body: 'Bad Gateway' },
    { json: chatOk('third time') },
  ]);
  const r = await run(model);
  assert.equal(r.text, 'third time');
  assert.deepEqual(kinds(r.attempts), ['server_error', 'server_error', 'ok']);
  assert.deepEqual(clock.sleeps, [1000, 2000]);
  assert.equal(r.attempts[0].meta!.retryDelaySource, 'backoff');
});

test('retries are bounded: every attempt fails → text null, final attempt marked', async () => {
  const { clock, model, server } = await setup([], { maxRetries: 2 }, { status: 500, json: { error: { message: 'down' } } });
  const r = await run(model);
  assert.equal(r.text, null);
  assert.deepEqual(kinds(r.attempts), ['server_error', 'server_error', 'server_error']);
  assert.equal(r.attempts[2].meta!.final, true);
  assert.deepEqual(clock.sleeps, [1000, 2000]);
  assert.equal(server.requests.length, 3);
});

test('backoff is capped and seeded jitter is reproducible', async () => {
  const { retryDelayMs } = await import('../../src/models/http/retry.ts');
  const { DEFAULT_RETRY_POLICY } = await import('../../src/models/options.ts');
  const p = { ...DEFAULT_RETRY_POLICY };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((k) => retryDelayMs(k, p, null).delayMs),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000],
  );
  const j = { ...p, jitter: 'seeded' as const, jitterSeed: 7 };
  const a = [1, 2, 3].map((k) => retryDelayMs(k, j, null).delayMs);
  assert.deepEqual(
    a,
    [1, 2, 3].map((k) => retryDelayMs(k, j, null).delayMs),
  );
  a.forEach((d, i) => assert.ok(d >= 500 * 2 ** i && d <= 1500 * 2 ** i));
});

test('a hanging server times out, then the retry succeeds', async () => {
  const { model } = await setup([{ hang: true }, { json: chatOk('no hang') }], { timeout: 200 });
  const r = await run(model);
  assert.equal(r.text, 'no hang');
  assert.deepEqual(kinds(r.attempts), ['timeout', 'ok']);
  assert.ok(r.attempts[0].latencyMs >= 150, `timed out after ${r.attempts[0].latencyMs} ms`);
});

test('headers then a stalled body also time out (the deadline covers the body)', async () => {
  const { model } = await setup([{ headersThenHang: true }, { json: chatOk('complete') }], { timeout: 300 });
  const r = await run(model);
  assert.deepEqual(kinds(r.attempts), ['timeout', 'ok']);
  assert.equal(r.text, 'complete');
});

test('malformed JSON is a failed, retried attempt with the raw body kept', async () => {
  const { model } = await setup([{ body: '{"choices": [ {"message": ' }, { json: chatOk('valid') }]);
  const r = await run(model);
  assert.deepEqual(kinds(r.attempts), ['malformed_json', 'ok']);
  assert.equal(r.attempts[0].error!.raw, '{"choices": [ {"message": ');
  assert.equal(r.text, 'valid');
});

test('null content is a failed attempt, never the text "None" or "null"', async () => {
  const { model } = await setup([{ json: chatOk(null) }, { json: chatOk('real text') }]);
  const r = await run(model);
  assert.deepEqual(kinds(r.attempts), ['null_content', 'ok']);
  assert.equal(r.text, 'real text');
});

test('empty or whitespace-only content is a failed attempt', async () => {
  const { model } = await setup([{ json: chatOk('') }, { json: chatOk(' \n\t\u3000') }, { json: chatOk('  text with spaces  ') }]);
  const r = await run(model);
  assert.deepEqual(kinds(r.attempts), ['empty_content', 'empty_content', 'ok']);
  assert.equal(r.text, '  text with spaces  ', 'the successful text is returned raw (the engine strips)');
});

test('a refusal is a failed attempt and is not retried by default', async () => {
  const { model, server } = await setup([
    { json: chatOk(null, {}, { refusal: 'I cannot help with that.' }) },
    { json: chatOk('should not be reached') },
  ]);
  const r = await run(model);
  assert.equal(r.text, null);
  assert.deepEqual(kinds(r.attempts), ['refusal']);
  assert.equal(r.attempts[0].error!.retryable, false);
  assert.equal(server.requests.length, 1);
});

test('a refusal is retried when retryRefusals is set; a content filter stop counts as a refusal', async () => {
  const { model } = await setup(
    [
      { json: { ...chatOk(''), choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }] } },
      { json: chatOk('second try') },
    ],
    { retry: { retryRefusals: true } },
  );
  const r = await run(model);
  assert.deepEqual(kinds(r.attempts), ['refusal', 'ok']);
  assert.equal(r.text, 'second try');
});

test('connection reset is a network failure, retried', async () => {
  const { model } = await setup([{ reset: true }, { json: chatOk('reconnected') }]);
  const r = await run(model);
  assert.deepEqual(kinds(r.attempts), ['network', 'ok']);
  assert.equal(r.attempts[0].status, undefined);
  assert.equal(r.text, 'reconnected');
});

test('connection refused is a network failure', async () => {
  const clock = fakeClock();
  const model = await createModel('openai-compatible:http://127.0.0.1:1/v1#m', { clock, maxRetries: 1 });
  const r = await run(model);
  assert.deepEqual(kinds(r.attempts), ['network', 'network']);
  assert.equal(r.text, null);
});

test('4xx errors are not retried; 408 and 409 are', async () => {
  const a = await setup([{ status: 400, json: { error: { message: 'bad max_tokens', type: 'invalid_request_error' } } }]);
  const ra = await run(a.model);
  assert.deepEqual(kinds(ra.attempts), ['bad_request']);
  assert.equal(ra.text, null);
  assert.match(ra.attempts[0].error!.message, /400/);
  const b = await setup([{ status: 401, json: { error: { message: 'bad key' } } }]);
  assert.deepEqual(kinds((await run(b.model)).attempts), ['auth']);
  const c = await setup([{ status: 404, json: { error: { message: 'no such model' } } }]);
  assert.deepEqual(kinds((await run(c.model)).attempts), ['not_found']);
  const d = await setup([{ status: 408 }, { status: 409 }, { json: chatOk('fine') }]);
  assert.deepEqual(kinds((await run(d.model)).attempts), ['request_timeout', 'conflict', 'ok']);
});

test('no choices: retried, unless the body carries an error code below 500', async () => {
  const a = await setup([{ json: { id: 'x', choices: [] } }, { json: chatOk('with choices') }]);
  assert.deepEqual(kinds((await run(a.model)).attempts), ['no_choices', 'ok']);
  const b = await setup([{ json: { error: { code: 400, message: 'provider rejected' } } }, { json: chatOk('never') }]);
  const rb = await run(b.model);
  assert.deepEqual(kinds(rb.attempts), ['bad_request']);
  assert.equal(rb.text, null);
  const c = await setup([{ json: { error: { code: 502, message: 'upstream' } } }, { json: chatOk('recovered') }]);
  assert.deepEqual(kinds((await run(c.model)).attempts), ['no_choices', 'ok']);
});

test('no failed body is ever returned as text, whatever the mix of faults', async () => {
  const faults: Step[] = [
    { json: chatOk(null) },
    { json: chatOk('') },
    { body: 'not json' },
    { status: 500, json: chatOk('TEXT IN A 500 BODY') },
    { status: 429, json: chatOk('TEXT IN A 429 BODY') },
    { json: { choices: [{ message: { content: 'TEXT WITH A REFUSAL', refusal: 'no' } }] } },
  ];
  for (const f of faults) {
    const { model } = await setup([f], { maxRetries: 0 });
    const r = await run(model);
    assert.equal(r.text, null, `fault ${JSON.stringify(f).slice(0, 60)} gave text ${r.text}`);
    assert.equal(r.attempts.length, 1);
    assert.equal(r.attempts[0].ok, false);
  }
});

test('records: request summary without secrets, usage, finish reason, response id, fingerprint', async () => {
  process.env.REVLOOP_TEST_KEY = 'sk-secret-value-123';
  const { model, server } = await setup(
    [{ json: chatOk('recorded', { id: 'resp-42', system_fingerprint: 'fp_abc' }), headers: { 'x-request-id': 'req-9' } }],
    {
      apiKeyEnv: 'REVLOOP_TEST_KEY',
      extraBody: { api_key: 'sk-secret-value-123' },
    },
  );
  const r = await run(model);
  const a = r.attempts[0];
  assert.equal(a.ok, true);
  assert.equal(a.text, 'recorded');
  assert.equal(a.status, 200);
  assert.equal(a.finishReason, 'stop');
  assert.deepEqual(a.usage, { promptTokens: 7, completionTokens: 3, totalTokens: 10 });
  assert.equal(a.meta!.responseId, 'resp-42');
  assert.equal(a.meta!.systemFingerprint, 'fp_abc');
  assert.equal(a.meta!.requestId, 'req-9');
  assert.match(a.startedAt, /^\d{4}-\d\d-\d\dT/);
  assert.equal(a.request!.model, 'test-model');
  assert.equal(a.request!.max_tokens, 64);
  assert.equal(a.request!.api_key, 'REDACTED', 'credential-like body keys are redacted');
  assert.equal(a.request!.message_count, 1);
  assert.match(String(a.request!.messages_sha256), /^[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify(r).includes('sk-secret-value-123'), 'the key never appears in records');
  assert.equal(server.requests[0].headers.authorization, 'Bearer sk-secret-value-123');
  delete process.env.REVLOOP_TEST_KEY;
});

test('extra body passes through; temperature 0 by default; max_tokens from the options', async () => {
  const { model, server } = await setup([{ json: chatOk('a') }, { json: chatOk('b') }], {
    extraBody: { chat_template_kwargs: { enable_thinking: false }, seed: 0 },
  });
  await run(model);
  const body = server.requests[0].body;
  assert.equal(server.requests[0].path, '/v1/chat/completions');
  assert.deepEqual(body.chat_template_kwargs, { enable_thinking: false });
  assert.equal(body.seed, 0);
  assert.equal(body.temperature, 0);
  assert.equal(body.max_tokens, 64);
  assert.equal(body.stream, false);
  assert.equal(body.model, 'test-model');
  assert.deepEqual(body.messages, MESSAGES);
  // Per-call options win over model options.
  await run(model, { temperature: 0.7, seed: 5, extraBody: { top_k: 20 } });
  const b2 = server.requests[1].body;
  assert.equal(b2.temperature, 0.7);
  assert.equal(b2.top_k, 20);
});

test('temperature "omit", max_completion_tokens and seed from the spec', async () => {
  const server = await startFaultServer([{ json: chatOk('x') }]);
  servers.push(server);
  const model = await createModel(`openai-compatible:${server.url}#m?temperature=omit&max_tokens_field=max_completion_tokens&seed=11`);
  await run(model);
  const body = server.requests[0].body;
  assert.equal('temperature' in body, false);
  assert.equal(body.max_completion_tokens, 64);
  assert.equal('max_tokens' in body, false);
  assert.equal(body.seed, 11);
});

test('local servers get no Authorization header without a key', async () => {
  const saved = process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_API_KEY;
  try {
    const { model, server } = await setup([{ json: chatOk('hi') }]);
    await run(model);
    assert.equal(server.requests[0].headers.authorization, undefined);
  } finally {
    if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
  }
});

test('keys: openai: needs one; a named variable must be set', async () => {
  const saved = process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_API_KEY;
  try {
    await assert.rejects(createModel('openai:gpt-4o-mini'), (e: Error) => e instanceof UserError && /OPENAI_API_KEY/.test(e.message));
    await assert.rejects(
      createModel('openai-compatible:http://127.0.0.1:9/v1#m', { apiKeyEnv: 'REVLOOP_NOT_SET_ANYWHERE' }),
      (e: Error) => e instanceof UserError && /REVLOOP_NOT_SET_ANYWHERE/.test(e.message),
    );
    process.env.OPENAI_API_KEY = 'sk-test';
    const m = await createModel('openai:gpt-4o-mini');
    assert.equal(m.label, 'gpt-4o-mini');
    assert.deepEqual(m.capabilities, {
      score: false,
      ban: false,
      banAnswers: false,
      tokenize: false,
      decode: false,
      stopTokens: false,
      counters: false,
      info: true,
      sizeContext: false,
      simulated: false,
    });
    assert.equal(canScore(m), false);
    assert.equal(canTokenize(m), false);
  } finally {
    if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    else delete process.env.OPENAI_API_KEY;
  }
});

test('the concurrency limit holds: the server never sees more than the limit in flight', async () => {
  const { model, server } = await setup([], { concurrency: 4 }, { json: chatOk('slow'), delayMs: 40 });
  const results = await Promise.all(Array.from({ length: 20 }, () => model.generate(MESSAGES, { maxTokens: 8 })));
  assert.ok(results.every((r) => r.text === 'slow'));
  assert.equal(server.requests.length, 20);
  assert.equal(server.maxInFlight, 4);
});

test('the rpm limiter spaces attempt starts over a (short) window', async () => {
  const { realClock } = await import('../../src/models/options.ts');
  const { model, server } = await setup([], { rpm: 3, rpmWindowMs: 300, clock: realClock }, { json: chatOk('r') });
  const t0 = Date.now();
  const results = await Promise.all(Array.from({ length: 7 }, () => model.generate(MESSAGES, { maxTokens: 8 })));
  // The attempts' own start times (stamped when the limiter lets them go): any 4 consecutive ones
  // span a whole window (less a millisecond of timestamp rounding).
  const granted = results.map((r) => Date.parse(r.attempts[0].startedAt) - t0).sort((a, b) => a - b);
  for (let i = 3; i < granted.length; i++) assert.ok(granted[i] - granted[i - 3] >= 299, `attempt starts ${granted.join(',')}`);
  // And what the server saw. It sees arrivals, not grants: the first wave also opens its
  // connections (up to ~25 ms on a busy CI machine, 6,24,25,303,304,304,608 once), later waves reuse
  // them, so allow 60 ms of that skew. Without a limiter all 7 arrive within a few ms.
  const starts = server.requests.map((r) => r.at - t0).sort((a, b) => a - b);
  for (let i = 3; i < starts.length; i++) assert.ok(starts[i] - starts[i - 3] >= 240, `arrivals ${starts.join(',')}`);
  assert.ok(starts[6] >= 560, `7 starts at 3 per 300 ms need ≥ 600 ms, took ${starts[6]}`);
});

test('RateLimiter with a fake clock grants exactly rpm starts per window, in order', async () => {
  const { RateLimiter } = await import('../../src/models/http/limiter.ts');
  const clock = fakeClock(0);
  const rl = new RateLimiter(2, 60_000, clock);
  const granted: number[] = [];
  await Promise.all([0, 1, 2, 3, 4].map(() => rl.acquire().then(() => granted.push(clock.now()))));
  assert.deepEqual(granted, [0, 0, 60_000, 60_000, 120_000]);
});

test("the caller's abort stops the loop: recorded as aborted, then thrown", async () => {
  const { model } = await setup([{ hang: true }], { timeout: 5000 });
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(new Error('user pressed Ctrl-C')), 100);
  const seen: AttemptRecord[] = [];
  await assert.rejects(model.generate(MESSAGES, { maxTokens: 8, signal: ctrl.signal, onAttempt: (a) => seen.push(a) }), /Ctrl-C/);
  assert.deepEqual(kinds(seen), ['aborted']);
});

test('plain OpenAI-compatible models refuse bans with a CapabilityError', async () => {
  const { model, server } = await setup([{ json: chatOk('x') }]);
  assert.equal(model.capabilities.ban, false);
  await assert.rejects(
    model.generate(MESSAGES, { maxTokens: 8, bannedSequences: ['send_email('] }),
    (e: Error) => e instanceof CapabilityError && /ban/.test(e.message),
  );
  assert.equal(server.requests.length, 0);
});

test('no HTTP backend bans complete answers (vLLM bad_words cannot name the end of the answer): refused before any request', async () => {
  const { model, server } = await setup([{ json: chatOk('x') }]);
  assert.equal(model.capabilities.banAnswers, false);
  await assert.rejects(
    model.generate(MESSAGES, { maxTokens: 8, bannedAnswers: ['a failed draft'] }),
    (e: Error) => e instanceof CapabilityError && /cannot ban complete answers/.test(e.message),
  );
  const vllm = await createModel('vllm:http://127.0.0.1:9/v1#m');
  assert.deepEqual([vllm.capabilities.ban, vllm.capabilities.banAnswers], [true, false]);
  await assert.rejects(vllm.generate(MESSAGES, { maxTokens: 8, bannedAnswers: ['a failed draft'] }), /bad_words can express it/);
  assert.equal(server.requests.length, 0);
});
