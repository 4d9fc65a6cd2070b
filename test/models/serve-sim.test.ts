// serve-sim end to end: the OpenAI-compatible backend against the simulator on loopback gives the
// same texts as the in-process sim; vLLM scoring and bans through the emulation; the CLI starts,
// prints its port and stops cleanly on SIGINT/SIGTERM.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { createModel } from '../../src/models/index.ts';
import { canScore, requireScore } from '../../src/models/capabilities.ts';
import type { ChatMessage, Model } from '../../src/models/types.ts';
import { startSimServer, type SimServer } from '../../src/models/sim/server.ts';
import { simScore } from '../../src/models/sim/model.ts';
import { toyTokenize, toyRenderChat, toyPromptLogprobs } from '../../src/models/sim/toy-lm.ts';
import { CapabilityError } from '../../src/core/errors.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/revloop.mjs', import.meta.url));
let sim: SimServer;
before(async () => {
  sim = await startSimServer({ port: 0 });
});
after(async () => {
  await sim.close();
});

const PROMPT =
  'Describe a walk along a quiet harbour at dawn.\n\nLength constraint: write exactly 48 words under the deterministic word counter. The response must explicitly retain these required content items: quiet harbour; gulls. Return only the requested response. Do not include a preface, word-count note, analysis, or commentary.';
const countWords = (t: string) => t.match(/[\p{L}\p{N}_]+(?:[-'][\p{L}\p{N}_]+)*/gu)?.length ?? 0;
function feedback(text: string): string {
  const n = countWords(text);
  const d = 48 - n;
  const missing = ['quiet harbour', 'gulls'].filter((a) => !text.toLowerCase().includes(a));
  return `DETERMINISTIC VERIFIER: previous response = ${n} words; target = 48; required action = ${d > 0 ? `add exactly ${d}` : `remove exactly ${-d}`} words. Missing required content items: ${missing.length ? missing.join('; ') : 'none'}. Revise the complete response to satisfy the exact target and retain every required content item. Return only the revised response with no analysis, count, or commentary.`;
}

async function trajectory(model: Model, rounds: number): Promise<string[]> {
  const msgs: ChatMessage[] = [{ role: 'user', content: PROMPT }];
  const texts: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const res = await model.generate(msgs, { maxTokens: 400 });
    assert.ok(res.text !== null, JSON.stringify(res.attempts));
    texts.push(res.text!);
    msgs.push({ role: 'assistant', content: res.text!.trim() }, { role: 'user', content: feedback(res.text!) });
  }
  return texts;
}

test('through HTTP the sim answers exactly as in process, round after round', async () => {
  for (const spec of ['steady?seed=3', 'stubborn', 'overshoot?noise=0.4']) {
    const http = await createModel(`openai-compatible:${sim.url}#sim:${spec}`);
    const local = await createModel(`sim:${spec}`);
    assert.deepEqual(await trajectory(http, 5), await trajectory(local, 5), spec);
    assert.equal(http.capabilities.simulated, true);
    assert.match(http.label, /\[simulated\]$/);
  }
});

test('responses mark themselves simulated; the attempt records say so', async () => {
  const res = await fetch(`${sim.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'steady', messages: [{ role: 'user', content: PROMPT }], max_tokens: 300 }),
  });
  const body = (await res.json()) as any;
  assert.equal(res.status, 200);
  assert.equal(body.revloop_simulated, true);
  assert.equal(body.model, 'sim:steady');
  assert.equal(body.object, 'chat.completion');
  assert.equal(typeof body.choices[0].message.content, 'string');
  assert.ok(body.usage.prompt_tokens > 0 && body.usage.completion_tokens > 0);
  const m = await createModel(`openai-compatible:${sim.url}#sim:ideal`);
  const r = await m.generate([{ role: 'user', content: PROMPT }], { maxTokens: 300 });
  assert.equal(r.attempts[0].meta!.simulated, true);
  assert.equal(r.attempts[0].meta!.returnedModel, 'sim:ideal');
  const models = (await (await fetch(`${sim.url}/models`)).json()) as any;
  assert.ok(
    models.data.length >= 6 &&
      models.data.every((d: { id: string; revloop_simulated: boolean }) => d.id.startsWith('sim:') && d.revloop_simulated),
  );
});

test('an unknown profile is a 404 (not retried); bad requests are 400s', async () => {
  const m = await createModel(`openai-compatible:${sim.url}#sim:nope`, { maxRetries: 3 });
  const r = await m.generate([{ role: 'user', content: 'hi' }], { maxTokens: 10 });
  assert.equal(r.text, null);
  assert.deepEqual(
    r.attempts.map((a) => a.error?.kind),
    ['not_found'],
  );
  assert.match(r.attempts[0].error!.message, /unknown simulated profile/);
  const bad = await fetch(`${sim.url}/chat/completions`, { method: 'POST', body: '{not json' });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as any).revloop_simulated, true);
  const stream = await fetch(`${sim.url}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'steady', messages: [{ role: 'user', content: 'x' }], stream: true }),
  });
  assert.equal(stream.status, 400);
  const noRoute = await fetch(`${sim.url}/nothing`, { method: 'POST', body: '{}' });
  assert.equal(noRoute.status, 404);
});

test('artificial latency: the server default, a spec override, and instant', async () => {
  const slow = await startSimServer({ port: 0, latencyMs: 80 });
  try {
    const timed = async (model: string) => {
      const m = await createModel(`openai-compatible:${slow.url}#${model}`);
      const r = await m.generate([{ role: 'user', content: 'hi' }], { maxTokens: 20 });
      return r.attempts[0].latencyMs;
    };
    assert.ok((await timed('sim:steady')) >= 75);
    assert.ok((await timed('sim:steady?latency_ms=0')) < 75);
    assert.ok((await timed('sim:instant')) < 75);
  } finally {
    await slow.close();
  }
});

