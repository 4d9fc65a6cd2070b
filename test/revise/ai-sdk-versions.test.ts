// The AI SDK adapters as SDK users expect them (issue 35, point 3), each test with ai 6
// (LanguageModelV3) and ai 5 (V2, installed side by side as `ai5`): tool calls pass through (or are
// repaired with `toolCalls: 'repair'`), streamText streams the verified draft, a failed first
// generation reaches the SDK's own maxRetries, revise() retries an AI SDK model's retryable errors
// with backoff, an abort surfaces as the SDK's, RevisionFailedError carries the result,
// providerOptions.revloop overrides one call, and max_tokens is sent only when the caller set it.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as ai6 from 'ai';
import * as ai6test from 'ai/test';
import * as ai5 from 'ai5';
import * as ai5test from 'ai5/test';
import { createOpenAICompatible as openai6 } from '@ai-sdk/openai-compatible';
import { createOpenAICompatible as openai5 } from 'openai-compatible-v1';
import { z } from 'zod';
import { RevisionFailedError, RevloopError, revise, reviseMiddleware, zodVerifier, type ReviseResult } from '@revloop/revise';
import { chatOk, startFaultServer } from '../../src/test/fault-server.ts';

const Person = z.object({ name: z.string(), age: z.number().int().min(0) });

type Sdk = {
  name: string;
  ai: any;
  Mock: any;
  text: (text: string, input?: number, output?: number) => any;
  toolCall: (toolName: string, input: string) => any;
  openai: any;
};

const usage6 = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const SDKS: Sdk[] = [
  {
    name: 'ai 6',
    ai: ai6,
    Mock: ai6test.MockLanguageModelV3,
    text: (text, input = 10, output = 5) => ({
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage6(input, output),
      warnings: [],
    }),
    toolCall: (toolName, input) => ({
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName, input }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: usage6(30, 8),
      warnings: [],
    }),
    openai: openai6,
  },
  {
    name: 'ai 5',
    ai: ai5,
    Mock: ai5test.MockLanguageModelV2,
    text: (text, input = 10, output = 5) => ({
      content: [{ type: 'text', text }],
      finishReason: 'stop',
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
      warnings: [],
    }),
    toolCall: (toolName, input) => ({
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName, input }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 30, outputTokens: 8, totalTokens: 38 },
      warnings: [],
    }),
    openai: openai5,
  },
];

const person = { verify: zodVerifier(Person), budget: { revisions: 3 } };

