// revise() against real HTTP backends on loopback (a scripted, fault-injecting OpenAI-compatible
// server and the vLLM flavour of it): cycles and the onCycle rule, reset-on-recurrence requests,
// the token budget, usage over failed attempts, untouched caller messages, decoder bans, abstract
// feedback and abort.
import test from 'node:test';
import assert from 'node:assert/strict';
import { revise, reviseStream } from '../../src/revise/index.ts';
import { renderViolations, type VerifyFunction } from '@revloop/revise';
import { createModel } from '../../src/models/index.ts';
import type { ChatMessage } from '../../src/models/types.ts';
import { chatOk, startFaultServer, type FaultServer } from '../../src/test/fault-server.ts';

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

const fast = { maxRetries: 3, retry: { baseDelayMs: 1, maxDelayMs: 2 }, timeout: 5000 };

async function withServer<T>(server: Promise<FaultServer>, work: (s: FaultServer) => Promise<T>): Promise<T> {
  const s = await server;
  try {
    return await work(s);
  } finally {
    await s.close();
  }
}

const CONTINUE = { history: 'full', feedback: 'verbatim', ban: 'none', onCycle: 'continue' } as const;

test('a server that always returns the same draft: status cycle under onCycle stop', () =>
  withServer(startFaultServer([], { json: chatOk('always the same five words') }), async (s) => {
    const model = await createModel(`openai-compatible:${s.url}#m`, fast);
    const r = await revise({ model, prompt: 'Write six words.', verify: words(6), policy: { ...CONTINUE, onCycle: 'stop' } });
    assert.equal(r.status, 'cycle');
    assert.equal(r.attempts.length, 3, 'a fixed point is three equal drafts (docs/protocol.md §3.2)');
    assert.deepEqual(
      r.cycles.map((c) => [c.kind, c.attempt, c.action]),
      [['fixed-point', 2, 'stop']],
    );
    assert.equal(s.requests.length, 3);
    assert.equal(r.best?.draft, 'always the same five words');
    // Under `continue` the same server runs the whole budget.
    const all = await revise({ model, prompt: 'Write six words.', verify: words(6), policy: CONTINUE, budget: { revisions: 4 } });
    assert.equal(all.status, 'budget');
    assert.equal(all.limit, 'revisions');
    assert.equal(all.attempts.length, 5);
  }));

const drafts = (...texts: string[]) =>
  startFaultServer(
    texts.map((t) => ({ json: chatOk(t) })),
    { json: chatOk('a b c d e f g') },
  );

test('reset-on-recurrence: the request after a repeated draft has exactly three messages', () =>
  withServer(drafts('one two three', 'one two three four five', 'one', 'one two three four five'), async (s) => {
    const model = await createModel(`openai-compatible:${s.url}#m`, fast);
    const events: string[] = [];
    const r = await revise({
      model,
      prompt: 'Write six words.',
      verify: words(6),
      policy: { history: 'reset-on-recurrence', feedback: 'verbatim', ban: 'none', onCycle: 'continue' },
      budget: { revisions: 5 },
      onEvent: (e) => (e.type === 'policy' ? events.push(`${e.action}@${e.attempt}`) : undefined),
    });
    const counts = s.requests.map((q) => q.body.messages.length);
    // Drafts d0, d1, d2, d3 = d1 (a recurrence) → the next request is [prompt, d3, report on d3].
    assert.deepEqual(counts.slice(0, 5), [1, 3, 5, 7, 3]);
    const fifth = s.requests[4].body.messages as ChatMessage[];
    assert.deepEqual(
      fifth.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(fifth[1].content, 'one two three four five');
    assert.equal(r.attempts[3].recurrenceOf, 1);
    assert.ok(events.includes('reset@4'));
  }));

test('reset-on-recurrence does not replay an earlier request: a repeat of the first draft keeps the history', () =>
  withServer(drafts('one two three', 'one two three four five', 'one two three'), async (s) => {
    const model = await createModel(`openai-compatible:${s.url}#m`, fast);
    await revise({
      model,
      prompt: 'Write six words.',
      verify: words(6),
      policy: { history: 'reset-on-recurrence', feedback: 'verbatim', ban: 'none', onCycle: 'continue' },
      budget: { revisions: 3 },
    });
    // [prompt, d2, report] would be the request of revision 1 again (d2 = d0): not sent.
    assert.deepEqual(
      s.requests.map((q) => q.body.messages.length),
      [1, 3, 5, 7],
    );
  }));

/** A server that reports usage from the request: prompt tokens = ceil(characters / 4) (roles included), completion = words of the reply. */
function meteredServer(reply: string) {
  const charsOf = (body: any) => (body.messages as ChatMessage[]).reduce((n, m) => n + m.role.length + m.content.length, 0);
  const completion = reply.split(/\s+/).length;
  const costs: number[] = [];
  const server = startFaultServer([], (body) => {
    const prompt = Math.ceil(charsOf(body) / 4);
    costs.push(prompt + completion);
    return {
      json: { ...chatOk(reply), usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } },
    };
  });
  return { server, costs, completion };
}

