// `revloop runs` lists revision, probe and agent runs of one store: as a user runs it (the bin,
// simulated controllers, text and JSON), and the status rules of probe and agent runs on stores
// written through their own store classes (a live lock, a killed session, a failed one, unstored tasks).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { ProbeStore } from '../../src/studies/probe/probe-store.ts';
import { AgentStore } from '../../src/studies/agent/agent-store.ts';
import type { RolloutRecord } from '../../src/studies/agent/engine.ts';
import { openStore } from '../../src/store/store.ts';
import { runsAction } from '../../src/cli/commands/runs.ts';
import Database from 'better-sqlite3';

/** Entries of `runs --json`: every kind has runId, kind, status, controller and simulated. */
type RunListEntry = { runId: string; kind: string; status: string; controller: string; simulated: boolean } & Record<string, unknown>;
type ProbeRunSummary = RunListEntry & { items: number; scores: number; conditions: string[]; sessions: number };
type AgentRunSummary = RunListEntry & {
  tasks: number;
  done: number;
  solved: number;
  failed: number;
  harness: string;
  settings: Record<string, number>;
};
import { shortItems } from '../probe/fixtures.ts';
import { tempDir } from '../tmp.ts';

const BIN = fileURLToPath(new URL('../../bin/revloop.mjs', import.meta.url));
const dir = tempDir('revloop-runs-');

function revloop(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function list(path: string): Promise<RunListEntry[]> {
  let text = '';
  await runsAction({ store: path, json: true }, { write: (s: string) => (text += s) });
  return JSON.parse(text) as RunListEntry[];
}

/** The table row of a run (the line holding its id), split into trimmed cells. */
function row(out: string, runId: string): string[] {
  const line = out.split('\n').find((l) => l.startsWith(`│ ${runId} `));
  assert.ok(line, `a row for ${runId} in:\n${out}`);
  return line
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());
}

test('one store with revision, probe and agent runs: three tables, SIMULATED marked, and one JSON list with kinds', async () => {
  const db = join(dir, 'all.db');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases().slice(0, 3));
  for (const args of [
    ['run', '--cases', cases, '--model', 'sim:steady', '--store', db, '--run', 'rev'],
    ['probe', '--model', 'sim:steady', '--build', '2', '--store', db, '--run', 'pr', '--no-progress'],
    [
      'agent',
      '--model',
      'sim:steady',
      '--harness',
      'verbatim,abstract+ban',
      '--tasks',
      '2',
      '--max-steps',
      '2',
      '--store',
      db,
      '--no-progress',
    ],
  ]) {
    const r = revloop(...args);
    assert.equal(r.code, 0, `${args.join(' ')}\n${r.err}`);
  }

  const r = revloop('runs', '--store', db, '--wide');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^revision runs \(1\):$/m);
  assert.match(r.out, /^probe runs \(1\):$/m);
  assert.match(r.out, /^agent runs \(2\):$/m);
  assert.ok(r.out.indexOf('revision runs') < r.out.indexOf('probe runs') && r.out.indexOf('probe runs') < r.out.indexOf('agent runs'));
  assert.deepEqual(row(r.out, 'rev').slice(0, 6), ['rev', 'complete', 'sim:steady [SIMULATED]', 'paper', '8', '3/3']);
  // run | status | model | env | items | conditions | scores | sessions: 2 items × core conditions.
  const probe = row(r.out, 'pr');
  assert.deepEqual(probe.slice(0, 6), ['pr', 'complete', 'sim:steady [SIMULATED]', 'toolshed', '2', '5']);
  assert.ok(Number(probe[6]) > 0 && probe[7] === '1', probe.join(' | '));
  // run | status | model | harness | done | solved | stuck | failed | sessions
  const verbatim = row(r.out, 'agent-toolshed-sim-steady-verbatim-t0-s20260808');
  assert.deepEqual(
    [verbatim[1], verbatim[2], verbatim[3], verbatim[4], verbatim[7], verbatim[8]],
    ['complete', 'sim:steady [SIMULATED]', 'verbatim', '2/2', '0', '1'],
  );
  assert.deepEqual(row(r.out, 'agent-toolshed-sim-steady-abstract-ban-t0-s20260808').slice(3, 5), ['abstract+ban', '2/2']);
  assert.match(r.out, /SIMULATED rows come from simulated controllers/);

  const j = revloop('runs', '--store', db, '--json');
  assert.equal(j.code, 0, j.err);
  const entries = JSON.parse(j.out) as RunListEntry[];
  assert.deepEqual(
    entries.map((e) => [e.kind, e.runId]),
    [
      ['run', 'rev'],
      ['probe', 'pr'],
      ['agent', 'agent-toolshed-sim-steady-verbatim-t0-s20260808'],
      ['agent', 'agent-toolshed-sim-steady-abstract-ban-t0-s20260808'],
    ],
  );
  assert.ok(entries.every((e) => e.simulated && e.status === 'complete'));
  const p = entries[1] as ProbeRunSummary;
  assert.deepEqual(p.conditions, ['pre', 'fail', 'succ', 'neut', 'abstract']);
  assert.equal(p.items, 2);
  assert.equal(String(p.scores), probe[6]);
  const a = entries[2] as AgentRunSummary;
  assert.deepEqual([a.tasks, a.done, a.failed, a.harness, a.settings.max_steps], [2, 2, 0, 'verbatim', 2]);
  // The revision entry keeps the shape `runs --json` always had.
  assert.equal((entries[0] as { successes?: number }).successes !== undefined && (entries[0] as unknown as { cases: number }).cases, 3);
});

