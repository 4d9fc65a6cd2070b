// The simulators' toy LM: reversible tokenizer, chat template, teacher-forced toy log-probs and the
// bad-words ban rule (docs/harness.md §6: mask only the completing token, prefix matched on generated ids).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  applyBan,
  banSequences,
  toyDetokenize,
  toyPromptLogprobs,
  toyRenderChat,
  toyTokenize,
  SPECIAL_TOKENS,
} from '../../src/models/sim/toy-lm.ts';
import { simScore } from '../../src/models/sim/model.ts';

test('tokenize/detokenize round-trips any text; ids are safe integers', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (s) => {
      const ids = toyTokenize(s);
      assert.ok(ids.every((id) => Number.isSafeInteger(id) && id >= 256));
      assert.equal(toyDetokenize(ids), s);
    }),
    { numRuns: 300 },
  );
  assert.deepEqual(
    toyTokenize('Hi there').map((id) => toyDetokenize([id])),
    ['Hi', ' there'],
  );
  assert.deepEqual(
    toyTokenize(' extraordinary').map((id) => toyDetokenize([id])),
    [' extra', 'ordina', 'ry'],
  );
});

test('special tokens are parsed only when asked; the chat template is the documented one', () => {
  const rendered = toyRenderChat([{ role: 'user', content: 'Hello' }], { addGenerationPrompt: true });
  assert.equal(rendered, '<|user|>\nHello<|end|>\n<|assistant|>\n');
  const ids = toyTokenize(rendered, { special: true });
  assert.equal(ids[0], SPECIAL_TOKENS['<|user|>']);
  assert.ok(ids.includes(SPECIAL_TOKENS['<|end|>']));
  assert.equal(toyDetokenize(ids), rendered);
  assert.ok(!toyTokenize(rendered).includes(SPECIAL_TOKENS['<|user|>']));
  assert.equal(
    toyRenderChat(
      [
        { role: 'user', content: 'Q' },
        { role: 'assistant', content: 'A partial' },
      ],
      { continueFinalMessage: true },
    ),
    '<|user|>\nQ<|end|>\n<|assistant|>\nA partial',
  );
  assert.deepEqual(toyTokenize('x', { addBos: true })[0], 1);
});

test('toy log-probs: finite, ≤ −0.25, rank 1 exactly for the copy-rule token, deterministic', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', ' b', ' c', 'send(', 'x)', ' the'), { minLength: 2, maxLength: 40 }), (pieces) => {
      const ids = toyTokenize(pieces.join(''));
      const lp = toyPromptLogprobs(ids, 1);
      assert.equal(lp.length, ids.length - 1);
      for (const p of lp) {
        assert.ok(Number.isFinite(p.logprob) && p.logprob <= -0.25);
        assert.equal(p.rank === 1, p.token === p.greedy);
      }
      assert.deepEqual(toyPromptLogprobs(ids, 1), lp);
    }),
    { numRuns: 200 },
  );
});

test("copying from the context raises a continuation's toy score (so probes see an effect)", () => {
  const pre = [{ role: 'user' as const, content: 'Goal: send the report.' }];
  const fail = [
    ...pre,
    { role: 'assistant' as const, content: 'send_mail(to=bob)' },
    { role: 'user' as const, content: 'Observation: NameError' },
  ];
  const a = simScore(pre, 'send_mail(to=bob)');
  const b = simScore(fail, 'send_mail(to=bob)');
  assert.equal(a.tokens, b.tokens);
  assert.ok(b.logprob > a.logprob, `${b.logprob} > ${a.logprob}`);
  assert.equal(
    a.logprob,
    a.tokenLogprobs.reduce((s, x) => s + x, 0),
  );
  assert.equal(a.contextTokens, toyTokenize(toyRenderChat(pre, { addGenerationPrompt: true }), { special: true }).length);
});

test('the ban never lets a banned sequence complete, and masks only when one would', () => {
  const word = fc.constantFrom('send', 'mail', '(', ')', 'to', '=', 'bob', 'alice', ' ', '_', 'Send');
  fc.assert(
    fc.property(
      fc.array(word, { minLength: 1, maxLength: 30 }),
      fc.array(fc.array(word, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
      (textParts, banParts) => {
        const text = textParts.join('');
        const bans = banParts.map((p) => p.join('').trim()).filter(Boolean);
        const seqs = banSequences(bans);
        const { ids, masked } = applyBan(toyTokenize(text), seqs);
        // No banned sequence completes anywhere in the output ids.
        for (const s of seqs) {
          for (let end = s.length - 1; end < ids.length; end++) {
            const window = ids.slice(end - s.length + 1, end + 1);
            assert.notDeepEqual(window, s, `banned ${JSON.stringify(toyDetokenize(s))} completed in ${JSON.stringify(toyDetokenize(ids))}`);
          }
        }
        if (masked === 0) assert.equal(toyDetokenize(ids), text);
      },
    ),
    { numRuns: 300 },
  );
  const { ids, masked } = applyBan(toyTokenize('call send_mail(to=bob) now'), banSequences(['send_mail(to=bob)']));
  assert.equal(masked, 1);
  // Only the completing token (")") is masked; the prefix stays reachable.
  assert.equal(toyDetokenize(ids), 'call send_mail(to=bob_ now');
  const single = applyBan(toyTokenize('we send mail'), banSequences(['mail']));
  assert.equal(toyDetokenize(single.ids), 'we send MAIL');
});
