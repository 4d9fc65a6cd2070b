// OpenTelemetry (issue 35, point 3): with @opentelemetry/api installed, one span per revise() call
// and one per generation, with the GenAI semantic-convention attributes and revloop's own; none
// with `telemetry: false`. Spans are collected by the SDK's in-memory exporter. (Without the package
// nothing is traced: the fresh-project test of test/package/revise-package.test.ts.)
import test from 'node:test';
import assert from 'node:assert/strict';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { revise, type AttemptRecord, type ReviseModel } from '@revloop/revise';

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

function model(texts: string[]): ReviseModel {
  let i = 0;
  return {
    label: 'scripted',
    spec: 'scripted:m',
    async generate(_messages, o) {
      const text = texts[Math.min(i++, texts.length - 1)];
      const r: AttemptRecord = {
        ok: true,
        text,
        startedAt: '',
        latencyMs: 1,
        finishReason: 'stop',
        usage: { promptTokens: 10 * i, completionTokens: 3 },
      };
      o.onAttempt?.(r);
      return { text, attempts: [r] };
    },
  };
}

const twoWords = (draft: string) =>
  draft.split(' ').length === 2 ? { ok: true, violations: [] } : { ok: false, violations: [{ code: 'len', message: 'two words' }] };

test('one span per revise() and one per generation, with gen_ai.* and revloop.* attributes', async () => {
  exporter.reset();
  const r = await revise({
    model: model(['one', 'one', 'one', 'one two']),
    prompt: 'Two words.',
    verify: twoWords,
    policy: { history: 'full' },
  });
  assert.equal(r.status, 'ok');
  const spans = exporter.getFinishedSpans();
  const root = spans.find((s) => s.name === 'revloop.revise')!;
  const chats = spans.filter((s) => s.name === 'chat scripted:m');
  assert.ok(root);
  assert.equal(chats.length, 4);
  for (const c of chats) assert.equal(c.parentSpanContext?.spanId, root.spanContext().spanId);
  assert.deepEqual(
    chats.map((c) => [c.attributes['revloop.attempt'], c.attributes['gen_ai.usage.input_tokens'], c.attributes['revloop.ok']]),
    [
      [0, 10, false],
      [1, 20, false],
      [2, 30, false],
      [3, 40, true],
    ],
  );
  assert.equal(chats[0].attributes['gen_ai.operation.name'], 'chat');
  assert.deepEqual(chats[0].attributes['gen_ai.response.finish_reasons'], ['stop']);
  assert.equal(chats[2].attributes['revloop.cycle.kind'], 'fixed-point');
  assert.equal(chats[3].attributes['revloop.policy.action'], 'reset-abstract');
  assert.equal(root.attributes['revloop.status'], 'ok');
  assert.equal(root.attributes['gen_ai.usage.input_tokens'], 100);
  assert.equal(root.attributes['gen_ai.usage.output_tokens'], 12);
  assert.deepEqual(root.attributes['revloop.cycle.actions'], ['reset-abstract']);
});

test('telemetry: false traces nothing', async () => {
  exporter.reset();
  await revise({ model: model(['one two']), prompt: 'Two words.', verify: twoWords, telemetry: false });
  assert.equal(exporter.getFinishedSpans().length, 0);
});