for (const sdk of SDKS) {
  const { ai } = sdk;
  const wrap = (model: unknown, options: Parameters<typeof reviseMiddleware>[0] = person) =>
    ai.wrapLanguageModel({ model, middleware: reviseMiddleware(options) });

  test(`${sdk.name}: a response with tool calls passes through untouched`, async () => {
    const model = new sdk.Mock({ doGenerate: [sdk.toolCall('weather', '{"city":"Oslo"}')] });
    const calls: unknown[] = [];
    const out = await ai.generateText({
      model: wrap(model),
      prompt: 'Weather in Oslo?',
      tools: {
        weather: ai.tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async (input: unknown) => {
            calls.push(input);
            return 'sunny';
          },
        }),
      },
    });
    assert.deepEqual(calls, [{ city: 'Oslo' }]);
    assert.equal(model.doGenerateCalls.length, 1, 'no revision of a tool call');
    assert.equal(out.providerMetadata?.revloop, undefined);
  });

  test(`${sdk.name}: toolCalls 'repair' repairs an invalid tool input by revision, its tokens in the step's usage`, async () => {
    const model = new sdk.Mock({
      doGenerate: [sdk.toolCall('weather', '{"city": 42, "units": "kelvinish"}'), sdk.text('{"city": "Oslo", "units": "metric"}', 40, 9)],
    });
    const calls: unknown[] = [];
    const results: ReviseResult[] = [];
    const out = await ai.generateText({
      model: wrap(model, { verify: () => ({ ok: true, violations: [] }), toolCalls: 'repair', onResult: (r) => results.push(r) }),
      prompt: 'Weather in Oslo?',
      tools: {
        weather: ai.tool({
          inputSchema: z.object({ city: z.string(), units: z.enum(['metric', 'imperial']) }),
          execute: async (input: unknown) => {
            calls.push(input);
            return 'sunny';
          },
        }),
      },
    });
    assert.deepEqual(calls, [{ city: 'Oslo', units: 'metric' }]);
    assert.equal(results[0].status, 'ok');
    // The failed call's record, never the call itself, went to the repair.
    const repair = JSON.stringify(model.doGenerateCalls[1].prompt);
    assert.match(repair, /\[attempt 1 failed: weather \u2014 the input did not match the schema; that call is not repeatable\]/);
    assert.ok(!repair.includes('kelvinish'));
    assert.equal(out.usage.inputTokens, 30 + 40);
    assert.equal(out.usage.outputTokens, 8 + 9);
  });

  test(`${sdk.name}: streamText streams the verified draft; stream 'passthrough' streams the first answer`, async () => {
    const model = new sdk.Mock({ doGenerate: [sdk.text('not json'), sdk.text('{"name": "Bo", "age": 7}')] });
    const s = ai.streamText({ model: wrap(model), prompt: 'A person as JSON.' });
    let text = '';
    for await (const d of s.textStream) text += d;
    assert.deepEqual(JSON.parse(text), { name: 'Bo', age: 7 });
    assert.equal(((await s.providerMetadata)?.revloop as { status: string }).status, 'ok');
    assert.equal((await s.usage).inputTokens, 20);
    const chunks = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'unverified' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: sdk.text('').finishReason, usage: sdk.text('').usage },
    ];
    const streaming = new sdk.Mock({ doStream: async () => ({ stream: ai.simulateReadableStream({ chunks }) }) });
    const p = ai.streamText({ model: wrap(streaming, { ...person, stream: 'passthrough' }), prompt: 'x' });
    let raw = '';
    for await (const d of p.textStream) raw += d;
    assert.equal(raw, 'unverified');
  });

  test(`${sdk.name}: the first generation's 503 reaches the SDK's maxRetries; revise() retries an AI SDK model's 503 with backoff`, async () => {
    const s = await startFaultServer([{ status: 503, json: { error: { message: 'overloaded' } } }], {
      json: chatOk('{"name": "Ada", "age": 36}', { usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } }),
    });
    try {
      const provider = sdk.openai({ name: 'local', baseURL: s.url });
      const out = await ai.generateText({ model: wrap(provider('m')), prompt: 'A person as JSON.' });
      assert.deepEqual(JSON.parse(out.text), { name: 'Ada', age: 36 });
      assert.equal(s.requests.length, 2, 'the SDK retried the call');
    } finally {
      await s.close();
    }
    const t = await startFaultServer(
      [
        { json: chatOk('{"name": "Ada"}', { usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 } }) },
        { status: 503, json: { error: { message: 'overloaded' } } },
        { status: 429, json: { error: { message: 'slow down' } } },
      ],
      { json: chatOk('{"name": "Ada", "age": 36}', { usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 } }) },
    );
    try {
      const provider = sdk.openai({ name: 'local', baseURL: t.url });
      const r = await revise({
        model: provider('m'),
        prompt: 'A person as JSON.',
        verify: zodVerifier(Person),
        retry: { initialDelayMs: 1 },
      });
      assert.equal(r.status, 'ok');
      assert.equal(r.usage.generations, 2);
      assert.equal(r.usage.providerAttempts, 4);
      assert.deepEqual(
        r.attempts[1].providerAttempts.map((a) => [a.ok, a.status ?? null, a.error?.retryable ?? null]),
        [
          [false, 503, true],
          [false, 429, true],
          [true, null, null],
        ],
      );
      assert.equal(r.usage.promptTokens, 40);
      // Not retryable (400): one attempt, then provider_error.
      const u = await startFaultServer([], { status: 400, json: { error: { message: 'bad request' } } });
      try {
        const bad = await revise({ model: sdk.openai({ name: 'l', baseURL: u.url })('m'), prompt: 'x', verify: zodVerifier(Person) });
        assert.equal(bad.status, 'provider_error');
        assert.equal(u.requests.length, 1);
      } finally {
        await u.close();
      }
    } finally {
      await t.close();
    }
  });

  test(`${sdk.name}: an abort ends as the SDK's abort does, not as a failed revision`, async () => {
    const controller = new AbortController();
    const model = new sdk.Mock({
      doGenerate: async (o: { abortSignal?: AbortSignal }) => {
        if (model.doGenerateCalls.length === 1) return sdk.text('not json');
        setTimeout(() => controller.abort(), 10);
        return new Promise((_, reject) => o.abortSignal!.addEventListener('abort', () => reject(o.abortSignal!.reason)));
      },
    });
    await assert.rejects(
      ai.generateText({ model: wrap(model), prompt: 'x', abortSignal: controller.signal, maxRetries: 0 }),
      (e: Error) => {
        assert.equal(e.name, 'AbortError');
        assert.ok(!(e instanceof RevisionFailedError));
        return true;
      },
    );
  });

  test(`${sdk.name}: RevisionFailedError is a RevloopError carrying the result; providerOptions.revloop overrides one call`, async () => {
    const model = new sdk.Mock({ doGenerate: [sdk.text('nope'), sdk.text('nope!'), sdk.text('still nope'), sdk.text('no')] });
    const e: unknown = await ai
      .generateText({ model: wrap(model, { ...person, onFailure: 'throw' }), prompt: 'x' })
      .catch((x: unknown) => x);
    assert.ok(e instanceof RevisionFailedError && e instanceof RevloopError);
    assert.equal((e as RevisionFailedError).code, 'E_REVISION_FAILED');
    assert.equal((e as RevisionFailedError).result.usage.generations, 4);
    // One call with no revision at all and the best draft back, another with the drop policy.
    const once = new sdk.Mock({ doGenerate: [sdk.text('nope'), sdk.text('{"name": "Bo", "age": 7}')] });
    const out = await ai.generateText({
      model: wrap(once, { ...person, onFailure: 'throw' }),
      prompt: 'x',
      providerOptions: { revloop: { budget: { revisions: 0 }, onFailure: 'best' } },
    });
    assert.equal(out.text, 'nope');
    assert.equal(once.doGenerateCalls.length, 1);
    assert.equal((out.providerMetadata?.revloop as { status: string }).status, 'budget');
    const dropped = new sdk.Mock({ doGenerate: [sdk.text('nope'), sdk.text('{"name": "Bo", "age": 7}')] });
    await ai.generateText({ model: wrap(dropped), prompt: 'A person.', providerOptions: { revloop: { policy: 'drop' } } });
    assert.equal(dropped.doGenerateCalls[1].prompt.length, 1, "the drop policy's revision request is the initial prompt");
    assert.equal(JSON.stringify(dropped.doGenerateCalls[1].providerOptions ?? {}).includes('revloop'), false, 'not sent to the provider');
    await assert.rejects(
      ai.generateText({
        model: wrap(new sdk.Mock({ doGenerate: [sdk.text('x')] })),
        prompt: 'x',
        providerOptions: { revloop: { budgett: 1 } },
      }),
      /providerOptions\.revloop\.budgett is not an option here/,
    );
  });

  test(`${sdk.name}: max_tokens is sent only when the caller set it`, async () => {
    const s = await startFaultServer([{ json: chatOk('nope') }], { json: chatOk('{"name": "Bo", "age": 7}') });
    try {
      const provider = sdk.openai({ name: 'local', baseURL: s.url });
      await ai.generateText({ model: wrap(provider('m')), prompt: 'A person as JSON.' });
      assert.deepEqual(
        s.requests.map((q) => q.body.max_tokens ?? null),
        [null, null],
      );
      await ai.generateText({ model: wrap(provider('m')), prompt: 'A person as JSON.', maxOutputTokens: 77 });
      assert.deepEqual(
        s.requests.slice(2).map((q) => q.body.max_tokens ?? null),
        [77],
      );
    } finally {
      await s.close();
    }
  });
}

