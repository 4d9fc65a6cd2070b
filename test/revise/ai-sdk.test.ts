// The AI SDK adapters with the SDK's own mock models (ai/test) and with a real
// createOpenAICompatible provider against revloop serve-sim (SIMULATED controllers).
import test from 'node:test';
import assert from 'node:assert/strict';
import { generateText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { repairToolCall, revise, reviseMiddleware } from '../../src/revise/index.ts';
import { zodVerifier } from '@revloop/revise';
import { startSimServer } from '../../src/models/sim/server.ts';

function result(text: string, input = 10, output = 5) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: output, text: output, reasoning: undefined },
    },
    warnings: [],
  };
}

const Person = z.object({ name: z.string(), age: z.number().int().min(0) });

test('revise() takes an AI SDK model: drafts go through doGenerate, usage is summed', async () => {
  const model = new MockLanguageModelV3({
    doGenerate: [
      result('{"name": "Ada"}', 20, 6),
      result('{"name": "Ada", "age": "36"}', 40, 9),
      result('{"name": "Ada", "age": 36}', 60, 9),
    ],
  });
  const r = await revise({
    model,
    prompt: 'Return a JSON person.',
    verify: zodVerifier(Person),
    policy: { history: 'full', onCycle: 'continue' },
  });
  assert.equal(r.status, 'ok');
  assert.deepEqual(JSON.parse(r.output!), { name: 'Ada', age: 36 });
  assert.deepEqual(r.usage, { promptTokens: 120, completionTokens: 24, generations: 3, providerAttempts: 3, unreportedAttempts: 0 });
  assert.deepEqual(
    r.attempts.map((a) => a.violations.map((v) => `${v.code}@${(v.path as string[]).join('.')}`)),
    [['invalid_type@age'], ['invalid_type@age'], []],
  );
  // The third call carried the whole history: prompt, two drafts and two reports.
  const prompt = model.doGenerateCalls[2].prompt;
  assert.deepEqual(
    prompt.map((m) => m.role),
    ['user', 'assistant', 'user', 'assistant', 'user'],
  );
});

test("an AI SDK model cannot ban complete answers: ban 'complete-repeats' is refused before any call, 'auto' bans nothing", async () => {
  const model = new MockLanguageModelV3({
    doGenerate: [result('{"name": "Ada"}'), result('{"name": "Ada"}'), result('{"name": "Ada", "age": 36}')],
  });
  await assert.rejects(
    revise({ model, prompt: 'Return a JSON person.', verify: zodVerifier(Person), policy: { ban: 'complete-repeats' } }),
    (e: Error & { code?: string }) => e.code === 'E_CAPABILITY' && /cannot ban complete answers/.test(e.message),
  );
  assert.equal(model.doGenerateCalls.length, 0);
  const r = await revise({
    model,
    prompt: 'Return a JSON person.',
    verify: zodVerifier(Person),
    policy: { ban: 'auto', onCycle: 'continue' },
  });
  assert.equal(r.status, 'ok');
  assert.ok(r.attempts.every((a) => a.bannedSequences.length === 0));
});

test('reviseMiddleware: generateText returns the passing draft, every attempt counted, status in providerMetadata', async () => {
  const inner = new MockLanguageModelV3({ doGenerate: [result('not json at all'), result('{"name": "Bo", "age": 7}')] });
  const model = wrapLanguageModel({
    model: inner,
    middleware: reviseMiddleware({ verify: zodVerifier(Person), budget: { revisions: 3 } }),
  });
  const out = await generateText({ model, prompt: 'Return a JSON person.' });
  assert.deepEqual(JSON.parse(out.text), { name: 'Bo', age: 7 });
  assert.equal(out.usage.inputTokens, 20);
  assert.equal(out.usage.outputTokens, 10);
  assert.equal((out.providerMetadata?.revloop as { status: string }).status, 'ok');
  assert.equal(inner.doGenerateCalls.length, 2);
  const second = inner.doGenerateCalls[1].prompt;
  assert.equal(second[1].role, 'assistant');
  assert.match(JSON.stringify(second[2]), /not valid JSON/);
});

