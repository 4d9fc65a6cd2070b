// The in-process GGUF backend on the tiny random-weight model (CPU, written at test time):
// loading, chat rendering, greedy and seeded generation, teacher-forced scoring with prefix
// reuse, verification, the per-step decoder ban, counters and error paths.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Token } from 'node-llama-cpp';
import { createGgufModel, type GgufModel } from '../../../src/models/gguf/model.ts';
import { ensureTinyModel } from '../../../src/test/tiny-model.ts';
import { UserError } from '../../../src/core/errors.ts';
import { disposeAllGgufRuntimes, ContextOverflowError, type GgufRuntime } from '../../../src/models/gguf/runtime.ts';
import { findBannedOccurrence } from '../../../src/models/ban.ts';
import type { AttemptRecord, ChatMessage } from '../../../src/models/types.ts';
import { tempDir } from '../../tmp.ts';

let path = '';
let model: GgufModel;
let rt: GgufRuntime;
const user = (content: string): ChatMessage[] => [{ role: 'user', content }];
const WORDS = ['the', 'note', 'draft', 'tool', 'call', 'error', 'file', 'read', 'quiet', 'period', 'write', 'model', 'revise', 'name'];

before(async () => {
  path = ensureTinyModel();
  // One thread: the test machine's cores are shared, and oversubscribed llama.cpp threads spin.
  model = createGgufModel(`gguf:${path}?threads=1`, { label: 'tiny' });
  rt = await model.load();
});

after(async () => {
  await model.close();
  await disposeAllGgufRuntimes();
});

test('loads on CPU and declares its capabilities and backend details', async () => {
  assert.deepEqual(
    { ...model.capabilities },
    {
      score: true,
      ban: true,
      banAnswers: true,
      tokenize: true,
      decode: true,
      stopTokens: true,
      counters: true,
      info: true,
      sizeContext: true,
      simulated: false,
    },
  );
  assert.equal(model.label, 'tiny');
  const info = await model.backendInfo();
  assert.equal(info.backend, 'node-llama-cpp');
  assert.equal(info.nodeLlamaCppVersion, '3.21.1');
  assert.equal(info.gpu, false);
  assert.equal(info.threads, 1);
  assert.equal(info.sequences, 1);
  assert.equal(info.flashAttention, false);
  assert.equal(info.contextSize, 2048);
  assert.equal(typeof info.batchSize, 'number');
  assert.equal((info.model as Record<string, unknown>).dominantTensorType, 'F32');
  assert.equal((info.chatTemplate as Record<string, unknown>).origin, 'gguf');
});

test('a second model object on the same file and load options shares the loaded runtime', async () => {
  const other = createGgufModel(`gguf:${path}?threads=1`, { label: 'again', temperature: 0.5 });
  try {
    assert.equal(await other.load(), rt);
  } finally {
    await other.close();
  }
  // The first model keeps working after the other one closed.
  assert.equal(typeof (await model.generate(user('the note'), { maxTokens: 2 })).text, 'string');
});

test('the prompt is the GGUF template rendered and tokenized with special tokens and exactly one BOS', async () => {
  const p = await model.renderPrompt([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'read the file' },
  ]);
  assert.equal(
    p.text,
    '<s><|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nread the file<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
  );
  const bos = rt.model.tokens.bos!;
  assert.equal(p.tokens[0], bos);
  assert.equal(p.tokens.filter((t) => t === bos).length, 1);
  const imStart = await model.tokenize('<|im_start|>', true);
  assert.equal(imStart.length, 1, 'control tokens are parsed as single special tokens');
  assert.equal(await model.detokenize(p.tokens, true), p.text);
});

