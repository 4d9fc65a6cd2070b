// The command line of shared runs: --store from REVLOOP_STORE, `run --workers 0` plans without
// running, `revloop worker` runs a planned run and exits 0, refuses a SQLite store, `revloop runs`
// lists live workers and their leases, and no command prints a password.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { writeCaseSet } from '../../src/core/cases/write.ts';
import { openStore } from '../../src/store/store.ts';
import { PG_SKIP, PG_URL, testStore } from '../store/backends.ts';
import { userEnv } from '../cli/cli.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'revloop.mjs');

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: userEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // A child that never exits (a worker waiting forever) fails the test instead of hanging the suite.
    const deadline = setTimeout(() => child.kill('SIGKILL'), 240_000).unref();
    child.on('exit', (status) => {
      clearTimeout(deadline);
      resolve({ status, stdout, stderr });
    });
  });
}

test('SQLite: REVLOOP_STORE names the store; --workers 0 plans without running; the worker refuses SQLite', async () => {
  const s = testStore('sqlite');
  try {
    const cases = join(s.another(), '..', 'cases.jsonl');
    await writeCaseSet(cases, exactLengthDemoCases());
    const env = { REVLOOP_STORE: s.location };
    const plan = await cli(['run', '--cases', cases, '--model', 'sim:steady', '--run-id', 'p', '--workers', '0'], env);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(
      plan.stdout,
      new RegExp(
        `^planned \\[SIMULATED\\]: run 'p' in ${s.location.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, \\d+ trajectories \\(0 complete, 0 protocol-incomplete, \\d+ pending\\); nothing was run$`,
        'm',
      ),
    );
    const st = await openStore(s.location, { readonly: true });
    const [run] = await st.listRuns();
    assert.equal(run.rounds, 0);
    assert.equal(run.status, 'interrupted');
    await st.close();
    const listed = await cli(['runs', '--json'], env);
    assert.equal(JSON.parse(listed.stdout)[0].runId, 'p');
    const workers = await cli(['runs', '--workers'], env);
    assert.match(workers.stdout, /is a SQLite store: no workers/);
    // The same command without --workers 0 runs it here.
    const ran = await cli(['run', '--cases', cases, '--model', 'sim:steady', '--run-id', 'p'], env);
    assert.equal(ran.status, 0, ran.stderr);
    assert.match(ran.stdout, /resuming \(0 of \d+ trajectories already complete\)/);
    const refused = await cli(['worker', '--run', 'p'], env);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--store must be a PostgreSQL URL/);
    const many = await cli(['run', '--cases', cases, '--model', 'sim:steady', '--run-id', 'p', '--workers', '3'], env);
    assert.equal(many.status, 2);
    assert.match(many.stderr, /plan with --workers 0 and start `revloop worker` processes/);
  } finally {
    await s.cleanup();
  }
});