test('the token budget stops before the generation that would pass it', async () => {
  const reply = 'five words that never pass';
  // Learn what each generation costs on this server (the loop is deterministic).
  const probe = meteredServer(reply);
  const run = async (tokens: number) => {
    const m = meteredServer(reply);
    return withServer(m.server, async (s) => {
      const model = await createModel(`openai-compatible:${s.url}#m`, fast);
      const r = await revise({
        model,
        prompt: 'Write six words about rain.',
        verify: words(6),
        policy: CONTINUE,
        maxTokens: m.completion,
        budget: { revisions: 8, tokens },
      });
      return { r, requests: s.requests.length };
    });
  };
  const costs = await withServer(probe.server, async (s) => {
    const model = await createModel(`openai-compatible:${s.url}#m`, fast);
    await revise({
      model,
      prompt: 'Write six words about rain.',
      verify: words(6),
      policy: CONTINUE,
      maxTokens: probe.completion,
      budget: { revisions: 5 },
    });
    return probe.costs;
  });
  const upTo = (k: number) => costs.slice(0, k).reduce((a, b) => a + b, 0);
  // Room for three generations and half of the fourth: exactly three run, the fourth is not started.
  const three = await run(upTo(3) + Math.floor(costs[3] / 2));
  assert.equal(three.r.status, 'budget');
  assert.equal(three.r.limit, 'tokens');
  assert.equal(three.requests, 3);
  assert.equal(three.r.usage.promptTokens + three.r.usage.completionTokens, upTo(3));
  assert.ok(upTo(3) + costs[3] > upTo(3) + Math.floor(costs[3] / 2), 'the fourth would have passed the budget');
  // Room for four (with the projection's few tokens of slack): four run.
  const four = await run(upTo(4) + 8);
  assert.equal(four.requests, 4);
  assert.ok(four.r.usage.promptTokens + four.r.usage.completionTokens <= upTo(4) + 8);
});

test('usage is the sum of what the server reported, failed attempts (provider faults) included', () =>
  withServer(
    startFaultServer([
      { status: 503, json: { error: { message: 'overloaded' } } },
      { json: { ...chatOk(null), usage: { prompt_tokens: 11, completion_tokens: 0, total_tokens: 11 } } },
      { json: { ...chatOk('too few words'), usage: { prompt_tokens: 13, completion_tokens: 3, total_tokens: 16 } } },
      { json: { ...chatOk(''), usage: { prompt_tokens: 17, completion_tokens: 1, total_tokens: 18 } } },
      { json: { ...chatOk('one two three four five six'), usage: { prompt_tokens: 19, completion_tokens: 6, total_tokens: 25 } } },
    ]),
    async (s) => {
      const model = await createModel(`openai-compatible:${s.url}#m`, fast);
      const r = await revise({
        model,
        prompt: 'Write six words.',
        verify: words(6),
        policy: CONTINUE,
        pricing: { inputPerMTok: 1, outputPerMTok: 2 },
      });
      assert.equal(r.status, 'ok');
      assert.equal(r.usage.promptTokens, 11 + 13 + 17 + 19);
      assert.equal(r.usage.completionTokens, 0 + 3 + 1 + 6);
      assert.equal(r.usage.providerAttempts, 5);
      assert.equal(r.usage.unreportedAttempts, 1, 'the 503 reported no usage');
      assert.equal(r.usage.generations, 2);
      assert.equal(r.attempts[0].providerAttempts.filter((a) => !a.ok).length, 2);
      assert.equal(r.usd, (60 * 1 + 10 * 2) / 1e6);
    },
  ));

