// The revision-loop side of the harness layer: recurrence and cycle rules (the paper's terminal
// classes applied online), window restarts without replays, message policies (verbatim is the
// paper's builder byte for byte), named policies, and FailureLedger under a named agent harness.
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AGENT_HARNESSES, buildAgentMessages, FailureLedger } from '../../src/remedy/index.ts';
import {
  buildHistoryMessages,
  buildRevisionMessages,
  cycleAt,
  draftKey,
  messageRulesOf,
  normaliseDraft,
  policyPreset,
  recurrenceOf,
  windowStart,
  type AgentStep,
  type AttemptShape,
  type HistoryWindow,
  type RevisionExchange,
} from '@revloop/revise';

const shape = (key: string, violations: string[] = ['v0'], measure = 1): AttemptShape => ({ key, violations, measure });
const ex = (i: number, draft: string, violations: string[] = ['v0'], measure = 1): RevisionExchange => ({
  revision: i,
  draft,
  feedback: `report on ${draft}`,
  ...shape(draftKey(draft, 'exact'), violations, measure),
});

test('cycles: fixed point needs three equal drafts, period-p cycles 2p rounds with two distinct, repeated violations three equal reports', () => {
  const s = (keys: string) => [...keys].map((k, i) => shape(k, ['v0'], i));
  assert.equal(cycleAt(s('aa'), 1), null);
  assert.deepEqual(cycleAt(s('aaa'), 2), { kind: 'fixed-point', period: 1, attempt: 2 });
  assert.equal(cycleAt(s('aba'), 2), null, 'one return is a recurrence, not yet a cycle');
  assert.deepEqual(cycleAt(s('abab'), 3), { kind: 'cycle', period: 2, attempt: 3 });
  assert.deepEqual(cycleAt(s('xabcabc'), 6), { kind: 'cycle', period: 3, attempt: 6 });
  assert.equal(cycleAt(s('abcd'), 3), null);
  // The same violations by the same measure three times while the drafts change.
  const stall = [shape('a', ['len'], 4), shape('b', ['len'], 4), shape('c', ['len'], 4)];
  assert.deepEqual(cycleAt(stall, 2), { kind: 'repeated-violations', period: 3, attempt: 2 });
  assert.equal(cycleAt([shape('a', ['len'], 5), shape('b', ['len'], 4), shape('c', ['len'], 3)], 2), null, 'converging is not a stall');
  assert.equal(recurrenceOf(['a', 'b', 'a'], 2), 0);
  assert.equal(recurrenceOf(['a', 'b', 'c'], 2), null);
  assert.equal(normaliseDraft('  A\u0301  b\n\tc ', 'whitespace'), '\u00c1 b c');
  assert.equal(normaliseDraft('  a  b ', 'exact'), 'a  b');
});

test('reset-on-recurrence restarts at the repeat, but never to replay an earlier request', () => {
  const p = messageRulesOf(policyPreset('reset-on-recurrence'));
  assert.equal(windowStart([ex(0, 'a'), ex(1, 'b'), ex(2, 'c'), ex(3, 'b')], p), 3);
  assert.equal(windowStart([ex(0, 'a'), ex(1, 'b'), ex(2, 'a')], p), 0, 'a repeat of the first draft would replay request 1');
  // After a restart at d3 = d1, a later repeat of d1 would replay the request after the restart.
  assert.equal(windowStart([ex(0, 'a'), ex(1, 'b'), ex(2, 'c'), ex(3, 'b'), ex(4, 'd'), ex(5, 'b')], p), 3);
  const msgs = buildRevisionMessages([{ role: 'user', content: 'P' }], [ex(0, 'a'), ex(1, 'b'), ex(2, 'c'), ex(3, 'b')], p);
  assert.deepEqual(msgs, [
    { role: 'user', content: 'P' },
    { role: 'assistant', content: 'b' },
    { role: 'user', content: 'report on b' },
  ]);
});

test('verbatim revision messages are the paper builder byte for byte under every window; abstract and drop never send a draft', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string(), { maxLength: 8 }),
      fc.oneof(
        fc.constant('full'),
        fc.constant('reset'),
        fc.nat(4).map((k) => `last:${k}`),
      ),
      (drafts, w) => {
        const window = (
          w === 'full' ? { kind: 'full' } : w === 'reset' ? { kind: 'reset' } : { kind: 'last', k: Number(w.slice(5)) }
        ) as HistoryWindow;
        const exchanges = drafts.map((d, i) => ex(i, d));
        const paper = buildHistoryMessages('P', exchanges, window);
        const mine = buildRevisionMessages([{ role: 'user', content: 'P' }], exchanges, {
          feedback: 'verbatim',
          window,
          resetOnRecurrence: false,
          resetOnCycle: false,
        });
        assert.equal(JSON.stringify(mine), JSON.stringify(paper));
      },
    ),
  );
  const exchanges = [ex(0, 'first failed draft'), ex(1, 'second failed draft')];
  const abstract = buildRevisionMessages([{ role: 'user', content: 'P' }], exchanges, messageRulesOf(policyPreset('abstract')));
  assert.equal(abstract.length, 2);
  assert.equal(
    abstract[1].content,
    '[attempt 1 failed; that draft is not repeatable]\nreport on first failed draft\n\n[attempt 2 failed; that draft is not repeatable]\nreport on second failed draft',
  );
  const drop = buildRevisionMessages([{ role: 'user', content: 'P' }], exchanges, messageRulesOf(policyPreset('drop')));
  assert.deepEqual(drop, [{ role: 'user', content: 'P' }]);
  assert.throws(() => policyPreset('bogus'), /unknown policy 'bogus'/);
});

test('FailureLedger under a named agent harness builds exactly the agent study messages and bans', () => {
  const steps: AgentStep[] = [
    { action: "read_file(path='x')", observation: 'LookupError: no file', ok: false, errorType: 'file_not_found', tool: 'read_file' },
    { action: "list_files(folder='notes')", observation: "['notes/a.md']", ok: true, errorType: null, tool: 'list_files' },
  ];
  for (const [name, h] of Object.entries(AGENT_HARNESSES)) {
    const ledger = new FailureLedger({ harness: h.name });
    for (const s of steps) ledger.record(s);
    assert.deepEqual(ledger.messages('SYS', 'GOAL'), buildAgentMessages('SYS', 'GOAL', steps, h.messages), name);
    assert.equal(ledger.ban, h.ban, name);
  }
});