test('status of probe and agent runs: running while a live process holds it, interrupted when killed, failed, incomplete', async () => {
  const db = join(dir, 'status.db');
  const items = shortItems();
  const probe = await ProbeStore.open(db);
  const start = {
    conditions: ['pre' as const],
    itemsSource: 'a.jsonl',
    itemsSha256: 'x',
    nItems: items.length,
    backend: {},
  };
  for (const id of ['p-live', 'p-killed', 'p-failed', 'p-done', 'p-unstarted']) {
    await probe.openRun(id, 'toolshed', { spec: 'm', label: 'model-m', capabilities: { simulated: false } });
    if (id === 'p-unstarted') continue;
    await probe.addItems(id, items, 'a.jsonl');
    const s = await probe.startSession(id, start);
    await probe.insertScores(id, s, [
      {
        item_id: items[0].item_id,
        condition: 'pre',
        candidate: 'failed',
        logprob: -3,
        n_tokens: 4,
        n_argmax_match: 1,
        is_greedy: false,
        ctx_tokens: 9,
      },
    ]);
    if (id === 'p-failed') await probe.endSession(id, s, { status: 'failed', nScored: 1, nUnavailable: 0, counters: null, seconds: 0.1 });
    if (id === 'p-done') await probe.endSession(id, s, { status: 'complete', nScored: 1, nUnavailable: 0, counters: null, seconds: 0.1 });
  }
  await probe.store.acquireLock('p-live'); // this test process: alive
  // A lock left by a process that has exited: a killed run whose session is still marked running.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const raw = new Database(db);
  raw
    .prepare('INSERT INTO run_locks (run_id, pid, host, started_at) VALUES (?, ?, ?, ?)')
    .run('p-killed', Number(dead.stdout), hostname(), new Date().toISOString());
  raw.close();

  const agent = await AgentStore.open(db);
  const settings = { max_steps: 2, max_new_tokens: 32, temperature: 0, seed: 1, task_seed: 20260808 };
  await agent.openRun(
    'a-partial',
    { env: 'toolshed', harness: 'verbatim', settings },
    { spec: 'sim:steady', label: 'sim:steady [simulated]', capabilities: { simulated: true } },
  );
  const session = await agent.startSession('a-partial', 4, {});
  await agent.insertRollout('a-partial', session, rollout('t-0', 0, true));
  await agent.insertRollout('a-partial', session, rollout('t-1', 1, false));
  await agent.endSession('a-partial', session, { status: 'complete', nDone: 2, nFailed: 2, seconds: 1 });

  const entries = await list(db);
  const status = Object.fromEntries(entries.map((e) => [e.runId, e.status]));
  assert.deepEqual(status, {
    'p-live': 'running',
    'p-killed': 'interrupted',
    'p-failed': 'failed',
    'p-done': 'complete',
    'p-unstarted': 'interrupted',
    'a-partial': 'incomplete',
  });
  const done = entries.find((e) => e.runId === 'p-done') as ProbeRunSummary;
  assert.deepEqual([done.items, done.scores, done.conditions, done.sessions, done.simulated], [2, 1, ['pre'], 1, false]);
  const partial = entries.find((e) => e.runId === 'a-partial') as AgentRunSummary;
  assert.deepEqual([partial.tasks, partial.done, partial.solved, partial.failed, partial.simulated], [4, 2, 1, 2, true]);

  let text = '';
  await runsAction({ store: db }, { write: (s: string) => (text += s) });
  assert.ok(!/revision runs/.test(text), 'no revision table without revision runs');
  assert.deepEqual(row(text, 'p-done').slice(0, 3), ['p-done', 'complete', 'model-m']);
  assert.deepEqual(row(text, 'a-partial').slice(0, 9), [
    'a-partial',
    'incomplete',
    'sim:steady [SIMULATED]',
    'verbatim',
    '2/4',
    '1/2 (50.0%)',
    '0',
    '2',
    '1',
  ]);
  assert.match(text, /SIMULATED rows come from simulated controllers/);
  await probe.store.releaseLock('p-live');
  await probe.close();
  await agent.close();
  assert.equal((await list(db)).find((e) => e.runId === 'p-live')!.status, 'interrupted', 'released by a session that never finished');
});

