import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTrajectory, type AcceptedRound, type TrajectoryOutcome, type TrajectorySink } from '../../src/engine/loop.ts';
import { OutcomeTally } from '../../src/engine/outcome-tally.ts';
import { buildHistoryMessages, parseHistoryWindow, selectExchanges } from '../../src/remedy/history-window.ts';
import { PAPER_PROTOCOL, protocolName, type ProtocolConfig } from '../../src/engine/protocol.ts';
import type { ConstraintCase, Family } from '../../src/core/verify/types.ts';
import { fakeModel, scriptedModel as scripted, toyFamily } from './fakes.ts';

const family = toyFamily as unknown as Family;
const toyCase: ConstraintCase = { id: 'c1', family: 'toy', source: 's', instruction: 'Say hi.', target: 4 };

function collect(): TrajectorySink & { log: string[]; rounds: AcceptedRound[] } {
  const log: string[] = [];
  const rounds: AcceptedRound[] = [];
  return {
    log,
    rounds,
    attemptStarted: (s) => log.push(`start r${s.revision} m${s.messageCount}`),
    attemptFinished: (r, a, rec) => log.push(`finish r${r} a${a} ${rec.ok ? 'ok' : 'fail'}`),
    draftAccepted: (round, stop, attempt, next) => {
      rounds.push(round);
      log.push(`finish r${round.revision} a${attempt.attempt} ok`, `draft r${round.revision}${stop ? ' ' + stop : ''}`);
      if (next) log.push(`start r${next.revision} m${next.messageCount}`);
    },
    incomplete: (r, reason) => log.push(`incomplete r${r}: ${reason}`),
  };
}

const protocol = (p: Partial<ProtocolConfig> = {}): ProtocolConfig => ({ ...PAPER_PROTOCOL, ...p });

test('full history: one user prompt, then stripped drafts and reports, no system message', async () => {
  const model = scripted(['  one two  ', '\none two three four five\n', 'a b c d']);
  const sink = collect();
  const out = await runTrajectory({ caseIndex: 0, case: toyCase, family, prior: [] }, model, sink, { protocol: protocol() });
  assert.equal(out.status, 'complete');
  const P = 'Say hi.\n\nWrite exactly 4 words.';
  const F0 = 'VERIFIER: 2 words; target 4; add exactly 2 words.';
  const F1 = 'VERIFIER: 5 words; target 4; remove exactly 1 words.';
  assert.deepEqual(model.seen, [
    [{ role: 'user', content: P }],
    [
      { role: 'user', content: P },
      { role: 'assistant', content: 'one two' },
      { role: 'user', content: F0 },
    ],
    [
      { role: 'user', content: P },
      { role: 'assistant', content: 'one two' },
      { role: 'user', content: F0 },
      { role: 'assistant', content: 'one two three four five' },
      { role: 'user', content: F1 },
    ],
  ]);
  assert.deepEqual(sink.log, [
    'start r0 m1',
    'finish r0 a1 ok',
    'draft r0',
    'start r1 m3',
    'finish r1 a1 ok',
    'draft r1',
    'start r2 m5',
    'finish r2 a1 ok',
    'draft r2 success',
  ]);
  assert.equal(sink.rounds[2].feedback, null);
  assert.equal(sink.rounds[0].feedback, F0);
  // Greedy by default, max tokens from the family.
  assert.equal(model.options[0].temperature, 0);
  assert.equal(model.options[0].maxTokens, 16);
});

test('stop rule: at most T+1 generations when never solved; T = 0 means one draft', async () => {
  for (const budget of [0, 1, 3, 8]) {
    const model = scripted(Array(20).fill('x'));
    const sink = collect();
    const out = await runTrajectory({ caseIndex: 0, case: toyCase, family, prior: [] }, model, sink, { protocol: protocol({ budget }) });
    assert.equal(out.status, 'complete');
    assert.equal(model.seen.length, budget + 1, `budget ${budget}`);
    assert.deepEqual(out.status === 'complete' && out.stop, 'budget');
    assert.equal(sink.rounds.at(-1)!.feedback, null);
  }
});