test('a chat template file given by the user replaces the GGUF one', async () => {
  const dir = tempDir('revloop-tpl-');
  try {
    const file = join(dir, 't.jinja');
    writeFileSync(
      file,
      '{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}',
    );
    const custom = createGgufModel(`gguf:${path}?threads=1&chatTemplate=${encodeURIComponent(file)}`);
    try {
      assert.equal((await custom.renderPrompt(user('hi'))).text, '[user] hi\n[assistant] ');
      assert.equal(((await custom.backendInfo()).chatTemplate as Record<string, unknown>).origin, file);
    } finally {
      await custom.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('generate returns raw text and one attempt record with usage, finish reason and backend details', async () => {
  const seen: AttemptRecord[] = [];
  const r = await model.generate(user('write the draft'), { maxTokens: 12, onAttempt: (a) => seen.push(a) });
  assert.equal(seen.length, 1);
  const a = r.attempts[0];
  assert.equal(seen[0], a);
  assert.equal(a.ok, true);
  assert.equal(r.text, a.text);
  assert.ok(a.finishReason === 'length' || a.finishReason === 'stop');
  const prompt = await model.renderPrompt(user('write the draft'));
  assert.equal(a.usage?.promptTokens, prompt.tokens.length);
  assert.ok((a.usage?.completionTokens ?? 0) <= 12);
  assert.equal(a.usage?.totalTokens, (a.usage?.promptTokens ?? 0) + (a.usage?.completionTokens ?? 0));
  assert.ok(a.latencyMs >= 0 && !Number.isNaN(Date.parse(a.startedAt)));
  assert.equal(a.request?.temperature, 0);
  for (const k of [
    'nodeLlamaCppVersion',
    'llamaCppRelease',
    'gpu',
    'contextSize',
    'batchSize',
    'threads',
    'chatTemplate',
    'promptTokensEvaluated',
  ]) {
    assert.ok(a.meta && k in a.meta, `meta.${k}`);
  }
});

test('generation stops at the end-of-turn token (excluded from text and counts) or at maxTokens', async () => {
  const stopped = await model.generateTokens((await model.renderPrompt(user('call call model'))).tokens, { maxTokens: 40 });
  assert.equal(stopped.finishReason, 'stop');
  assert.ok(stopped.stopToken !== null && rt.isEndOfGeneration(stopped.stopToken));
  assert.ok(!stopped.tokens.includes(stopped.stopToken!));
  assert.ok(!stopped.text.includes('<|im_end|>'));
  const cut = await model.generate(user('call call model'), { maxTokens: 2 });
  assert.equal(cut.attempts[0].finishReason, 'length');
  assert.equal(cut.attempts[0].usage?.completionTokens, 2);
});

test('extra stop tokens end generation before the stop token', async () => {
  const prompt = (await model.renderPrompt(user('quiet quiet read'))).tokens;
  const free = await model.generateTokens(prompt, { maxTokens: 20 });
  assert.ok(free.tokens.length >= 6);
  const stop = free.tokens[5];
  const first = free.tokens.indexOf(stop);
  const r = await model.generateTokens(prompt, { maxTokens: 20, stopTokenIds: [stop] });
  assert.equal(r.finishReason, 'stop');
  assert.equal(r.stopToken, stop);
  assert.deepEqual(r.tokens, free.tokens.slice(0, first));
});

test('greedy decoding repeats exactly, whatever the KV cache held before', async () => {
  const prompt = (await model.renderPrompt(user('revise the note'))).tokens;
  const a = await model.generateTokens(prompt, { maxTokens: 24 });
  await model.scoreMany(user('something else entirely'), ['the file']);
  const b = await model.generateTokens(prompt, { maxTokens: 24 });
  const c = await model.generateTokens(prompt, { maxTokens: 24 });
  assert.deepEqual(b.tokens, a.tokens);
  assert.deepEqual(c.tokens, a.tokens);
  assert.ok(c.promptTokensEvaluated < prompt.length, 'the cached prompt prefix was reused');
});

test('seeded sampling repeats with the same seed and differs across seeds', async () => {
  const prompt = (await model.renderPrompt(user('write the draft'))).tokens;
  const run = (seed: number) => model.generateTokens(prompt, { maxTokens: 16, temperature: 1, seed });
  const a = await run(11);
  const b = await run(11);
  assert.deepEqual(a.tokens, b.tokens);
  const others = await Promise.all([12, 13, 14].map(run));
  assert.ok(
    others.some((o) => o.tokens.join() !== a.tokens.join()),
    'some other seed gives another sample',
  );
  const greedy = await model.generateTokens(prompt, { maxTokens: 16 });
  assert.ok(
    [a, ...others].some((o) => o.tokens.join() !== greedy.tokens.join()),
    'sampling is not greedy',
  );
});

test('next-token probabilities at a position sum to 1', async () => {
  const prompt = (await model.renderPrompt(user('the tool'))).tokens as Token[];
  const [dist] = await rt.lock.run(() => rt.distributionsFor(prompt, prompt.length - 1));
  let sum = 0;
  for (const p of dist.values()) sum += p;
  assert.ok(Math.abs(sum - 1) < 1e-4, `sum ${sum}`);
  assert.ok(dist.size > 500);
});

test('score equals the per-step log-probabilities along the greedy path (single-token decodes)', async () => {
  const prompt = (await model.renderPrompt(user('read the file'))).tokens as Token[];
  // Another way to the same numbers: free greedy decoding with per-step confidences.
  await rt.lock.run(() => rt.sequence.clearHistory());
  const path: number[] = [];
  const stepLogprobs: number[] = [];
  await rt.lock.run(async () => {
    for await (const out of rt.sequence.evaluateWithMetadata(prompt, { confidence: true }, { temperature: 0, yieldEogToken: true })) {
      if (rt.isEndOfGeneration(out.token)) break;
      path.push(out.token);
      stepLogprobs.push(Math.log(out.confidence));
      if (path.length >= 10) break;
    }
  });
  assert.ok(path.length >= 3);
  const [s] = await model.scoreTokens(prompt, [path]);
  assert.equal(s.tokens, path.length);
  assert.equal(s.isGreedy, true, 'the greedy path is greedy under teacher forcing');
  assert.equal(s.nArgmaxMatch, path.length);
  const sum = stepLogprobs.reduce((x, y) => x + y, 0);
  // Generation decodes one token at a time, a different kernel path than batched scoring (~1e-4).
  assert.ok(Math.abs(s.logprob - sum) < 1e-3, `${s.logprob} vs ${sum}`);
  s.tokenLogprobs.forEach((lp, i) => assert.ok(Math.abs(lp - stepLogprobs[i]) < 1e-3, `position ${i}`));
});

test('prefix reuse equals fresh scoring within 1e-6 nats, with fewer tokens pushed than a naive scorer', async () => {
  const goal: ChatMessage[] = [
    { role: 'system', content: 'You are a tool-using assistant. Reply with exactly one tool call and nothing else.' },
    { role: 'user', content: 'Write the draft note to the file, then read it.' },
  ];
  const conditions: ChatMessage[][] = [
    goal,
    [
      ...goal,
      { role: 'assistant', content: 'write_file(path="note")' },
      { role: 'user', content: 'Observation: TypeError: missing argument' },
    ],
    [...goal, { role: 'assistant', content: 'write_file(path="note")' }, { role: 'user', content: 'Observation: Call recorded.' }],
  ];
  const candidates = ['write_file(path="note")', 'write_file(path="note", content="the draft")', 'read_file(path="note")', 'finish()', 'w'];
  model.resetStats();
  const cached: number[][] = [];
  for (const c of conditions) cached.push((await model.scoreMany(c, candidates)).map((s) => s.logprob));
  const st = model.stats();
  assert.equal(st.nScored, conditions.length * candidates.length);
  assert.ok(st.forwardTokens < st.naiveTokens, `${st.forwardTokens} pushed vs ${st.naiveTokens} naive`);
  assert.ok(st.forwardTokens < 0.5 * st.naiveTokens, 'shared prefixes were pushed once');
  let maxDiff = 0;
  for (const [i, c] of conditions.entries()) {
    const ctx = (await model.renderPrompt(c)).tokens as Token[];
    for (const [j, cand] of candidates.entries()) {
      const toks = (await model.tokenize(cand)) as Token[];
      const fresh = await rt.lock.run(() => rt.scoreFresh(ctx, toks));
      maxDiff = Math.max(maxDiff, Math.abs(fresh - cached[i][j]));
      assert.ok(cached[i][j] < 0 && Number.isFinite(cached[i][j]));
    }
  }
  assert.ok(maxDiff <= 1e-6, `max |cached - fresh| = ${maxDiff}`);
});

test('scores do not depend on the order continuations are given in', async () => {
  const ctx = user('call the tool');
  const cands = ['the note', 'the', 'the draft', 'call', 'calling the tool', 'x'];
  const a = await model.scoreMany(ctx, cands);
  const b = (await model.scoreMany(ctx, [...cands].reverse())).reverse();
  a.forEach((s, i) => {
    assert.ok(Math.abs(s.logprob - b[i].logprob) <= 1e-6, cands[i]);
    assert.equal(s.argmaxMatches, b[i].argmaxMatches);
  });
  assert.equal(a[0].contextTokens, (await model.renderPrompt(ctx)).tokens.length);
  assert.equal(a[1].tokens, (await model.tokenize('the')).length);
});

test('Model.score returns the summed log-probability and its per-token parts', async () => {
  const s = await model.score(user('read the file'), 'the note');
  assert.equal(s.tokenLogprobs.length, s.tokens);
  assert.ok(Math.abs(s.tokenLogprobs.reduce((a, b) => a + b, 0) - s.logprob) < 1e-12);
  assert.ok(s.logprob < 0);
  assert.equal(s.underflowClamps, 0);
});

test('lm-eval tokenization splits tokens(context + continuation) at the length of tokens(context)', async () => {
  const lm = createGgufModel(`gguf:${path}?threads=1&scoreTokenization=lm-eval`);
  try {
    const text = (await lm.renderPrompt(user('hi'))).text;
    const pair = await lm.scoringTokens(text, 'the note');
    const whole = await lm.tokenize(text + 'the note', true);
    assert.deepEqual([...pair.context, ...pair.continuation], whole);
    // lm-eval moves the context's trailing whitespace (here the template's "\n\n") to the continuation.
    assert.equal(pair.context.length, (await lm.tokenize(text.trimEnd(), true)).length);
    assert.equal(await lm.detokenize(pair.continuation), '\n\nthe note');
    // The default (docs/harness.md §3.4) tokenizes the continuation alone and appends it to the full context.
    const sep = await model.scoringTokens(text, 'the note');
    assert.deepEqual(sep.context, await model.tokenize(text, true));
    assert.deepEqual(sep.continuation, await model.tokenize('the note'));
  } finally {
    await lm.close();
  }
});

test('verifyScoring re-scores on an emptied cache and agrees within 1e-3 nats; a failing check is reported', async () => {
  const sample = [
    { context: user('write the draft'), continuation: 'the note' },
    { context: user('write the draft'), continuation: 'write_file(path="x")' },
    { context: [{ role: 'system' as const, content: 'Be brief.' }, ...user('read')], continuation: 'r' },
  ];
  const report = await model.verifyScoring(sample);
  assert.equal(report.ok, true, JSON.stringify(report.rows));
  assert.equal(report.n, 3);
  assert.ok(report.maxAbsDiff <= 1e-6, `max diff ${report.maxAbsDiff}`);
  const strict = await model.verifyScoring(sample.slice(0, 1), { tolerance: -1 });
  assert.equal(strict.ok, false);
  assert.match(strict.rows[0].problem ?? '', /differ by/);
});

test('the ban never emits a banned sequence, and the unbanned greedy output contained it (fast-check)', async () => {
  // Ban lists are windows of the unbanned greedy output whose text tokenizes back to the same tokens.
  const cases = fc.record({
    words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
    starts: fc.array(fc.nat({ max: 15 }), { minLength: 1, maxLength: 3 }),
    lengths: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 3, maxLength: 3 }),
  });
  let bit = 0;
  await fc.assert(
    fc.asyncProperty(cases, async ({ words, starts, lengths }) => {
      const prompt = (await model.renderPrompt(user(words.join(' ')))).tokens;
      const free = await model.generateTokens(prompt, { maxTokens: 20 });
      const banned: string[] = [];
      for (const [k, s] of starts.entries()) {
        const window = free.tokens.slice(s, s + lengths[k]);
        if (window.length === 0) continue;
        const text = await model.detokenize(window);
        if (text.trim() !== text || text === '') continue;
        if ((await model.tokenize(text)).join() !== window.join()) continue;
        banned.push(text);
      }
      fc.pre(banned.length > 0);
      const out = await model.generateTokens(prompt, { maxTokens: 20, bannedSequences: banned });
      assert.ok(findBannedOccurrence(out.banList, free.tokens) !== null, 'the unbanned output contains a banned sequence');
      const found = findBannedOccurrence(out.banList, out.tokens);
      assert.equal(found, null, `banned ${JSON.stringify(banned)} but emitted ${JSON.stringify(found)}`);
      assert.notDeepEqual(out.tokens, free.tokens);
      assert.ok(out.nBannedMasked > 0);
      bit++;
    }),
    { seed: 20260808, numRuns: 25 },
  );
  assert.ok(bit >= 10, `only ${bit} informative cases`);
});

test('ban lists include the leading-space variant and are masked from the first step of the reply', async () => {
  const prompt = (await model.renderPrompt(user('quiet quiet read'))).tokens;
  const free = await model.generateTokens(prompt, { maxTokens: 20 });
  const first = await model.detokenize(free.tokens.slice(0, 1));
  const out = await model.generateTokens(prompt, { maxTokens: 20, bannedSequences: [first] });
  assert.notEqual(out.tokens[0], free.tokens[0], 'a one-token ban applies at the very first step');
  assert.equal(findBannedOccurrence(out.banList, out.tokens), null);
  const variants = await model.banList(['  the note ']);
  assert.deepEqual(variants, [await model.tokenize('the note'), await model.tokenize(' the note')]);
});

test('bans reach generate() through GenerateOptions.bannedSequences and are counted', async () => {
  const free = await model.generate(user('error model call'), { maxTokens: 10 });
  const prompt = (await model.renderPrompt(user('error model call'))).tokens;
  const freeTokens = (await model.generateTokens(prompt, { maxTokens: 10 })).tokens;
  const target = await model.detokenize(freeTokens.slice(0, 2));
  const banned = await model.generate(user('error model call'), { maxTokens: 10, bannedSequences: [target] });
  assert.notEqual(banned.text, free.text);
  assert.ok((banned.attempts[0].meta?.nBannedMasked as number) > 0);
  assert.equal(banned.attempts[0].meta?.banListSize, 2);
});

test('a complete-answer ban masks the end of the answer (an EOG token) after the banned text, and nothing else', async () => {
  // The tiny model answers "the" with a few tokens and then <|im_end|> (an end-of-generation token).
  const prompt = (await model.renderPrompt(user('the'))).tokens;
  const free = await model.generateTokens(prompt, { maxTokens: 30 });
  assert.equal(free.finishReason, 'stop');
  assert.ok(rt.endOfGenerationTokens().includes(free.stopToken!), 'it stopped at an end-of-generation token');
  const answer = free.text.trim();
  assert.ok(answer.length > 0);
  const out = await model.generateTokens(prompt, { maxTokens: 30, bannedAnswers: [`  ${answer}\n`] });
  // The same tokens up to the banned answer (nothing masked before it), then the answer goes on.
  assert.deepEqual(out.tokens.slice(0, free.tokens.length), free.tokens);
  assert.ok(out.tokens.length > free.tokens.length);
  assert.notEqual(out.text.trim(), answer);
  assert.ok(out.nEndsMasked >= 1);
  assert.equal(out.nBannedMasked, 0);
  // The bad-words ban of the same text forbids that extension too (its prefix effect): the draft's last token is masked.
  const words = await model.generateTokens(prompt, { maxTokens: 30, bannedSequences: [answer] });
  assert.notDeepEqual(words.tokens.slice(0, free.tokens.length), free.tokens);
  // Through generate(): counted in the attempt's meta and request.
  const g = await model.generate(user('the'), { maxTokens: 30, bannedAnswers: [answer] });
  assert.equal(g.text, out.text);
  assert.equal(g.attempts[0].meta?.nEndsMasked, out.nEndsMasked);
  assert.equal(g.attempts[0].request?.bannedAnswers, 1);
});

test('a complete-answer ban also masks extra stop tokens, and an answer never reached changes nothing', async () => {
  const prompt = (await model.renderPrompt(user('tool'))).tokens;
  const free = await model.generateTokens(prompt, { maxTokens: 12 });
  const stop = free.tokens[2];
  assert.ok(!free.tokens.slice(0, 2).includes(stop));
  const stopped = await model.generateTokens(prompt, { maxTokens: 12, stopTokenIds: [stop] });
  assert.deepEqual([stopped.tokens, stopped.stopToken], [free.tokens.slice(0, 2), stop]);
  const out = await model.generateTokens(prompt, { maxTokens: 12, stopTokenIds: [stop], bannedAnswers: [stopped.text] });
  assert.deepEqual(out.tokens.slice(0, 2), free.tokens.slice(0, 2));
  assert.ok(out.tokens.length > 2, 'the stop token was masked after the banned answer');
  assert.equal(out.nEndsMasked, 1);
  const never = await model.generateTokens(prompt, { maxTokens: 12, bannedAnswers: ['an answer it never writes'] });
  assert.deepEqual([never.tokens, never.nEndsMasked], [free.tokens, 0]);
});

test('concurrent calls are serialized on the sequence and give the sequential results', async () => {
  const prompts = ['the note', 'read the file', 'call call model'];
  const sequential = [];
  for (const p of prompts) sequential.push((await model.generate(user(p), { maxTokens: 8 })).text);
  const scoreSeq = (await model.score(user('the note'), 'write')).logprob;
  const [g1, s1, g2, g3] = await Promise.all([
    model.generate(user(prompts[0]), { maxTokens: 8 }),
    model.score(user('the note'), 'write'),
    model.generate(user(prompts[1]), { maxTokens: 8 }),
    model.generate(user(prompts[2]), { maxTokens: 8 }),
  ]);
  assert.deepEqual([g1.text, g2.text, g3.text], sequential);
  assert.ok(Math.abs(s1.logprob - scoreSeq) <= 1e-6);
});

test('too long for the context: a failed generate attempt, a ContextOverflowError when scoring', async () => {
  const r = await model.generate(user('the note'), { maxTokens: 5000 });
  assert.equal(r.text, null);
  assert.equal(r.attempts[0].ok, false);
  assert.equal(r.attempts[0].error?.kind, 'context_overflow');
  assert.match(r.attempts[0].error?.message ?? '', /contextSize/);
  await assert.rejects(model.score(user('x'), 'the '.repeat(3000)), ContextOverflowError);
});

test('per-model counters add up generation and scoring work', async () => {
  model.resetStats();
  const prompt = (await model.renderPrompt(user('the note'))).tokens;
  const g = await model.generateTokens(prompt, { maxTokens: 5 });
  await model.scoreMany(user('the note'), ['a', 'bb']);
  const st = model.stats();
  assert.equal(st.generatedTokens, g.tokens.length);
  assert.equal(st.promptTokens, prompt.length);
  assert.equal(st.nScored, 2);
  assert.equal(st.naiveTokens, 2 * prompt.length + (await model.tokenize('a')).length + (await model.tokenize('bb')).length);
  assert.ok(st.forwardTokens > 0 && st.forwardCalls > 0);
});

test('gpu=cuda loads on CUDA where it works, and is otherwise a user error with the inspect hint', async () => {
  const cuda = createGgufModel(`gguf:${path}?threads=1&gpu=cuda`);
  try {
    const loaded = await cuda.load().then(
      (r) => r,
      (e: Error) => e,
    );
    if (loaded instanceof Error) {
      assert.equal(loaded.name, 'UserError');
      assert.match(loaded.message, /could not load the cuda build/);
      assert.match(loaded.message, /npx --no node-llama-cpp inspect gpu/);
    } else {
      assert.equal(loaded.llama.gpu, 'cuda');
    }
  } finally {
    await cuda.close();
  }
});

test('a GGUF without a chat template still scores raw tokens; chat calls say how to give a template', async () => {
  const bare = createGgufModel(`gguf:${ensureTinyModel({ chatTemplate: null })}?threads=1`);
  try {
    const [s] = await bare.scoreTokens(await bare.tokenize('the note'), [await bare.tokenize(' is here')]);
    assert.ok(s.logprob < 0 && Number.isFinite(s.logprob));
    await assert.rejects(bare.renderPrompt(user('hi')), (e: Error) => e instanceof UserError && /chatTemplate=<path>/.test(e.message));
    await assert.rejects(bare.generate(user('hi'), { maxTokens: 2 }), UserError);
    assert.equal(((await bare.backendInfo()).chatTemplate as Record<string, unknown>).origin, null);
  } finally {
    await bare.close();
  }
});