const toolCallReply = (name: string, args: string) => ({
  id: 'chatcmpl-tool',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: args } }] },
    },
  ],
  usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
});

for (const sdk of SDKS) {
  const { ai } = sdk;
  test(`${sdk.name} against an OpenAI-compatible server: generateText with and without tools, streamText, generateObject, repairToolCall`, async () => {
    const bad = { json: chatOk('{"name": "Ada"}') };
    const good = { json: chatOk('{"name": "Ada", "age": 36}') };
    const s = await startFaultServer([
      // generateText: a failed draft, then the revision.
      bad,
      good,
      // generateText with tools: the tool call passes through, then the final answer after the tool result.
      { json: toolCallReply('lookup', '{"who": "Ada"}') },
      good,
      // streamText: the verified draft streamed.
      bad,
      good,
      // generateObject: a failed object, then the revision.
      bad,
      good,
      // repairToolCall: an invalid tool input, then its repair.
      { json: toolCallReply('lookup', '{"who": 7}') },
      { json: chatOk('{"who": "Ada"}') },
    ]);
    try {
      const provider = sdk.openai({ name: 'local', baseURL: s.url });
      const wrapped = ai.wrapLanguageModel({ model: provider('m'), middleware: reviseMiddleware(person) });
      const text = await ai.generateText({ model: wrapped, prompt: 'Ada as JSON.' });
      assert.deepEqual(JSON.parse(text.text), { name: 'Ada', age: 36 });

      const lookedUp: unknown[] = [];
      const tools = {
        lookup: ai.tool({
          inputSchema: z.object({ who: z.string() }),
          execute: async (input: unknown) => {
            lookedUp.push(input);
            return 'born 1815';
          },
        }),
      };
      const withTools = await ai.generateText({ model: wrapped, prompt: 'Ada as JSON.', tools, stopWhen: ai.stepCountIs(2) });
      assert.deepEqual(lookedUp, [{ who: 'Ada' }]);
      assert.deepEqual(JSON.parse(withTools.text), { name: 'Ada', age: 36 });

      const stream = ai.streamText({ model: wrapped, prompt: 'Ada as JSON.' });
      let streamed = '';
      for await (const d of stream.textStream) streamed += d;
      assert.deepEqual(JSON.parse(streamed), { name: 'Ada', age: 36 });

      const object = await ai.generateObject({ model: wrapped, schema: Person, prompt: 'Ada.' });
      assert.deepEqual(object.object, { name: 'Ada', age: 36 });

      const { repairToolCall } = await import('@revloop/revise');
      const repaired = await ai.generateText({
        model: provider('m'),
        prompt: 'Look Ada up.',
        tools,
        experimental_repairToolCall: repairToolCall({ model: provider('m'), budget: { revisions: 2 } }),
      });
      assert.deepEqual(lookedUp.at(-1), { who: 'Ada' });
      assert.equal(repaired.toolResults[0]?.output, 'born 1815');
      assert.equal(s.requests.length, 10);
    } finally {
      await s.close();
    }
  });
}