test('provider failures end the loop with provider_error and still report usage', () =>
  withServer(
    startFaultServer([], { json: { ...chatOk(null), usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 } } }),
    async (s) => {
      const model = await createModel(`openai-compatible:${s.url}#m`, { ...fast, maxRetries: 1 });
      const r = await revise({ model, prompt: 'Write six words.', verify: words(6) });
      assert.equal(r.status, 'provider_error');
      assert.equal(r.usage.promptTokens, 10);
      assert.equal(r.output, null);
      assert.equal(r.best, null);
    },
  ));

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

test("the caller's messages are never mutated (deep-frozen input, same JSON after)", () =>
  withServer(
    startFaultServer([{ json: chatOk('three words here') }, { json: chatOk('three words here') }], {
      json: chatOk('now six words are here'),
    }),
    async (s) => {
      const model = await createModel(`openai-compatible:${s.url}#m`, fast);
      const messages = deepFreeze([
        { role: 'system', content: 'You write short texts.' },
        { role: 'user', content: 'Write five words.' },
      ] as ChatMessage[]);
      const before = JSON.stringify(messages);
      for (const feedback of ['verbatim', 'abstract', 'drop'] as const) {
        const r = await revise({ model, prompt: messages, verify: words(5), policy: { ...CONTINUE, feedback }, budget: { revisions: 2 } });
        assert.notEqual(r.attempts[0].messages, messages);
      }
      assert.equal(JSON.stringify(messages), before);
      assert.equal(s.requests[0].body.messages[0].role, 'system');
    },
  ));

test("vllm: with ban 'failed-drafts' every request carries the earlier failed drafts as bad_words", () =>
  withServer(
    startFaultServer([{ json: chatOk(' first try ') }, { json: chatOk('second try here') }], { json: chatOk('the fifth and final try') }),
    async (s) => {
      const model = await createModel(`vllm:${s.url}#m`, fast);
      const r = await revise({ model, prompt: 'Write five words.', verify: words(5), policy: { ...CONTINUE, ban: 'failed-drafts' } });
      assert.equal(r.status, 'ok');
      const chats = s.requests.filter((q) => q.path.endsWith('/chat/completions'));
      assert.equal(chats[0].body.bad_words, undefined);
      assert.deepEqual(chats[1].body.bad_words, ['first try']);
      assert.deepEqual(chats[2].body.bad_words, ['first try', 'second try here']);
      assert.deepEqual(r.attempts[2].bannedSequences, ['first try', 'second try here']);
      // A backend that cannot ban is refused, not silently run without the ban.
      const plain = await createModel(`openai-compatible:${s.url}#m`, fast);
      await assert.rejects(revise({ model: plain, prompt: 'x', verify: words(5), policy: { ban: 'failed-drafts' } }), /cannot ban/);
      // 'auto' bans where the backend can and runs without a ban where it cannot.
      const n = s.requests.length;
      await revise({
        model: plain,
        prompt: 'Write five words.',
        verify: words(5),
        policy: { ...CONTINUE, ban: 'auto' },
        budget: { revisions: 1 },
      });
      assert.equal(s.requests.slice(n).filter((q) => q.body.bad_words).length, 0);
    },
  ));