test('vLLM scoring through serve-sim equals the in-process toy score', async () => {
  const m = await createModel(`vllm:${sim.url}#sim:steady`);
  assert.deepEqual(m.capabilities, {
    score: true,
    ban: true,
    banAnswers: false,
    tokenize: true,
    decode: false,
    stopTokens: true,
    counters: false,
    info: true,
    sizeContext: false,
    simulated: true,
  });
  requireScore(m);
  const ctx: ChatMessage[] = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Goal: mail the agenda to Dana.' },
    { role: 'assistant', content: "find_contact(contact_name='Dana')" },
    { role: 'user', content: "Observation: TypeError: unexpected keyword argument 'contact_name'" },
  ];
  for (const cont of ["find_contact(contact_name='Dana')", "find_contact(name='Dana')", 'x']) {
    const remote = await m.score(ctx, cont);
    const local = simScore(ctx, cont);
    assert.equal(remote.logprob, local.logprob, cont);
    assert.deepEqual(remote.tokenLogprobs, local.tokenLogprobs);
    assert.equal(remote.tokens, toyTokenize(cont).length);
    assert.equal(remote.argmaxMatches, local.argmaxMatches);
    assert.equal(remote.isGreedy, local.isGreedy);
    assert.equal(remote.contextTokens, toyTokenize(toyRenderChat(ctx, { addGenerationPrompt: true }), { special: true }).length);
  }
  const empty = await m.score(ctx, '');
  assert.equal(empty.logprob, 0);
  assert.equal(empty.tokens, 0);
});

