// Honest cycle actions (issue 35, point 5): cycles[].action says what was done. At a persistent
// fixed point on the first answer, a plain reset would replay the revision-1 request (the no-replay
// rule of docs/revise.md §4); `onCycle: 'reset'` then restarts the window with the cycling draft
// abstracted (`reset-abstract`), a request never sent before, instead of keeping the whole history
// while reporting a reset.
import test from 'node:test';
import assert from 'node:assert/strict';
import { revise, type AttemptRecord, type ChatMessage, type ReviseModel, type VerifyFunction } from '@revloop/revise';

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

/** A model stuck on one answer; it reports prompt tokens as characters / 4 (roles included). */
function stuck(answer: string): ReviseModel & { seen: ChatMessage[][] } {
  const seen: ChatMessage[][] = [];
  return {
    label: 'stuck',
    seen,
    async generate(messages, o) {
      seen.push(messages.map((m) => ({ ...m })));
      const prompt = Math.ceil(messages.reduce((n, m) => n + m.role.length + m.content.length, 0) / 4);
      const r: AttemptRecord = {
        ok: true,
        text: answer,
        startedAt: new Date().toISOString(),
        latencyMs: 1,
        usage: { promptTokens: prompt, completionTokens: 5 },
      };
      o.onAttempt?.(r);
      return { text: answer, attempts: [r] };
    },
  };
}

const PROMPT = 'Write a sentence of exactly six words about the harbour at dawn.';

test('a model stuck on its first answer: the default restarts with the draft abstracted, and says so', async () => {
  const model = stuck('The harbour sleeps.');
  const r = await revise({ model, prompt: PROMPT, verify: words(6) });
  assert.equal(r.status, 'budget');
  assert.equal(r.attempts.length, 9);
  // Every cycle is a fixed point on the first answer: a plain reset would replay request 1.
  assert.deepEqual(
    r.cycles.map((c) => [c.kind, c.attempt, c.action]),
    [
      ['fixed-point', 2, 'reset-abstract'],
      ['fixed-point', 3, 'reset-abstract'],
      ['fixed-point', 4, 'reset-abstract'],
      ['fixed-point', 5, 'reset-abstract'],
      ['fixed-point', 6, 'reset-abstract'],
      ['fixed-point', 7, 'reset-abstract'],
      ['fixed-point', 8, 'ended'],
    ],
  );
  // The request after each cycle: the prompt, then the abstracted record — no failed draft, new each time.
  for (let i = 3; i < 9; i++) {
    const sent = model.seen[i];
    assert.deepEqual(
      sent.map((m) => m.role),
      ['user', 'user'],
    );
    assert.match(
      sent[1].content,
      new RegExp(`^\\[attempt ${i} failed; that draft is not repeatable\\]\\nThe output did not pass verification:`),
    );
    assert.ok(!sent.some((m) => m.content.includes('The harbour sleeps.')));
  }
  assert.equal(new Set(model.seen.map((m) => JSON.stringify(m))).size, 9, 'no request was sent twice');
  // What it cost against keeping the history (onCycle 'continue') and stopping ('stop').
  const kept = await revise({ model: stuck('The harbour sleeps.'), prompt: PROMPT, verify: words(6), policy: { onCycle: 'continue' } });
  const full = await revise({
    model: stuck('The harbour sleeps.'),
    prompt: PROMPT,
    verify: words(6),
    policy: { history: 'full', onCycle: 'continue' },
  });
  const stopped = await revise({ model: stuck('The harbour sleeps.'), prompt: PROMPT, verify: words(6), policy: { onCycle: 'stop' } });
  assert.equal(stopped.status, 'cycle');
  assert.deepEqual(
    stopped.cycles.map((c) => c.action),
    ['stop'],
  );
  // Under reset-on-recurrence the recurrence rule fired and could not reset; under the full history nothing fired.
  assert.deepEqual(
    kept.cycles.map((c) => c.action),
    ['kept-no-replay', 'kept-no-replay', 'kept-no-replay', 'kept-no-replay', 'kept-no-replay', 'kept-no-replay', 'ended'],
  );
  assert.deepEqual(
    full.cycles.map((c) => c.action),
    ['continue', 'continue', 'continue', 'continue', 'continue', 'continue', 'ended'],
  );
  assert.ok(
    r.usage.promptTokens < kept.usage.promptTokens / 2,
    `reset-abstract ${r.usage.promptTokens} prompt tokens, history kept ${kept.usage.promptTokens}`,
  );
});

test('when nothing can change the request (drop feedback), the cycle says the history was kept', async () => {
  const r = await revise({
    model: stuck('The harbour sleeps.'),
    prompt: PROMPT,
    verify: words(6),
    policy: { feedback: 'drop', onCycle: 'reset' },
    budget: { revisions: 3 },
  });
  assert.deepEqual(
    r.cycles.map((c) => [c.attempt, c.action]),
    [
      [2, 'kept-no-replay'],
      [3, 'ended'],
    ],
  );
});

test('a cycle on later drafts resets the window there (a plain reset: the draft was never carried alone)', async () => {
  const texts = ['one', 'one two three', 'one two three', 'one two three', 'one two three four five six'];
  let i = 0;
  const seen: ChatMessage[][] = [];
  const model: ReviseModel = {
    label: 'later',
    async generate(messages, o) {
      seen.push(messages);
      const text = texts[Math.min(i++, texts.length - 1)];
      o.onAttempt?.({ ok: true, text, startedAt: '', latencyMs: 0 });
      return { text, attempts: [] };
    },
  };
  const r = await revise({ model, prompt: PROMPT, verify: words(6), policy: { history: 'full', onCycle: 'reset' } });
  assert.equal(r.status, 'ok');
  assert.deepEqual(
    r.cycles.map((c) => [c.kind, c.attempt, c.action]),
    [['fixed-point', 3, 'reset']],
  );
  assert.deepEqual(
    seen[4].map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.equal(seen[4][1].content, 'one two three');
});