test("ban 'complete-repeats': a repeat of a failed draft cannot end there (sim); 'auto' applies it where the backend can, and vLLM cannot", async () => {
  // sim: cannot act on this report, so unbanned it writes the same draft every time.
  const free = await revise({
    model: 'sim:steady',
    prompt: 'Write five words.',
    verify: words(5),
    policy: CONTINUE,
    budget: { revisions: 3 },
  });
  assert.equal(new Set(free.attempts.map((a) => a.draft)).size, 1);
  for (const ban of ['complete-repeats', 'auto'] as const) {
    const r = await revise({
      model: 'sim:steady',
      prompt: 'Write five words.',
      verify: words(5),
      policy: { ...CONTINUE, ban },
      budget: { revisions: 3 },
    });
    const drafts = r.attempts.map((a) => a.draft!);
    assert.deepEqual(
      drafts,
      [0, 1, 2, 3].map((k) => free.attempts[0].draft + ')'.repeat(k)),
      ban,
    );
    assert.deepEqual(r.attempts[2].bannedSequences, drafts.slice(0, 2));
    assert.equal(r.attempts[2].providerAttempts[0].request?.banned_answers, 2);
  }
  await withServer(startFaultServer([], { json: chatOk('two words') }), async (s) => {
    const model = await createModel(`vllm:${s.url}#m`, fast);
    await assert.rejects(
      revise({ model, prompt: 'x', verify: words(5), policy: { ban: 'complete-repeats' } }),
      /cannot ban complete answers, so ban 'complete-repeats' is refused/,
    );
    assert.equal(s.requests.length, 0);
    const r = await revise({ model, prompt: 'x', verify: words(5), policy: { ...CONTINUE, ban: 'auto' }, budget: { revisions: 2 } });
    assert.equal(r.attempts.length, 3);
    assert.equal(s.requests.filter((q) => q.body.bad_words).length, 0, "'auto' sends no bad_words: vLLM cannot ban complete answers");
  });
});

test('abstract feedback: no earlier failed draft appears verbatim in a later request', () =>
  withServer(
    startFaultServer([], (_body, i) => ({ json: chatOk(i < 4 ? `failed draft number ${i} of the series` : 'one two three four five') })),
    async (s) => {
      const model = await createModel(`openai-compatible:${s.url}#m`, fast);
      const r = await revise({ model, prompt: 'Write five words.', verify: words(5), policy: { ...CONTINUE, feedback: 'abstract' } });
      assert.equal(r.status, 'ok');
      assert.equal(s.requests.length, 5);
      s.requests.forEach((q, i) => {
        const sent = JSON.stringify(q.body.messages);
        for (let j = 0; j < i; j++) assert.ok(!sent.includes(`failed draft number ${j}`), `request ${i} contains failed draft ${j}`);
        if (i > 0)
          assert.match(q.body.messages.at(-1).content, new RegExp(`^\\[attempt ${i} failed; that draft is not repeatable\\]`, 'm'));
      });
      // The same drafts under verbatim feedback are sent back (the control).
      assert.equal(renderViolations([{ code: 'x', message: 'm', path: ['a', 0] }]).split('\n')[1], '- a.0: m [x]');
    },
  ));

test('an AbortSignal stops the loop within one attempt', () =>
  withServer(
    startFaultServer([{ json: chatOk('three short words') }, { hang: true }], { json: chatOk('never reached at all') }),
    async (s) => {
      const model = await createModel(`openai-compatible:${s.url}#m`, { ...fast, timeout: 60_000 });
      const controller = new AbortController();
      const r = await revise({
        model,
        prompt: 'Write four words.',
        verify: words(4),
        policy: CONTINUE,
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'attempt-started' && e.attempt === 1) setTimeout(() => controller.abort(), 20);
        },
      });
      assert.equal(r.status, 'aborted');
      assert.equal(s.requests.length, 2, 'no request after the abort');
      assert.equal(r.attempts.length, 2);
      assert.equal(r.attempts[1].draft, null);
      assert.equal(r.output, 'three short words');
    },
  ));

test('reviseStream yields the same events as onEvent, ending with done', () =>
  withServer(startFaultServer([{ json: chatOk('one two') }], { json: chatOk('one two three') }), async (s) => {
    const model = await createModel(`openai-compatible:${s.url}#m`, fast);
    const seen: string[] = [];
    const stream = reviseStream({ model, prompt: 'Three words.', verify: words(3), onEvent: (e) => seen.push(e.type) });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    assert.deepEqual(types, seen);
    assert.deepEqual(types, ['attempt-started', 'attempt-finished', 'verified', 'attempt-started', 'attempt-finished', 'verified', 'done']);
    assert.equal((await stream.result).status, 'ok');
  }));

test('a verifier that throws ends the loop with verifier_error; usage is still reported', async () => {
  const r = await revise({
    model: 'sim:ideal',
    prompt: 'Anything.',
    verify: () => {
      throw new Error('schema service down');
    },
  });
  assert.equal(r.status, 'verifier_error');
  assert.match(r.reason, /schema service down/);
  assert.ok(r.usage.promptTokens > 0);
});
