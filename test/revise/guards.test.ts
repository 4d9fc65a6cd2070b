// Guards that hold against any model (issue 35, point 4): revise() ends on time when the model or
// the verifier ignores its signal, treats usage it cannot count as unreported (and still budgets
// it), takes non-string text as a provider fault, projects an unset token limit from the last
// completion, starts no generation after its stream is left, and reports a missing peer before any call.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  revise,
  reviseStream,
  runLoop,
  stopAfterRevisions,
  stopOnSuccess,
  type AttemptRecord,
  type ReviseEvent,
  type ReviseModel,
  type VerifyFunction,
} from '@revloop/revise';

/** A verifier that wants exactly `n` words. */
const words =
  (n: number): VerifyFunction =>
  (draft) => {
    const got = draft.split(/\s+/).filter(Boolean).length;
    return got === n
      ? { ok: true, violations: [] }
      : {
          ok: false,
          violations: [{ code: got > n ? 'too_long' : 'too_short', message: `has ${got} words, needs ${n}` }],
          score: Math.abs(got - n),
        };
  };

const record = (text: string, usage?: AttemptRecord['usage']): AttemptRecord => ({
  ok: true,
  text,
  startedAt: new Date().toISOString(),
  latencyMs: 1,
  ...(usage ? { usage } : {}),
});

/** A model answering from a list (then repeating the last), reporting `usage` for every attempt; `calls` counts its calls. */
function scripted(texts: unknown[], usage?: (i: number) => AttemptRecord['usage']): ReviseModel & { calls: number; options: unknown[] } {
  const m = {
    label: 'scripted',
    calls: 0,
    options: [] as unknown[],
    async generate(_messages: unknown, o: { maxTokens?: number; onAttempt?: (r: AttemptRecord) => void }) {
      const i = m.calls++;
      m.options.push({ ...o });
      const text = texts[Math.min(i, texts.length - 1)];
      if (typeof text === 'string') o.onAttempt?.(record(text, usage?.(i)));
      return { text: text as string, attempts: [] };
    },
  };
  return m;
}

/** A model that never answers and ignores its signal (a hung provider, a buggy adapter). */
function hung(onCall?: () => void): ReviseModel & { calls: number } {
  const m = {
    label: 'hung',
    calls: 0,
    generate: () => {
      m.calls++;
      onCall?.();
      return new Promise<never>(() => undefined);
    },
  };
  return m;
}

test('budget.ms ends revise() on time when the model ignores its signal; the late answer is discarded and reported as late', async () => {
  const events: ReviseEvent[] = [];
  let answer: ((r: AttemptRecord) => void) | null = null;
  const model: ReviseModel = {
    label: 'late',
    // Ignores the signal; answers (with usage) long after the deadline.
    generate: (_m, o) =>
      new Promise((resolve) => {
        answer = (r) => {
          o.onAttempt?.(r);
          resolve({ text: r.text!, attempts: [r] });
        };
      }),
  };
  const t0 = performance.now();
  const r = await revise({ model, prompt: 'Write six words.', verify: words(6), budget: { ms: 150 }, onEvent: (e) => events.push(e) });
  const took = performance.now() - t0;
  assert.equal(r.status, 'budget');
  assert.equal(r.limit, 'ms');
  assert.ok(took >= 140 && took < 1500, `ended after ${took.toFixed(0)} ms`);
  assert.match(r.reason, /the time budget of 150 ms ran out during generation 0/);
  assert.equal(r.attempts.length, 1);
  assert.equal(r.attempts[0].draft, null);
  // The answer arrives after revise() returned: not used, not counted, reported as late.
  answer!(record('one two three four five six', { promptTokens: 40, completionTokens: 6 }));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(r.usage.promptTokens, 0);
  assert.equal(r.output, null);
  const late = events.filter((e) => e.type === 'late-attempt');
  assert.equal(late.length, 1);
  assert.deepEqual((late[0] as { record: AttemptRecord }).record.usage, { promptTokens: 40, completionTokens: 6 });
});

test('an AbortSignal ends revise() at once even when the model ignores it', async () => {
  const controller = new AbortController();
  const model = hung(() => setTimeout(() => controller.abort(), 30));
  const t0 = performance.now();
  const r = await revise({ model, prompt: 'Write six words.', verify: words(6), signal: controller.signal });
  assert.equal(r.status, 'aborted');
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(model.calls, 1);
});