test('reviseMiddleware: when nothing passes, the best draft comes back with the status (or an error under throw)', async () => {
  const drafts = [result('{"name": 1}'), result('{"name": "C"}'), result('{"name": 2, "age": "x"}')];
  const model = wrapLanguageModel({
    model: new MockLanguageModelV3({ doGenerate: drafts }),
    middleware: reviseMiddleware({ verify: zodVerifier(Person), budget: { revisions: 2 }, policy: { onCycle: 'continue' } }),
  });
  const out = await generateText({ model, prompt: 'Return a JSON person.' });
  assert.equal(out.text, '{"name": "C"}', 'one violation (age missing) is the best');
  assert.equal((out.providerMetadata?.revloop as { status: string }).status, 'budget');
  const strict = wrapLanguageModel({
    model: new MockLanguageModelV3({ doGenerate: [result('nope'), result('nope!'), result('still nope')] }),
    middleware: reviseMiddleware({ verify: zodVerifier(Person), budget: { revisions: 2 }, onFailure: 'throw' }),
  });
  await assert.rejects(generateText({ model: strict, prompt: 'x' }), /no draft passed verification/);
});

test('repairToolCall: an invalid tool input is rewritten from an abstracted failure record', async () => {
  const failedInput = '{"city": 42, "units": "kelvinish"}';
  const agent = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: failedInput }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: result('').usage,
        warnings: [],
      },
    ],
  });
  const repairer = new MockLanguageModelV3({
    doGenerate: [result('{"city": "Oslo", "units": "kelvinish"}'), result('{"city": "Oslo", "units": "metric"}')],
  });
  const calls: unknown[] = [];
  const out = await generateText({
    model: agent,
    prompt: 'Weather in Oslo?',
    tools: {
      weather: tool({
        inputSchema: z.object({ city: z.string(), units: z.enum(['metric', 'imperial']) }),
        execute: async (input) => {
          calls.push(input);
          return 'sunny';
        },
      }),
    },
    experimental_repairToolCall: repairToolCall({ model: repairer, budget: { revisions: 3 } }),
  });
  assert.deepEqual(calls, [{ city: 'Oslo', units: 'metric' }]);
  assert.equal(out.toolResults[0]?.output, 'sunny');
  // The failed call never reached the repairer's context; its abstracted record did.
  for (const call of repairer.doGenerateCalls) {
    const sent = JSON.stringify(call.prompt);
    assert.ok(!sent.includes('kelvinish"}') || !sent.includes('42'), 'the failed input is not sent back verbatim');
    assert.ok(!sent.includes(JSON.stringify(failedInput)));
    assert.match(sent, /\[attempt 1 failed: weather \u2014 the input did not match the schema; that call is not repeatable\]/);
  }
  // Abstract feedback inside the loop: the repairer's own failed draft is not sent back either.
  assert.ok(!JSON.stringify(repairer.doGenerateCalls[1].prompt).includes('{\\"city\\": \\"Oslo\\", \\"units\\": \\"kelvinish\\"}'));
});

test('a real createOpenAICompatible provider against serve-sim (SIMULATED): revise() reaches success and reports usage', async () => {
  const sim = await startSimServer({ port: 0 });
  try {
    const provider = createOpenAICompatible({ name: 'serve-sim', baseURL: sim.url, includeUsage: true });
    const c = {
      id: 'own-1',
      family: 'exact-length',
      source: 'own',
      instruction: 'Describe a harbour at dusk.',
      target: 24,
      anchors: ['harbour', 'dusk light'],
    };
    const r = await revise({ model: provider('sim:ideal'), verify: { family: 'exact-length', case: c }, temperature: 0 });
    assert.equal(r.status, 'ok');
    assert.equal(r.attempts.length, 2, 'the ideal simulated controller solves at revision 1');
    assert.ok(r.usage.promptTokens > 0 && r.usage.completionTokens > 0);
    assert.equal(sim.stats.byPath['/v1/chat/completions'], 2);
    // Through the middleware, with the provider's own generateText.
    const wrapped = wrapLanguageModel({
      model: provider('sim:ideal'),
      middleware: reviseMiddleware({ verify: { family: 'exact-length', case: c }, budget: { revisions: 4 } }),
    });
    const { familyVerifier } = await import('../../src/revise/index.ts');
    const out = await generateText({ model: wrapped, prompt: familyVerifier('exact-length', c).initialPrompt, temperature: 0 });
    assert.equal((out.providerMetadata?.revloop as { status: string }).status, 'ok');
    assert.equal((await familyVerifier('exact-length', c)(out.text, { attempt: 0 })).ok, true);
  } finally {
    await sim.close();
  }
});