test('an empty store says so; a missing store is an error without a stack trace', async () => {
  const db = join(dir, 'empty.db');
  await (await openStore(db)).close();
  await (await ProbeStore.open(db)).close(); // opened for probes, no runs
  let text = '';
  await runsAction({ store: db }, { write: (s: string) => (text += s) });
  assert.equal(text, `no runs in ${db}\n`);
  assert.deepEqual(await list(db), []);
  const r = revloop('runs', '--store', join(dir, 'nope.db'));
  assert.notEqual(r.code, 0);
  assert.match(r.err, /nope\.db: no such store/);
  assert.ok(!/\n\s+at /.test(r.err), r.err);
});

function rollout(taskId: string, index: number, solved: boolean): RolloutRecord {
  return {
    task_id: taskId,
    task_index: index,
    solved,
    stuck: false,
    stop_reason: solved ? 'solved' : 'step_limit',
    n_steps: 2,
    n_failed_actions: solved ? 0 : 2,
    n_exact_repeats: 0,
    n_canonical_repeats: 0,
    exact_repeat_rate: null,
    canonical_repeat_rate: null,
    gen_tokens: null,
    prompt_tokens: null,
    n_banned_masked: null,
    seconds: 0.1,
  } as unknown as RolloutRecord;
}

test('an interrupted revision run: success is the rate over finished trajectories, shown with the count finished', async () => {
  const { toyRun } = await import('../store/toy-run.ts');
  const { toyCases } = await import('../loop/fakes.ts');
  const db = join(dir, 'interrupted.db');
  const ac = new AbortController();
  await toyRun(db, {
    runId: 'half',
    cases: toyCases(20, 'half'),
    concurrency: 1,
    extra: { signal: ac.signal, onProgress: (p) => (p.done >= 5 ? ac.abort() : undefined) },
  });
  const entry = (await list(db)).find((e) => e.runId === 'half') as RunListEntry & { complete: number; successes: number; cases: number };
  assert.equal(entry.cases, 20);
  assert.ok(entry.complete >= 5 && entry.complete < 20, `finished ${entry.complete}`);
  let text = '';
  await runsAction({ store: db }, { write: (s: string) => (text += s) });
  const cells = row(text, 'half');
  assert.equal(cells[5], `${entry.complete}/20`, 'done: finished / all');
  const pct = ((100 * entry.successes) / entry.complete).toFixed(1);
  assert.equal(cells[6], `${entry.successes}/${entry.complete} (${pct}%)`, 'success over the finished ones, not over 20');
});
