// The command line of shared runs: --store from REVLOOP_STORE, `run --workers 0` plans without
// running, `revloop worker` runs a planned run and exits 0, refuses a SQLite store, `revloop runs`
// lists live workers and their leases, and no command prints a password.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { writeCaseSet } from '../../src/core/cases/write.ts';
import { openStore } from '../../src/store/store.ts';
import { PG_SKIP, PG_URL, rawDb, testStore } from '../store/backends.ts';
import { withDemoCases, writeToyLengthCases, writeToyLengthPlugin } from './fixtures.ts';
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

/** A worker process, its output as it comes, and its exit code once it exits. */
function startWorker(args: string[]): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'worker', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: userEnv() });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, out: () => out, err: () => err, exited };
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
    assert.equal(run.status, 'planned');
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

/** `revloop run … --workers 0` of the demo cases into `store` as run `runId`. */
async function plan(cases: string, store: string, runId: string, ...more: string[]) {
  const planned = await cli(['run', '--cases', cases, '--store', store, '--run-id', runId, '--workers', '0', ...more]);
  assert.equal(planned.status, 0, planned.stderr);
  return planned;
}

test('PostgreSQL: plan, a worker runs it and exits 0, runs lists the worker; passwords are never printed', { skip: PG_SKIP }, () =>
  withDemoCases(async ({ pg, cases }) => {
    // A password in the URL (the test server trusts local connections and ignores it).
    const url = new URL(pg.location);
    url.password = 'hunter2';
    const store = url.toString();
    const planned = await plan(cases, store, 'p', '--model', 'sim:steady?latency_ms=200');
    assert.match(
      planned.stdout.replace(/ \\\n +/g, ' '),
      /^next \(workers on any number of machines; docs\/workers\.md\):\n {2}(npx )?revloop worker --store '?postgres:\/\/[^ ]*:\*\*\*@/m,
    );
    const worker = startWorker(['--store', store, '--run', 'p', '--concurrency', '2']);
    // While it works: the listing shows the run running and the worker with its leases.
    let listing = '';
    for (let i = 0; i < 200 && !/leases held/.test(listing); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const r = await cli(['runs', '--store', store, '--wide']);
      if (/│ p +│ running/.test(r.stdout) && /alive/.test(r.stdout)) listing = r.stdout;
    }
    assert.match(listing, /workers \(1\):/);
    assert.match(listing, /│ p +│ running/);
    assert.match(listing, /\(\d leased\)/);
    assert.match(listing, /p #\d+/);
    assert.equal(await worker.exited, 0, worker.out() + worker.err());
    assert.match(worker.out(), /run 'p' has no pending trajectory/);
    const json = JSON.parse((await cli(['runs', '--workers', '--json', '--store', store])).stdout);
    assert.equal(json.length, 1);
    assert.equal(json[0].alive, false);
    assert.ok(json[0].stoppedAt);
    for (const text of [planned.stdout, planned.stderr, worker.out(), worker.err(), listing]) assert.doesNotMatch(text, /hunter2/);
    const audit = await cli(['audit', '--store', store, '--run', 'p']);
    assert.equal(audit.status, 0, audit.stdout);
    assert.doesNotMatch(audit.stdout, /hunter2/);
    assert.ok(PG_URL);
  }),
);

test('PostgreSQL: a worker runs a harness run (--harness, --ban) as planned, and the audit replays it', { skip: PG_SKIP }, () =>
  withDemoCases(async ({ pg, cases }) => {
    await plan(cases, pg.location, 'h', '--model', 'sim:stubborn', '--harness', 'abstract', '--ban', 'failed-drafts');
    const worker = await cli(['worker', '--store', pg.location, '--run', 'h', '--concurrency', '4']);
    assert.equal(worker.status, 0, worker.stderr + worker.stdout);
    const st = await openStore(pg.location, { readonly: true });
    const [run] = await st.listRuns();
    assert.equal(run.status, 'complete');
    assert.match(run.protocol, /abstract/);
    await st.close();
    const audit = await cli(['audit', '--store', pg.location, '--run', 'h']);
    assert.equal(audit.status, 0, audit.stdout + audit.stderr);
  }),
);

test(
  'PostgreSQL: SIGTERM stops a worker cleanly (exit 143, leases given back, unregistered), and another worker finishes the run',
  { skip: PG_SKIP },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      const store = pg.location;
      await plan(cases, store, 'p', '--model', 'sim:steady?latency_ms=100');
      const worker = startWorker(['--store', store, '--run', 'p', '--concurrency', '2']);
      // Once it has committed rounds and holds leases.
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const json = JSON.parse((await cli(['runs', '--workers', '--json', '--store', store])).stdout) as Array<{ leases: unknown[] }>;
        const st = await openStore(store, { readonly: true });
        const rounds = (await st.getRun('p'))?.summary.rounds ?? 0;
        await st.close();
        if (rounds >= 3 && json[0]?.leases.length) break;
      }
      worker.child.kill('SIGTERM');
      assert.equal(await worker.exited, 143, worker.out() + worker.err());
      assert.match(worker.err(), /revloop: stopping \(SIGTERM\): in-flight generations are abandoned and their leases given back/);
      assert.match(worker.out(), /^interrupted: stopped by request; its trajectories are free for other workers$/m);
      const [gone] = JSON.parse((await cli(['runs', '--workers', '--json', '--store', store])).stdout);
      assert.equal(gone.alive, false);
      assert.ok(gone.stoppedAt, 'unregistered, not left to expire');
      assert.deepEqual(gone.leases, []);
      const next = await cli(['worker', '--store', store, '--run', 'p', '--concurrency', '4']);
      assert.equal(next.status, 0, next.stderr);
      const audit = await cli(['audit', '--store', store, '--run', 'p']);
      assert.equal(audit.status, 0, audit.stdout);
    }),
);

