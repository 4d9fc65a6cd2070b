// Probe tables in the run store: insert-only scores, one content per item id, sessions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ProbeStore, defaultProbeRunId, earlierProbeRunId } from '../../src/studies/probe/probe-store.ts';
import { defaultAgentRunId } from '../../src/studies/agent/agent-store.ts';
import { probeCommand } from '../../src/app/probe.ts';
import Database from 'better-sqlite3';
import { openStore } from '../../src/store/store.ts';
import { shortItems } from './fixtures.ts';
import { tempDir } from '../tmp.ts';

const dir = tempDir('revloop-probe-store-');

test('scores are insert-only; a key is written once; items cannot change under the same id', async () => {
  const path = join(dir, 's.db');
  const s = await ProbeStore.open(path);
  await s.openRun('p', 'toolshed', { spec: 'm', label: 'm', capabilities: { simulated: false } });
  const items = shortItems();
  await s.addItems('p', items, 'a.jsonl');
  await s.addItems('p', items, 'a.jsonl'); // same content: fine
  await assert.rejects(s.addItems('p', [{ ...items[0], goal: 'something else' }], 'b.jsonl'), /differs from the item of the same id/);
  const session = await s.startSession('p', { conditions: ['pre'], itemsSource: 'a', itemsSha256: 'x', nItems: 2, backend: {} });
  const row = {
    item_id: items[0].item_id,
    condition: 'pre' as const,
    candidate: 'failed' as const,
    logprob: -3,
    n_tokens: 4,
    n_argmax_match: 1,
    is_greedy: false,
    ctx_tokens: 9,
  };
  assert.equal(await s.insertScores('p', session, [row]), 1);
  assert.equal(await s.insertScores('p', session, [{ ...row, logprob: -1 }]), 0);
  assert.equal((await s.scores('p'))[0].logprob, -3);
  // Scores are events of the run's append-only log.
  const db = new Database(path);
  assert.throws(() => db.prepare("UPDATE events SET payload = '{}' WHERE run_id = 'p' AND type = 'record'").run(), /append-only/);
  assert.throws(() => db.prepare("DELETE FROM events WHERE run_id = 'p'").run(), /append-only/);
  db.close();
  await s.endSession('p', session, {
    status: 'complete',
    nScored: 1,
    nUnavailable: 0,
    counters: { forwardTokens: 5, forwardCalls: 1, naiveTokens: 13 },
    seconds: 0.1,
  });
  assert.equal((await s.sessions('p'))[0].finished?.status, 'complete');
  await assert.rejects(
    s.openRun('p', 'coderepair', { spec: 'm', label: 'm', capabilities: { simulated: false } }),
    /run 'p' exists with a different plan[\s\S]*settings\.env: stored "toolshed", requested "coderepair"/,
  );
  await assert.rejects(
    s.openRun('p', 'toolshed', { spec: 'other', label: 'm', capabilities: { simulated: false } }),
    /controller\.spec: stored "m", requested "other"/,
  );
  await s.close();
  // The probe run is a run of the one store, listed with the others; a revision-only reader sees no trajectories in it.
  const rs = await openStore(path, { readonly: true });
  assert.deepEqual(await rs.runIds(), ['p']);
  assert.deepEqual(await rs.loadTrajectories(['p']), []);
  await rs.close();
  const empty = join(dir, 'e.db');
  await (await openStore(empty)).close();
  const ro = await ProbeStore.open(empty, { readonly: true });
  assert.deepEqual(await ro.listRuns(), []);
  await ro.close();
});

test('default run ids are readable and stable, without the simulation mark', () => {
  assert.equal(defaultProbeRunId('toolshed', 'qwen2.5-0.5b-instruct-f16'), 'probe-toolshed-qwen2.5-0.5b-instruct-f16');
  assert.equal(defaultProbeRunId('toolshed', 'sim:steady [simulated]'), 'probe-toolshed-sim-steady');
  assert.equal(earlierProbeRunId('toolshed', 'sim:steady [simulated]'), 'probe-toolshed-sim-steady-sim');
  assert.equal(
    defaultAgentRunId('toolshed', 'sim:steady [simulated]', 'abstract+ban', 0, 7),
    'agent-toolshed-sim-steady-abstract-ban-t0-s7',
  );
});

test('the same probe command resumes a run under the id an earlier version gave it', async () => {
  const dir = tempDir('revloop-probe-earlier-');
  const db = join(dir, 'runs.db');
  const items = { build: 2 } as const;
  // What an earlier version created: the run under its old default id.
  await probeCommand({ model: 'sim:steady', items, conditions: ['pre'], store: db, runId: 'probe-toolshed-sim-steady-sim' });
  const again = await probeCommand({ model: 'sim:steady', items, conditions: ['pre', 'fail'], store: db });
  assert.equal(again.runId, 'probe-toolshed-sim-steady-sim');
  const s = await openStore(db, { readonly: true });
  assert.deepEqual(await s.runIds(), ['probe-toolshed-sim-steady-sim']);
  await s.close();
  // A new store gets the new id.
  const fresh = await probeCommand({ model: 'sim:steady', items, conditions: ['pre'], store: join(dir, 'new.db') });
  assert.equal(fresh.runId, 'probe-toolshed-sim-steady');
});
