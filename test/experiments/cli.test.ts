// The experiment commands as a user runs them: real processes, exit codes and messages. kill -9
// mid-experiment, resume with the same command, audit; a states file with another SHA-256 (refused,
// then accepted as a subset); a changed plan; runs, export and analyze --json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { openStore } from '../../src/store/store.ts';
import { tempDir } from '../tmp.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');
const noStack = (s: string) => !/^\s+at .+\(.+:\d+:\d+\)$/m.test(s);

function cli(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function attempts(db: string, runId: string): Promise<number> {
  if (!existsSync(db)) return 0;
  const s = await openStore(db, { readonly: true });
  try {
    return (await s.listRuns()).find((r) => r.runId === runId)?.attempts ?? 0;
  } finally {
    await s.close();
  }
}

test('history: kill -9 mid-experiment, resume, audit, equal to an uninterrupted run; states-hash and plan refusals; runs, export, analyze', async () => {
  const dir = tempDir('revloop-exp-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  const db = join(dir, 'runs.db');
  const ref = join(dir, 'ref.db');
  for (const store of [db, ref]) {
    const src = cli(['run', '--cases', cases, '--model', 'sim:stubborn', '--store', store, '--run', 'src']);
    assert.equal(src.code, 0, src.err);
  }
  const states = join(dir, 'states.jsonl');
  const sel = cli(['experiment', 'states', '--store', db, '--from-run', 'src', '-o', states, '--json']);
  assert.equal(sel.code, 0, sel.err);
  const summary = JSON.parse(sel.out) as { states: number; sha256: string };
  assert.ok(summary.states >= 4, `recurrence events to start from: ${summary.states}`);
  assert.match(summary.sha256, /^[0-9a-f]{64}$/);

  const args = (store: string) => [
    'experiment',
    'history',
    '--store',
    store,
    '--from-run',
    'src',
    '--model',
    'sim:stubborn?latency_ms=25',
    '--run',
    'h',
    '--states',
    states,
    '--arms',
    'full,reset,last:1,abstract',
    '--concurrency',
    '2',
  ];
  const child = spawn(process.execPath, [BIN, ...args(db)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const deadline = Date.now() + 60_000;
  while ((await attempts(db, 'h')) < 8) {
    assert.ok(Date.now() < deadline, `the experiment started generating (stderr: ${err})`);
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');

  const mid = cli(['audit', '--store', db, '--run', 'h']);
  assert.equal(mid.code, 0, mid.out);
  assert.match(mid.out, /trajectories not finished/);
  const runsMid = cli(['runs', '--store', db, '--wide']);
  assert.match(runsMid.out, /│ h +│ interrupted +│ sim:stubborn.*│ history +│ src +│/);

  const resumed = cli(args(db));
  assert.equal(resumed.code, 0, resumed.err);
  assert.match(resumed.out, /^experiment history 'h' in .*: resuming \(\d+ of \d+ trajectories already complete\)$/m);
  assert.match(resumed.out, /^finished \[SIMULATED\]: (\d+)\/\1 trajectories/m);
  const uninterrupted = cli(args(ref));
  assert.equal(uninterrupted.code, 0, uninterrupted.err);
  const a = await openStore(db, { readonly: true });
  const b = await openStore(ref, { readonly: true });
  assert.deepEqual(await a.loadTrajectories(['h']), await b.loadTrajectories(['h']), 'resumed = uninterrupted');
  await a.close();
  await b.close();
  const audit = cli(['audit', '--store', db, '--run', 'h']);
  assert.equal(audit.code, 0, audit.out);
  assert.match(audit.out, /^PASS: /m);
  assert.doesNotMatch(audit.out, /not re-derived/);

  // A states file with another hash: refused, then accepted as a subset of the run's selection.
  const lines = readFileSync(states, 'utf8').trim().split('\n');
  const sub = join(dir, 'sub.jsonl');
  writeFileSync(sub, lines.slice(0, 2).join('\n') + '\n');
  const withSub = args(db).map((x) => (x === states ? sub : x));
  const refused = cli(withSub);
  assert.equal(refused.code, 2);
  assert.match(
    refused.err,
    /^revloop: run 'h' was planned with another state selection \(SHA-256 [0-9a-f]{12}…; .*sub\.jsonl has [0-9a-f]{12}…\)\./m,
  );
  assert.match(refused.err, /--allow-subset/);
  assert.ok(noStack(refused.err));
  const subset = cli([...withSub, '--allow-subset']);
  assert.equal(subset.code, 0, subset.err);
  assert.match(subset.out, /\(8 in this session\)/);
  const foreign = join(dir, 'foreign.jsonl');
  writeFileSync(foreign, lines[0].replace(/"state_id":"[^"]+"/, '"state_id":"not-a-state"') + '\n');
  const foreignRun = cli([...args(db).map((x) => (x === states ? foreign : x)), '--allow-subset']);
  assert.equal(foreignRun.code, 2);
  assert.match(foreignRun.err, /--allow-subset: 1 state of .*foreign\.jsonl is not in run 'h' \(e\.g\. not-a-state\)/);
  const badLine = join(dir, 'bad.jsonl');
  writeFileSync(badLine, lines[0] + '\n' + lines[1].replace(/"revision":\d+/, '"revision":"x"') + '\n');
  const bad = cli(args(db).map((x) => (x === states ? badLine : x)));
  assert.equal(bad.code, 2);
  assert.match(bad.err, /bad\.jsonl:2: revision: must be a whole number/);

  // A changed plan under the same run id is refused, naming what differs.
  const changed = cli(args(db).map((x) => (x === 'full,reset,last:1,abstract' ? 'full,reset' : x)));
  assert.equal(changed.code, 2);
  assert.match(changed.err, /run 'h' exists with a different plan; a run's plan never changes\./);
  assert.match(changed.err, /experiment\.settings\.arms/);

  const runs = cli(['runs', '--store', db, '--wide']);
  assert.match(runs.out, /^experiments runs \(1\):$/m);
  const out = join(dir, 'h.jsonl');
  const exp = cli(['export', '--store', db, '--run', 'h', '--output-format', 'paper', '-o', out]);
  assert.equal(exp.code, 0, exp.err);
  const rows = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(rows.length, 4 * summary.states);
  assert.deepEqual([...new Set(rows.map((r) => r.experiment.condition))].sort(), ['abstract', 'full', 'last:1', 'reset']);
  assert.ok(rows.every((r) => r.experiment.design === 'history' && r.rounds.length > r.experiment.trigger_revision));

  const an = cli(['analyze', '--store', db, 'h', '--json', '--bootstrap', '200']);
  assert.equal(an.code, 0, an.err);
  const doc = JSON.parse(an.out);
  assert.equal(doc.experiments.schema, 'revloop.experiments/1');
  assert.deepEqual(
    doc.experiments.history[0].summaries.map((s: { arm: string; n: number }) => [s.arm, s.n]),
    ['full', 'reset', 'last:1', 'abstract'].map((arm) => [arm, summary.states]),
  );
  assert.deepEqual(doc.experiments.simulated_controllers.sort(), ['sim:stubborn [simulated]', 'sim:stubborn?latency_ms=25 [simulated]']);
});

test('capability refusals: the ban arm and --context-window on a backend that cannot ban or count; nothing is written', async () => {
  const dir = tempDir('revloop-exp-');
  const cases = join(dir, 'own.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases().slice(0, 4));
  const db = join(dir, 'runs.db');
  assert.equal(cli(['run', '--cases', cases, '--model', 'sim:stubborn', '--store', db, '--run', 'src']).code, 0);
  const http = 'openai-compatible:http://127.0.0.1:9/v1#some-model';
  const ban = cli(['experiment', 'history', '--store', db, '--from-run', 'src', '--model', http, '--run', 'b', '--arms', 'full,ban']);
  assert.equal(ban.code, 2);
  assert.match(
    ban.err,
    /^revloop: some-model cannot ban token sequences during decoding, which the 'ban' arm \(earlier failed drafts banned at decoding\) needs\./m,
  );
  assert.ok(noStack(ban.err));
  const ctx = cli(['experiment', 'persist', '--store', db, '--from-run', 'src', '--model', http, '--run', 'p', '--context-window', '4096']);
  assert.equal(ctx.code, 2);
  assert.match(
    ctx.err,
    /^revloop: some-model does not expose its tokenizer, which --context-window \(prompt tokens are counted with the backend's own tokenizer, never estimated\) needs\./m,
  );
  const s = await openStore(db, { readonly: true });
  assert.deepEqual(
    (await s.listRuns()).map((r) => r.runId),
    ['src'],
  );
  await s.close();
  const unknownArm = cli([
    'experiment',
    'history',
    '--store',
    db,
    '--from-run',
    'src',
    '--model',
    'sim:steady',
    '--run',
    'u',
    '--arms',
    'full,tail',
  ]);
  assert.equal(unknownArm.code, 2);
  assert.match(unknownArm.err, /--arms: unknown arm 'tail'; use full, reset, last:K/);
  const notARun = cli(['experiment', 'history', '--store', db, '--from-run', 'nope', '--model', 'sim:steady', '--run', 'u']);
  assert.equal(notARun.code, 2);
  assert.match(notARun.err, /--from-run: no run 'nope' in .*; runs: src/);
});