test('PostgreSQL: plan, a worker runs it and exits 0, runs lists the worker; passwords are never printed', { skip: PG_SKIP }, async () => {
  const s = testStore('postgres');
  const lite = testStore('sqlite');
  try {
    const cases = join(lite.another(), '..', 'cases.jsonl');
    await writeCaseSet(cases, exactLengthDemoCases());
    // A password in the URL (the test server trusts local connections and ignores it).
    const url = new URL(s.location);
    url.password = 'hunter2';
    const store = url.toString();
    const plan = await cli([
      'run',
      '--cases',
      cases,
      '--model',
      'sim:steady?latency_ms=200',
      '--run-id',
      'p',
      '--workers',
      '0',
      '--store',
      store,
    ]);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /^next: (npx )?revloop worker --store '?postgres:\/\/[^ ]*:\*\*\*@/m);
    const worker = spawn(process.execPath, [BIN, 'worker', '--store', store, '--run', 'p', '--concurrency', '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    worker.stdout.on('data', (d) => (out += d));
    worker.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => worker.on('exit', (code) => r(code)));
    // While it works: the listing shows the run running and the worker with its leases.
    let listing = '';
    for (let i = 0; i < 200 && !/leases held/.test(listing); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await cli(['runs', '--store', store]);
      if (/│ p +│ running/.test(r.stdout) && /alive/.test(r.stdout)) listing = r.stdout;
    }
    assert.match(listing, /workers \(1\):/);
    assert.match(listing, /│ p +│ running/);
    assert.match(listing, /\(\d leased\)/);
    assert.match(listing, /p #\d+/);
    assert.equal(await exited, 0, out);
    assert.match(out, /run 'p' has no pending trajectory/);
    const json = JSON.parse((await cli(['runs', '--workers', '--json', '--store', store])).stdout);
    assert.equal(json.length, 1);
    assert.equal(json[0].alive, false);
    assert.ok(json[0].stoppedAt);
    for (const text of [plan.stdout, plan.stderr, out, listing]) assert.doesNotMatch(text, /hunter2/);
    const audit = await cli(['audit', '--store', store, '--run', 'p']);
    assert.equal(audit.status, 0, audit.stdout);
    assert.doesNotMatch(audit.stdout, /hunter2/);
    assert.ok(PG_URL);
  } finally {
    await s.cleanup();
    await lite.cleanup();
  }
});

test('PostgreSQL: a worker runs a harness run (--harness, --ban) as planned, and the audit replays it', { skip: PG_SKIP }, async () => {
  const s = testStore('postgres');
  const lite = testStore('sqlite');
  try {
    const cases = join(lite.another(), '..', 'cases.jsonl');
    await writeCaseSet(cases, exactLengthDemoCases());
    const base = ['--cases', cases, '--model', 'sim:stubborn', '--store', s.location];
    const plan = await cli(['run', ...base, '--run-id', 'h', '--harness', 'abstract', '--ban', 'failed-drafts', '--workers', '0']);
    assert.equal(plan.status, 0, plan.stderr);
    const worker = await cli(['worker', '--store', s.location, '--run', 'h', '--concurrency', '4']);
    assert.equal(worker.status, 0, worker.stderr + worker.stdout);
    const st = await openStore(s.location, { readonly: true });
    const [run] = await st.listRuns();
    assert.equal(run.status, 'complete');
    assert.match(run.protocol, /abstract/);
    await st.close();
    const audit = await cli(['audit', '--store', s.location, '--run', 'h']);
    assert.equal(audit.status, 0, audit.stdout + audit.stderr);
  } finally {
    await s.cleanup();
    await lite.cleanup();
  }
});

test(
  'PostgreSQL: SIGTERM stops a worker cleanly (exit 143, leases given back, unregistered), and another worker finishes the run',
  { skip: PG_SKIP },
  async () => {
    const s = testStore('postgres');
    const lite = testStore('sqlite');
    try {
      const cases = join(lite.another(), '..', 'cases.jsonl');
      await writeCaseSet(cases, exactLengthDemoCases());
      const store = s.location;
      const plan = await cli([
        'run',
        '--cases',
        cases,
        '--model',
        'sim:steady?latency_ms=100',
        '--run-id',
        'p',
        '--workers',
        '0',
        '--store',
        store,
      ]);
      assert.equal(plan.status, 0, plan.stderr);
      const worker = spawn(process.execPath, [BIN, 'worker', '--store', store, '--run', 'p', '--concurrency', '2'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: userEnv(),
      });
      let out = '';
      let err = '';
      worker.stdout.on('data', (d) => (out += d));
      worker.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((r) => worker.on('exit', (code) => r(code)));
      // Once it has committed rounds and holds leases.
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const json = JSON.parse((await cli(['runs', '--workers', '--json', '--store', store])).stdout) as Array<{ leases: unknown[] }>;
        const st = await openStore(store, { readonly: true });
        const rounds = (await st.getRun('p'))?.summary.rounds ?? 0;
        await st.close();
        if (rounds >= 3 && json[0]?.leases.length) break;
      }
      worker.kill('SIGTERM');
      assert.equal(await exited, 143, out + err);
      assert.match(err, /revloop: stopping \(SIGTERM\): in-flight generations are abandoned and their leases given back/);
      assert.match(out, /^interrupted: stopped by request; its trajectories are free for other workers$/m);
      const [gone] = JSON.parse((await cli(['runs', '--workers', '--json', '--store', store])).stdout);
      assert.equal(gone.alive, false);
      assert.ok(gone.stoppedAt, 'unregistered, not left to expire');
      assert.deepEqual(gone.leases, []);
      const next = await cli(['worker', '--store', store, '--run', 'p', '--concurrency', '4']);
      assert.equal(next.status, 0, next.stderr);
      const audit = await cli(['audit', '--store', store, '--run', 'p']);
      assert.equal(audit.status, 0, audit.stdout);
    } finally {
      await s.cleanup();
      await lite.cleanup();
    }
  },
);

test('runs: the leases cell groups a worker’s trajectories by run, counts from 1, marks expired leases and shortens long lists', async () => {
  const { leasesCell } = await import('../../src/cli/commands/runs.ts');
  const lease = (runId: string, caseIndex: number, expired = false) => ({ runId, caseIndex, epoch: 1, expiresAt: '', expired });
  assert.equal(leasesCell([]), '—');
  assert.equal(leasesCell([lease('a', 0), lease('b', 4, true), lease('a', 9)]), 'a #1 #10; b #5 (expired)');
  const many = Array.from({ length: 11 }, (_, i) => lease('sweep', i));
  assert.equal(leasesCell(many), 'sweep #1 #2 #3 #4 #5 #6 #7 #8 (+3)');
});