test('a verifier that never settles is abandoned at budget.ms and at an abort', async () => {
  const never: VerifyFunction = () => new Promise(() => undefined);
  const r = await revise({ model: scripted(['some words']), prompt: 'x', verify: never, budget: { ms: 100 } });
  assert.equal(r.status, 'budget');
  assert.equal(r.limit, 'ms');
  assert.match(r.reason, /while attempt 0 was verified/);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 30);
  const a = await revise({ model: scripted(['some words']), prompt: 'x', verify: never, signal: controller.signal });
  assert.equal(a.status, 'aborted');
});

test('usage that is negative or not finite is unreported (with an event), and the token budget still holds', async () => {
  const events: ReviseEvent[] = [];
  const model = scripted(['one two three', 'one two three four'], () => ({ promptTokens: -1e308, completionTokens: Infinity }));
  const r = await revise({
    model,
    prompt: 'Write exactly six words about the sea, please.',
    verify: words(6),
    budget: { tokens: 60, revisions: 8 },
    policy: { onCycle: 'continue' },
    onEvent: (e) => events.push(e),
  });
  assert.equal(r.status, 'budget');
  assert.equal(r.limit, 'tokens');
  assert.equal(r.usage.promptTokens, 0);
  assert.equal(r.usage.completionTokens, 0);
  assert.equal(r.usage.unreportedAttempts, r.usage.providerAttempts);
  assert.ok(r.usage.estimatedTokens! > 0 && r.usage.estimatedTokens! <= 60, `estimated ${r.usage.estimatedTokens}`);
  assert.ok(model.calls <= 3, `${model.calls} generations under a 60-token budget`);
  assert.equal(events.filter((e) => e.type === 'usage-rejected').length, model.calls);
  assert.equal(r.attempts[0].providerAttempts[0].usage, undefined);
});

test('text that is not a string is a provider fault, not a verifier error', async () => {
  for (const text of [42, { text: 'x' }, ['a']]) {
    const r = await revise({ model: scripted([text]), prompt: 'x', verify: words(1) });
    assert.equal(r.status, 'provider_error', JSON.stringify(text));
    assert.match(r.reason, /the model returned (a number|an object|an array) where text was expected/);
  }
});

test('with maxTokens unset nothing is sent as the limit, and tokens: 1000 lets a 50-token answer run (the last completion is the projection)', async () => {
  const fifty = Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ');
  const model = scripted([fifty, fifty, 'one two three four five six'], (i) => ({
    promptTokens: 20 + 60 * i,
    completionTokens: i === 2 ? 6 : 50,
  }));
  const r = await revise({
    model,
    prompt: 'Write six words.',
    verify: words(6),
    budget: { tokens: 1000 },
    policy: { onCycle: 'continue' },
  });
  assert.equal(r.status, 'ok');
  assert.equal(model.calls, 3);
  assert.ok(model.options.every((o) => (o as { maxTokens?: number }).maxTokens === undefined));
  // Before any completion the projection of the completion is 0; then the last completion's size.
  const kernel = await runLoop({
    model: scripted([fifty], () => ({ promptTokens: 20, completionTokens: 50 })),
    verifier: { verify: () => ({ ok: false, state: null, violations: ['x'], measure: 1 }), feedback: () => 'again' },
    policy: { request: () => ({ messages: [{ role: 'user', content: 'Write six words.' }] }) },
    stopWhen: [stopOnSuccess(), stopAfterRevisions(1)],
    sink: {
      drafted: (_r, _e, _g, next) => {
        if (next) assert.equal(next.projection.completionTokens, 50);
      },
      started: (s) => assert.equal(s.projection.completionTokens, 0),
    },
  });
  assert.equal(kernel.generations, 2);
});

test('leaving reviseStream early starts no further generation', async () => {
  const model = scripted(['one', 'one two', 'one two three', 'one two three four']);
  const stream = reviseStream({ model, prompt: 'Write six words.', verify: words(6), policy: { onCycle: 'continue' } });
  for await (const e of stream) if (e.type === 'verified' && e.attempt === 1) break;
  const r = await stream.result;
  assert.equal(model.calls, 2, 'the generation after the one read was never started');
  assert.equal(r.status, 'aborted');
  // Leaving at the very first event: no generation at all.
  const idle = scripted(['one']);
  const first = reviseStream({ model: idle, prompt: 'x', verify: words(6) });
  for await (const e of first) if (e.type === 'attempt-started') break;
  await first.result;
  assert.equal(idle.calls, 0);
});