test("vLLM emulation: /v1/completions with token ids and prompt_logprobs has vLLM's layout", async () => {
  const ids = toyTokenize('alpha beta alpha beta');
  const res = await fetch(`${sim.url}/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'steady', prompt: ids, max_tokens: 1, prompt_logprobs: 1 }),
  });
  const body = (await res.json()) as any;
  const plp = body.choices[0].prompt_logprobs;
  assert.equal(plp.length, ids.length);
  assert.equal(plp[0], null);
  for (let i = 1; i < ids.length; i++) {
    const e = plp[i][String(ids[i])];
    assert.ok(e && typeof e.logprob === 'number' && e.logprob <= 0 && Number.isInteger(e.rank));
    const top = Object.values(plp[i] as Record<string, { rank: number }>).find((x) => x.rank === 1);
    assert.ok(top, 'the argmax is listed with rank 1');
  }
  const tok = (await (
    await fetch(`${sim.url.replace(/\/v1$/, '')}/tokenize`, {
      method: 'POST',
      body: JSON.stringify({ model: 'steady', prompt: 'alpha beta alpha beta', add_special_tokens: false }),
    })
  ).json()) as any;
  assert.deepEqual(tok.tokens, ids);
  const detok = (await (
    await fetch(`${sim.url.replace(/\/v1$/, '')}/detokenize`, { method: 'POST', body: JSON.stringify({ model: 'steady', tokens: ids }) })
  ).json()) as any;
  assert.equal(detok.prompt, 'alpha beta alpha beta');
});

test('vLLM bans: bad_words reach the server and the banned text never comes back', async () => {
  const vllm = await createModel(`vllm:${sim.url}#sim:ideal`);
  const msgs: ChatMessage[] = [{ role: 'user', content: PROMPT }];
  const free = await vllm.generate(msgs, { maxTokens: 400 });
  const banned = await vllm.generate(msgs, { maxTokens: 400, bannedSequences: ['gulls'] });
  const local = await (await createModel('sim:ideal')).generate(msgs, { maxTokens: 400, bannedSequences: ['gulls'] });
  assert.equal(banned.text, local.text);
  assert.equal(banned.attempts[0].request!.bad_words_count, 1);
  assert.equal(banned.attempts[0].request!.top_k, -1, 'vllm pins neutral sampling parameters');
  if (free.text!.includes('gulls')) assert.ok(!banned.text!.includes('gulls'), banned.text!);
  const plain = await createModel(`openai-compatible:${sim.url}#sim:ideal`);
  assert.equal(canScore(plain), false);
  assert.equal(plain.capabilities.ban, false);
  await assert.rejects(plain.generate(msgs, { maxTokens: 10, bannedSequences: ['gulls'] }), CapabilityError);
});

test('the CLI prints the port it chose and stops cleanly on SIGTERM and SIGINT', async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const child = spawn(process.execPath, [BIN, 'serve-sim', '--port', '0', '--latency-ms', '1'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        out += c;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', () => reject(new Error(`serve-sim exited early: ${out} ${err}`)));
    });
    assert.match(out, /SIMULATED/);
    const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as any;
    assert.ok(models.data.some((d: { id: string }) => d.id === 'sim:steady'));
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill(signal);
    });
    assert.equal(code, 0, err);
    assert.match(err, new RegExp(`${signal}, shutting down`));
  }
});

test('the CLI refuses a bad or busy port with a clear message', async () => {
  const bad = spawnSync(process.execPath, [BIN, 'serve-sim', '--port', 'abc'], { cwd: ROOT, encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--port must be an integer/);
  assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/, 'no stack trace');
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    const busy = spawnSync(process.execPath, [BIN, 'serve-sim', '--port', String(port)], { cwd: ROOT, encoding: 'utf8' });
    assert.notEqual(busy.status, 0);
    assert.match(busy.stderr, /already in use/);
  } finally {
    blocker.close();
  }
});

test('vLLM emulation on chat: prompt_logprobs with continue_final_message scores an assistant prefill', async () => {
  const messages = [
    { role: 'user', content: 'Name a tool call.' },
    { role: 'assistant', content: 'send_mail(to=bob)' },
  ];
  const root = sim.url.replace(/\/v1$/, '');
  const tok = (await (
    await fetch(`${root}/tokenize`, {
      method: 'POST',
      body: JSON.stringify({ model: 'steady', messages, continue_final_message: true, add_generation_prompt: false }),
    })
  ).json()) as any;
  assert.deepEqual(tok.tokens, toyTokenize(toyRenderChat(messages, { continueFinalMessage: true }), { special: true }));
  const res = (await (
    await fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'steady',
        messages,
        continue_final_message: true,
        add_generation_prompt: false,
        prompt_logprobs: 0,
        max_tokens: 1,
      }),
    })
  ).json()) as any;
  assert.equal(res.revloop_simulated, true);
  assert.deepEqual(res.prompt_token_ids, tok.tokens);
  assert.equal(res.prompt_logprobs.length, tok.tokens.length);
  assert.equal(res.prompt_logprobs[0], null);
  // The prefill's positions carry the toy LM's teacher-forced numbers for those tokens.
  const cont = toyTokenize('send_mail(to=bob)');
  const tail = res.prompt_logprobs
    .slice(-cont.length)
    .map((e: Record<string, { logprob: number }>, i: number) => e[String(cont[i])].logprob);
  const both = await fetch(`${sim.url}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'steady', messages, add_generation_prompt: true, continue_final_message: true }),
  });
  assert.equal(both.status, 400, 'continue_final_message and add_generation_prompt together are refused, as in vLLM');
  assert.equal(tail.length, cont.length);
  assert.deepEqual(
    tail,
    toyPromptLogprobs(tok.tokens, 1)
      .slice(-cont.length)
      .map((p) => p.logprob),
  );
  assert.ok(tail.every((x: number) => Number.isFinite(x) && x <= 0));
});