test(
  'PostgreSQL: a worker with --until-done runs every planned run and exits 0 once none has a pending trajectory',
  { skip: PG_SKIP },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      for (const runId of ['a', 'b']) await plan(cases, pg.location, runId, '--model', 'sim:steady', '--limit', '3');
      const worker = await cli(['worker', '--store', pg.location, '--until-done', '--concurrency', '2']);
      assert.equal(worker.status, 0, worker.stderr + worker.stdout);
      assert.match(worker.stdout, /: every run with pending trajectories, until none has any · concurrency 2/);
      assert.match(worker.stdout, /^worker #\d+ \[SIMULATED\]: 6 claimed · 6 finished here/m);
      assert.match(worker.stdout, /^no planned run in .+ has a pending trajectory$/m);
      await assertRunsComplete(pg.location, ['a', 'b']);
    }),
);

test(
  'PostgreSQL: a worker with --one-run-at-a-time runs a sweep run by run, closing a finished run’s model (a usage error with --run)',
  { skip: PG_SKIP },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      for (const runId of ['a', 'b']) await plan(cases, pg.location, runId, '--model', 'sim:steady', '--limit', '3');
      const both = await cli(['worker', '--store', pg.location, '--run', 'a', '--one-run-at-a-time']);
      assert.equal(both.status, 2);
      assert.match(both.stderr, /--one-run-at-a-time is for a worker on every run/);
      const worker = await cli(['worker', '--store', pg.location, '--until-done', '--one-run-at-a-time', '--concurrency', '4']);
      assert.equal(worker.status, 0, worker.stderr + worker.stdout);
      assert.match(worker.stdout, /: every run with pending trajectories, one at a time, until none has any · concurrency 4/);
      assert.match(worker.stdout, /^worker #\d+ \[SIMULATED\]: 6 claimed · 6 finished here/m);
      assert.match(worker.stderr, /run 'a': none of its trajectories is in flight here; its model \(.+\) is closed/);
      await assertRunsComplete(pg.location, ['a', 'b']);
    }),
);

