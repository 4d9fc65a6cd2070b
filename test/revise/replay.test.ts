// Truncating policies replayed on recorded trajectories (compare-policies --replay): the cut rules
// in the engine's order, a replayed smaller budget equal to a live run at that budget, the
// comparison's pairing, and the CLI (including the real COLLIE log when ../shared has it).
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { keptRounds, parseTruncation, replayTruncations } from '../../src/revise/replay.ts';
import { renderComparison } from '../../src/revise/compare.ts';
import { runCases } from '../../src/app/run.ts';
import { replayPolicies } from '../../src/app/compare-policies.ts';
import { openStore } from '../../src/store/store.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases, structuredDemoCases } from '../../src/app/demo/cases.ts';
import type { TrajectoryRecord } from '../../src/store/types.ts';
import type { VerifierState } from '../../src/core/verify/types.ts';
import { requireShared } from '../helpers.ts';
import { tempDir } from '../store/toy-run.ts';

const root = join(import.meta.dirname, '../..');

function trajectory(texts: string[], joint: boolean[], budget = 8): TrajectoryRecord {
  const state = (ok: boolean) => ({ joint_success: ok, violation_vector: [ok ? 0 : 1] }) as unknown as VerifierState;
  return {
    runId: 'r',
    caseIndex: 0,
    caseId: 'c',
    controller: 'm',
    simulated: false,
    family: 'exact-length',
    source: 's',
    case: {} as TrajectoryRecord['case'],
    // Energies all different: no repeated violation set, so only the drafts make cycles here.
    rounds: texts.map((text, revision) => ({
      revision,
      text,
      state: state(joint[revision]),
      energy: joint[revision] ? 0 : revision + 1,
      joint: joint[revision],
    })),
    status: 'complete',
    budget,
  };
}

test('the cut rules: success first, then the budget, then a cycle or a recurrence', () => {
  const f = [false, false, false, false, false];
  // a b a b c: a recurrence at 2, a period-2 cycle at 3 (a b a b).
  const t = trajectory(['a', 'b', 'a', 'b', 'c'], f);
  assert.equal(keptRounds(t, {}), 5);
  assert.equal(keptRounds(t, { budget: 1 }), 2);
  assert.equal(keptRounds(t, { recurrence: true }), 3);
  assert.equal(keptRounds(t, { cycle: true }), 4);
  assert.equal(keptRounds(t, { cycle: true, budget: 2 }), 3);
  // A fixed point (three equal drafts) is a cycle at its third draft.
  assert.equal(keptRounds(trajectory(['x', 'x', 'x', 'y'], f), { cycle: true }), 3);
  // Success wins over everything at the same draft, and nothing after it is kept anyway.
  assert.equal(keptRounds(trajectory(['a', 'a', 'b'], [false, true, false]), { recurrence: true }), 2);
  assert.deepEqual(parseTruncation('on-cycle=stop+budget=4'), { cycle: true, budget: 4 });
  assert.deepEqual(parseTruncation('stop=recurrence'), { recurrence: true });
  assert.throws(() => parseTruncation('on-cycle=reset'), /use budget=T, on-cycle=stop or stop=recurrence/);
  assert.throws(() => parseTruncation('budget=1+budget=2'), /each once/);
});