test('stop rule: success on the first draft stops at once', async () => {
  const model = scripted(['a b c d', 'never']);
  const out = await runTrajectory({ caseIndex: 0, case: toyCase, family, prior: [] }, model, collect(), { protocol: protocol() });
  assert.equal(model.seen.length, 1);
  assert.equal(out.status === 'complete' && out.stop, 'success');
});

test('history policies: last:K keeps the last K+1 exchanges, reset the current one, every round', async () => {
  const drafts = ['a', 'a b', 'a b c', 'a b c d e', 'a b c d e f'];
  for (const [spec, keep] of [
    ['full', Infinity],
    ['last:1', 2],
    ['last:0', 1],
    ['reset', 1],
    ['last:2', 3],
  ] as const) {
    const model = scripted(drafts);
    await runTrajectory({ caseIndex: 0, case: toyCase, family, prior: [] }, model, collect(), {
      protocol: protocol({ history: parseHistoryWindow(spec), budget: 4 }),
    });
    assert.equal(model.seen.length, 5);
    model.seen.forEach((msgs, r) => {
      const kept = Math.min(r, keep);
      assert.equal(msgs.length, 1 + 2 * kept, `${spec} round ${r}`);
      assert.equal(msgs[0].content, 'Say hi.\n\nWrite exactly 4 words.');
      assert.ok(msgs.every((m) => m.role !== 'system'));
      // The kept exchanges are the most recent ones, in order, ending with the current draft.
      for (let j = 0; j < kept; j++) assert.equal(msgs[1 + 2 * j].content, drafts[r - kept + j]);
    });
  }
  assert.equal(protocolName({ ...PAPER_PROTOCOL, history: parseHistoryWindow('last:1') }), 'paper+history=last:1');
  assert.equal(protocolName(PAPER_PROTOCOL), 'paper');
});

test('history helpers: tail_1 is U0 + last two exchanges (5 messages), reset is 3', () => {
  const ex = [0, 1, 2, 3].map((i) => ({ revision: i, draft: `d${i}`, feedback: `f${i}` }));
  const tail1 = buildHistoryMessages('U0', ex, { kind: 'last', k: 1 });
  assert.deepEqual(
    tail1.map((m) => m.content),
    ['U0', 'd2', 'f2', 'd3', 'f3'],
  );
  assert.deepEqual(
    buildHistoryMessages('U0', ex, { kind: 'reset' }).map((m) => m.content),
    ['U0', 'd3', 'f3'],
  );
  assert.equal(buildHistoryMessages('U0', ex, { kind: 'full' }).length, 9);
  assert.deepEqual(selectExchanges([1, 2], { kind: 'last', k: 5 }), [1, 2]);
  assert.throws(() => parseHistoryWindow('tail'), /unknown history policy/);
});

test('provider faults: attempts recorded, never scored, trajectory protocol-incomplete with the reason', async () => {
  const model = fakeModel({ faults: (_m, call) => (call === 1 ? 99 : call === 0 ? 2 : 0), attempts: 3 });
  const sink = collect();
  const out = await runTrajectory({ caseIndex: 0, case: { ...toyCase, target: 40 }, family, prior: [] }, model, sink, {
    protocol: protocol(),
  });
  assert.equal(out.status, 'incomplete');
  assert.equal(sink.rounds.length, 1, 'only the successful generation became a draft');
  assert.deepEqual(sink.log.slice(0, 4), ['start r0 m1', 'finish r0 a1 fail', 'finish r0 a2 fail', 'finish r0 a3 ok']);
  assert.match(
    sink.log.at(-1)!,
    /^incomplete r1: revision 1: provider attempts exhausted \(3 attempts\); last error: http: HTTP 503 from fake$/,
  );
});