test(
  'PostgreSQL: a worker with --until-done skips a run it cannot run (a plugin it lacks), finishes the others and exits 2; one with the plugin finishes it',
  { skip: PG_SKIP },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      const plugin = writeToyLengthPlugin(cases);
      const toyCases = await writeToyLengthCases(cases);
      await plan(cases, pg.location, 'a', '--model', 'sim:steady', '--limit', '3');
      await plan(toyCases, pg.location, 'b', '--model', 'sim:steady', '--limit', '3', '--plugin', plugin);
      await plan(cases, pg.location, 'c', '--model', 'sim:steady', '--limit', '3');
      const lacking = await cli(['worker', '--store', pg.location, '--until-done', '--concurrency', '2']);
      assert.equal(lacking.status, 2, lacking.stderr + lacking.stdout);
      assert.match(
        lacking.stderr,
        /revloop worker: run 'b' is skipped: this worker cannot run it \(other workers may\):\n {2}.*unknown family 'toy-length'/,
      );
      assert.match(lacking.stdout, /^worker #\d+ \[SIMULATED\]: 6 claimed · 6 finished here/m);
      assert.match(lacking.stdout, /^run 'b' skipped: this worker cannot run it \(3 trajectories still pending\)$/m);
      assert.match(lacking.stdout, /^no planned run in .+ that this worker can run has a pending trajectory$/m);
      assert.match(
        lacking.stdout,
        /^not done: run 'b' has pending trajectories that no worker is running and this one cannot run; start workers with the revloop version, --plugin modules and models that planned them$/m,
      );
      const able = await cli(['worker', '--store', pg.location, '--until-done', '--plugin', plugin]);
      assert.equal(able.status, 0, able.stderr + able.stdout);
      assert.match(able.stdout, /^worker #\d+ \[SIMULATED\]: 3 claimed · 3 finished here/m);
      await assertRunsComplete(pg.location, ['a', 'b', 'c']);
    }),
);

test(
  'PostgreSQL: a worker that finds no connection to spare says so and what to change, exit 2 (not "cannot reach" the server); with ?pool=1 it fits',
  { skip: PG_SKIP },
  () =>
    withDemoCases(async ({ pg, cases }) => {
      // A role allowed one connection: enough to plan the run, not for a worker's pool and its lock session.
      const role = `revloop_limited_${process.pid}`;
      const db = await rawDb(PG_URL!);
      const database = new URL(PG_URL!).pathname.slice(1) || 'postgres';
      try {
        await db.run(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
        await db.run(`GRANT CREATE ON DATABASE "${database}" TO ${role}`);
        const url = new URL(pg.location);
        url.username = role;
        const store = url.toString();
        await plan(cases, store, 'p', '--model', 'sim:steady');
        const worker = await cli(['worker', '--store', store, '--run', 'p']);
        assert.equal(worker.status, 2, worker.stderr);
        assert.match(
          worker.stderr,
          new RegExp(
            `^revloop: postgres://${role}@.+: PostgreSQL has no connection to spare for this process \\(too many connections for role "${role}"\\): ` +
              ".*raise the server's max_connections \\(or the role's CONNECTION LIMIT\\), give each process a smaller pool " +
              '\\(\\?pool=N in the store URL\\), or run fewer processes at once$',
            'm',
          ),
        );
        assert.doesNotMatch(worker.stderr, /cannot reach PostgreSQL|unexpected error/);
        // Two connections and a pool of one (plus the lock session): the worker fits, at any concurrency.
        await db.run(`ALTER ROLE ${role} CONNECTION LIMIT 2`);
        url.searchParams.set('pool', '1');
        const small = await cli(['worker', '--store', url.toString(), '--run', 'p', '--concurrency', '8']);
        assert.equal(small.status, 0, small.stderr);
        assert.match(small.stdout, /^run 'p' has no pending trajectory/m);
        const audit = await cli(['audit', '--store', store, '--run', 'p']);
        assert.equal(audit.status, 0, audit.stdout);
      } finally {
        await pg.cleanup();
        await db.run(`REVOKE CREATE ON DATABASE "${database}" FROM ${role}`).catch(() => undefined);
        await db.run(`DROP ROLE IF EXISTS ${role}`);
        await db.close();
      }
    }),
);

/** Exactly these runs are in the store, each complete. */
async function assertRunsComplete(store: string, runIds: string[]): Promise<void> {
  const st = await openStore(store, { readonly: true });
  try {
    assert.deepEqual(
      (await st.listRuns()).map((r) => [r.runId, r.status]),
      runIds.map((id) => [id, 'complete']),
    );
  } finally {
    await st.close();
  }
}

test('runs: the leases cell groups a worker’s trajectories by run, counts from 1, marks expired leases and shortens long lists', async () => {
  const { leasesCell } = await import('../../src/cli/commands/runs.ts');
  const lease = (runId: string, caseIndex: number, expired = false) => ({ runId, caseIndex, epoch: 1, expiresAt: '', expired });
  assert.equal(leasesCell([]), '—');
  assert.equal(leasesCell([lease('a', 0), lease('b', 4, true), lease('a', 9)]), 'a #1 #10; b #5 (expired)');
  const many = Array.from({ length: 11 }, (_, i) => lease('sweep', i));
  assert.equal(leasesCell(many), 'sweep #1 #2 #3 #4 #5 #6 #7 #8 (+3)');
});