test('a replayed smaller budget gives exactly what a live run at that budget gives; the comparison pairs cases', async () => {
  const dir = tempDir();
  try {
    const cases = join(dir, 'cases.jsonl');
    await writeCaseSet(cases, [...exactLengthDemoCases().slice(0, 8), ...structuredDemoCases().slice(0, 4)]);
    const store = join(dir, 'runs.db');
    await runCases({ cases, model: 'sim:overshoot', store, runId: 'full', budget: 6 });
    await runCases({ cases, model: 'sim:overshoot', store, runId: 'short', budget: 2 });
    const s = await openStore(store, { readonly: true });
    try {
      const c = await replayTruncations(s, 'full', ['budget=2', 'on-cycle=stop', 'stop=recurrence']);
      assert.equal(c.replay_of, 'full');
      assert.deepEqual(
        c.rows.map((r) => r.policy),
        ['as recorded (paper)', 'budget=2', 'on-cycle=stop', 'stop=recurrence'],
      );
      const live = await s.loadTrajectories(['short']);
      const liveSuccess = live.filter((t) => t.rounds.at(-1)!.joint).length;
      const liveRounds = live.reduce((n, t) => n + t.rounds.length, 0);
      assert.deepEqual([c.rows[1].successes, c.rows[1].generations], [liveSuccess, liveRounds]);
      // Tokens of the kept revisions only: the live run's own usage.
      const used = (await s.readEvents('short', { types: ['attempt_finished'] })).reduce(
        (n, e) => n + (e.type === 'attempt_finished' ? (e.payload.record.usage?.promptTokens ?? 0) : 0),
        0,
      );
      assert.equal(c.rows[1].prompt_tokens, used);
      // A truncation can only lose successes against the recording; no seeds, so no bootstrap over cases.
      for (const r of c.rows.slice(1)) {
        assert.equal(r.paired!.difference_by_case_low, null);
        assert.equal(r.paired!.c, 0);
        assert.equal(r.paired!.b, c.rows[0].successes - r.successes);
        assert.ok(r.generations <= c.rows[0].generations);
      }
      await assert.rejects(replayTruncations(s, 'full', ['budget=6']), /not a truncation: the run's budget is 6/);
      await assert.rejects(replayTruncations(s, 'nope', ['budget=1']), /no revision run 'nope'/);
      const text = renderComparison(c);
      assert.match(text, /^\[SIMULATED\] policies replayed on the recorded trajectories of run full/);
      assert.ok(text.split('\n').every((l) => [...l].length <= 80));
    } finally {
      await s.close();
    }
    // Default truncations: every smaller budget, then the two stop rules.
    const d = await replayPolicies({ store, runId: 'short' });
    assert.deepEqual(
      d.rows.map((r) => r.policy),
      ['as recorded (paper)', 'budget=0', 'budget=1', 'on-cycle=stop', 'stop=recurrence'],
    );
    // The CLI: the options that choose what to run are refused with --replay.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'bin/revloop.mjs'), 'compare-policies', '--store', store, ...args], { encoding: 'utf8' });
    const ok = cli('--replay', 'full', '--truncations', 'budget=1,on-cycle=stop', '--json');
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).rows.length, 3);
    const bad = cli('--replay', 'full', '--policies', 'verbatim');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--policies chooses what to run; --replay runs nothing/);
    const missing = cli('--model', 'sim:steady');
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /--cases <file> is required \(or --replay RUN/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const log = requireShared('collie-logs', 'gpt-3.5-turbo-multi-round-generation-1trial.json');

test(
  'the real gpt-3.5-turbo COLLIE log: budget 0 loses 40 of 346 successes, budget 1 one; the stop rules find nothing to cut',
  { skip: log.skip },
  () => {
    const dir = tempDir();
    try {
      const store = join(dir, 'collie.db');
      const cli = (...args: string[]) => spawnSync(process.execPath, [join(root, 'bin/revloop.mjs'), ...args], { encoding: 'utf8' });
      const imp = cli('import-trajectories', log.path!, '--from', 'collie-log', '--store', store, '--run-id', 'gpt35');
      assert.equal(imp.status, 0, imp.stderr);
      const out = cli('compare-policies', '--replay', 'gpt35', '--store', store, '--json');
      assert.equal(out.status, 0, out.stderr);
      const c = JSON.parse(out.stdout);
      assert.equal(c.simulated, false);
      const row = (name: string) => c.rows.find((r: { policy: string }) => r.policy === name);
      assert.deepEqual(
        [row('as recorded (imported)').successes, row('as recorded (imported)').n, row('as recorded (imported)').generations],
        [346, 1435, 2663],
      );
      assert.deepEqual([row('budget=0').successes, row('budget=0').generations, row('budget=0').paired.b], [306, 1435, 40]);
      assert.deepEqual([row('budget=1').successes, row('budget=1').generations], [345, 2564]);
      for (const name of ['on-cycle=stop', 'stop=recurrence']) assert.deepEqual([row(name).successes, row(name).generations], [346, 2663]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