test('resume: a trajectory continues from its accepted rounds with the same history', async () => {
  const full = scripted(['a', 'a b', 'a b c', 'a b c d']);
  const sinkA = collect();
  await runTrajectory({ caseIndex: 0, case: toyCase, family, prior: [] }, full, sinkA, { protocol: protocol() });
  const resumed = scripted(['a b c', 'a b c d']);
  const sinkB = collect();
  await runTrajectory({ caseIndex: 0, case: toyCase, family, prior: sinkA.rounds.slice(0, 2) }, resumed, sinkB, { protocol: protocol() });
  assert.deepEqual(resumed.seen, full.seen.slice(2));
  assert.deepEqual(sinkB.rounds, sinkA.rounds.slice(2));
});

test('hooks: a message policy replaces the history and a ban provider feeds bannedSequences', async () => {
  const model = scripted(['a', 'a b', 'a b c d']);
  await runTrajectory({ caseIndex: 0, case: toyCase, family, prior: [] }, model, collect(), {
    protocol: protocol(),
    messagePolicy: {
      name: 'abstract-test',
      build: (ctx) => [
        { role: 'user', content: ctx.initialPrompt },
        ...ctx.exchanges.map((e) => ({ role: 'user' as const, content: `[attempt ${e.revision + 1} failed]` })),
      ],
    },
    banProvider: { name: 'ban-failed', sequences: (ctx) => ctx.exchanges.map((e) => e.draft) },
  });
  assert.deepEqual(
    model.seen[2].map((m) => m.content),
    ['Say hi.\n\nWrite exactly 4 words.', '[attempt 1 failed]', '[attempt 2 failed]'],
  );
  assert.equal(model.options[0].bannedSequences, undefined);
  assert.deepEqual(model.options[2].bannedSequences, ['a', 'a b']);
});

test('abort: an aborted generation writes nothing more', async () => {
  const ac = new AbortController();
  const model = fakeModel({ delayMs: 50 });
  const sink = collect();
  const p = runTrajectory({ caseIndex: 0, case: toyCase, family, prior: [] }, model, sink, { protocol: protocol(), signal: ac.signal });
  setTimeout(() => ac.abort(), 10);
  const out = await p;
  assert.equal(out.status, 'aborted');
  assert.deepEqual(sink.log, ['start r0 m1']);
});

test('outcome tally: counts finished trajectories; stops after N protocol-incomplete in a row, a complete one resets the streak', () => {
  const round = (joint: boolean): AcceptedRound => ({
    revision: 0,
    text: 't',
    state: { joint_success: joint, violation_vector: joint ? [] : [1] },
    energy: joint ? 0 : 1,
    joint,
    feedback: null,
  });
  const solved: TrajectoryOutcome = { status: 'complete', rounds: [round(true)], stop: 'success' };
  const unsolved: TrajectoryOutcome = { status: 'complete', rounds: [round(false)], stop: 'budget' };
  const failed = (reason: string): TrajectoryOutcome => ({ status: 'incomplete', rounds: [], reason });
  const aborted: TrajectoryOutcome = { status: 'aborted', rounds: [] };

  const counts = { done: 0, successes: 0, incomplete: 0 };
  const tally = new OutcomeTally(counts, 3);
  const stops = [
    failed('a'),
    failed('b'),
    solved,
    failed('c'),
    failed('d'),
    unsolved,
    failed('e'),
    aborted,
    failed('f'),
    failed('g'),
    failed('h'),
  ].map((o) => tally.count(o));
  // Only the third and fourth failures in a row (g, h) stop: the abort between e and f is not
  // counted and does not break the streak.
  assert.deepEqual(
    stops.map((s) => s?.reason ?? null),
    [null, null, null, null, null, null, null, null, null, 'provider-failures', 'provider-failures'],
  );
  assert.equal(stops[9]!.message, '3 trajectories in a row ended protocol-incomplete (last: g); stopped to spare the provider');
  assert.equal(stops[10]!.message, '4 trajectories in a row ended protocol-incomplete (last: h); stopped to spare the provider');
  assert.deepEqual(counts, { done: 10, successes: 1, incomplete: 8 });

  // 0: never stop.
  const never = new OutcomeTally({ done: 0, successes: 0, incomplete: 0 }, 0);
  assert.ok(Array.from({ length: 50 }, () => never.count(failed('x'))).every((s) => s === null));
});
