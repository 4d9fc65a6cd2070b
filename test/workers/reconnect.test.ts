// A worker outlives its database connection (docs/workers.md "Lost connections"): cut every
// connection between a worker and PostgreSQL mid-run (a TCP proxy in between closes them and
// refuses new ones for a while, as a server restart or a network cut would) and the worker
// reconnects, registers anew and finishes the run — every round once, the audit passing, the export
// that of an uninterrupted SQLite process. Without a server for longer than --reconnect-seconds it
// gives up with a message that says so. `revloop run` on PostgreSQL (one worker on its own run)
// reconnects the same way. Which failures count as a lost connection is tested too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { exportRun } from '../../src/app/export.ts';
import { runCases } from '../../src/app/run.ts';
import { workCommand } from '../../src/app/worker.ts';
import { StoreError } from '../../src/core/errors.ts';
import { getFamily } from '../../src/core/verify/index.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import type { RunProgress } from '../../src/engine/trajectory-run.ts';
import type { WorkerProgress } from '../../src/engine/worker.ts';
import { databaseTrouble, isConnectionLoss, isOutOfConnections } from '../../src/store/connection-loss.ts';
import { reportError } from '../../src/cli/errors.ts';
import { LeaseLostError, openStore } from '../../src/store/store.ts';
import { PG_SKIP, type TestStore } from '../store/backends.ts';
import { withDemoCases } from './fixtures.ts';

const MODEL = 'sim:steady?latency_ms=15';

/** A TCP proxy in front of the test server that can cut every connection and refuse new ones for a while. */
async function cuttableProxy(target: URL): Promise<{ url(location: string): string; cut(downMs: number): void; close(): void }> {
  const sockets = new Set<Socket>();
  let downUntil = 0;
  const server = createServer((client) => {
    if (Date.now() < downUntil) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) sockets.add(s);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url(location) {
      const u = new URL(location);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut(downMs) {
      downUntil = Date.now() + downMs;
      for (const s of sockets) s.destroy();
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** A demo run planned in a fresh PostgreSQL schema (and a SQLite store beside it), with a proxy in front of the server. */
async function withPlannedRun(
  model: string,
  body: (s: { pg: TestStore; lite: TestStore; proxy: Awaited<ReturnType<typeof cuttableProxy>>; cases: string }) => Promise<void>,
): Promise<void> {
  await withDemoCases(async ({ pg, lite, cases }) => {
    const proxy = await cuttableProxy(new URL(pg.location));
    try {
      await runCases({ cases, model, store: pg.location, runId: 'r', workers: 0 });
      await body({ pg, lite, proxy, cases });
    } finally {
      proxy.close();
    }
  });
}

/** A progress hook that cuts the proxy's connections once, the first time `when` holds. */
function cutOnce<P = WorkerProgress>(proxy: { cut(downMs: number): void }, downMs: number, when: (p: P) => boolean) {
  const hook = (p: P) => {
    if (!hook.cut && when(p)) {
      hook.cut = true;
      proxy.cut(downMs);
    }
  };
  hook.cut = false;
  return hook;
}

test(
  'a worker whose database connections are all cut mid-run reconnects, registers anew and finishes: every round once, audit passes, the export of one SQLite process',
  { skip: PG_SKIP },
  () =>
    withPlannedRun(MODEL, async ({ pg, lite, proxy, cases }) => {
      const notes: string[] = [];
      const started: number[] = [];
      // Mid-run, with generations in flight: every connection goes, and the server stays away for 1.5 s.
      const cut = cutOnce(proxy, 1500, (p) => p.rounds >= 8 && p.inFlight > 0);
      const outcome = await workCommand(
        { store: proxy.url(pg.location), runId: 'r', concurrency: 4, reconnectSeconds: 60 },
        {
          onStart: (s) => started.push(s.worker),
          onNote: (t) => notes.push(t),
          onProgress: cut,
        },
      );
      assert.ok(cut.cut, 'the connections were cut mid-run');
      assert.equal(started.length, 2, `registered twice: ${started.join(', ')}`);
      assert.notEqual(started[0], started[1], 'under a new number');
      assert.match(
        notes[0],
        /^lost the connection to the database \(.+\); generations in flight are abandoned, committed rounds are kept; reconnecting in 1 s$/,
      );
      assert.equal(outcome.stopped, null);
      assert.equal(outcome.summary?.pending, 0);
      assert.equal(outcome.worker, started[1]);

      await assertEveryRoundOnce(pg, lite, cases, outcome.progress.rounds);
    }),
);

test(
  '`revloop run` on PostgreSQL reconnects the same way: its connections cut mid-run, it finishes the run, counting both sessions',
  { skip: PG_SKIP },
  () =>
    withPlannedRun(MODEL, async ({ pg, lite, proxy, cases }) => {
      const notes: string[] = [];
      const seen: RunProgress[] = [];
      const cut = cutOnce<RunProgress>(proxy, 1500, (p) => p.rounds >= 8);
      const outcome = await runCases(
        { cases, model: MODEL, store: proxy.url(pg.location), runId: 'r', concurrency: 4, reconnectSeconds: 60 },
        {
          onNote: (t) => notes.push(t),
          onProgress: (p) => {
            seen.push(p);
            cut(p);
          },
        },
      );
      assert.ok(cut.cut, 'the connections were cut mid-run');
      assert.match(
        notes[0] ?? '',
        /^lost the connection to the database \(.+\); generations in flight are abandoned, committed rounds are kept; reconnecting in 1 s$/,
      );
      const { result, summary } = outcome;
      assert.equal(result.stopped, null);
      assert.equal(summary.pending, 0);
      assert.equal(summary.complete, summary.cases);
      // Counted over both sessions, as if uninterrupted: nothing was complete when the command started.
      assert.equal(result.resumed, true, 'the run was planned before the command');
      assert.deepEqual([result.progress.skipped, result.progress.done], [0, summary.cases]);
      for (let i = 1; i < seen.length; i++)
        assert.ok(seen[i].skipped + seen[i].done >= seen[i - 1].skipped + seen[i - 1].done, 'progress never goes back');
      const store = await openStore(pg.location, { readonly: true });
      try {
        const sessions = (await store.readEvents('r')).filter((e) => e.type === 'session_started');
        assert.equal(sessions.length, 2, 'one session before the cut, one after');
      } finally {
        await store.close();
      }
      await assertEveryRoundOnce(pg, lite, cases, result.progress.rounds);
    }),
);

/** The run 'r' in PostgreSQL holds every round once, passes its audit, and exports as one uninterrupted SQLite process. */
async function assertEveryRoundOnce(pg: TestStore, lite: TestStore, cases: string, countedRounds: number): Promise<void> {
  const store = await openStore(pg.location, { readonly: true });
  try {
    const events = await store.readEvents('r');
    const drafts = events.filter((e) => e.type === 'draft_accepted').map((e) => `${e.caseIndex}:${e.revision}`);
    assert.equal(new Set(drafts).size, drafts.length, 'no round twice');
    // Rounds whose commit was under way at the cut may be stored without being counted.
    assert.ok(
      countedRounds <= drafts.length && countedRounds >= drafts.length - 4,
      `the progress counts both sessions: ${countedRounds} of ${drafts.length} rounds`,
    );
    const audit = await auditRun(store, 'r', getFamily);
    assert.deepEqual(audit.discrepancies.map(formatDiscrepancy), []);
  } finally {
    await store.close();
  }
  await runCases({ cases, model: MODEL, store: lite.location, runId: 'r' });
  const exported = async (location: string) => (await exportRun({ store: location, runId: 'r', format: 'paper', output: null })).text;
  assert.equal(await exported(pg.location), await exported(lite.location), 'the export of one uninterrupted SQLite process');
}

test(
  'a worker without a server for longer than reconnectSeconds gives up, saying so; one that cannot connect at start fails at once',
  { skip: PG_SKIP },
  () =>
    withPlannedRun(MODEL, async ({ pg, proxy }) => {
      const notes: string[] = [];
      const t0 = Date.now();
      await assert.rejects(
        workCommand(
          { store: proxy.url(pg.location), runId: 'r', concurrency: 2, reconnectSeconds: 2 },
          {
            onNote: (t) => notes.push(t),
            onProgress: cutOnce(proxy, 60_000, (p) => p.rounds >= 2),
          },
        ),
        (e: unknown) => {
          assert.ok(e instanceof StoreError, String(e));
          assert.equal(e.reason, 'unreachable');
          assert.match(
            e.message,
            /lost the connection to PostgreSQL and could not reconnect within 2 s \(last: .+\); the rounds committed so far are kept: start the worker again once the server is back$/,
          );
          return true;
        },
      );
      assert.ok(Date.now() - t0 < 30_000);
      assert.ok(
        notes.some((n) => /^still cannot reach the database \(.+\); next try in \d+ s$/.test(n)),
        notes.join('\n'),
      );
      // --reconnect-seconds 0: the first loss ends the worker, with the same kind of message.
      const again = await cuttableProxy(new URL(pg.location));
      await assert.rejects(
        workCommand(
          { store: again.url(pg.location), runId: 'r', concurrency: 2, reconnectSeconds: 0 },
          { onProgress: cutOnce(again, 60_000, (p) => p.rounds >= 2) },
        ),
        (e: unknown) => {
          assert.ok(e instanceof StoreError && e.reason === 'unreachable', String(e));
          assert.match(e.message, /lost the connection to PostgreSQL and did not reconnect \(--reconnect-seconds 0\) \(last: .+\)/);
          return true;
        },
      );
      again.close();
      // At start, an unreachable server is reported at once, not retried.
      const t1 = Date.now();
      await assert.rejects(workCommand({ store: proxy.url(pg.location), runId: 'r', reconnectSeconds: 60 }), (e: unknown) => {
        assert.ok(e instanceof StoreError && e.reason === 'unreachable', String(e));
        return true;
      });
      assert.ok(Date.now() - t1 < 15_000, 'no reconnection before the worker ever ran');
    }),
);

test(
  'Ctrl-C while the server is away: the worker stops as interrupted, `revloop run` with an error that says how to resume',
  { skip: PG_SKIP },
  () =>
    withPlannedRun(MODEL, async ({ pg, proxy, cases }) => {
      // Stop once the first "lost the connection" note is out, while the server stays away.
      const stopOnLoss = () => {
        const ac = new AbortController();
        return { signal: ac.signal, onNote: (t: string) => void (t.startsWith('lost the connection') && ac.abort()) };
      };
      const w = stopOnLoss();
      const outcome = await workCommand(
        { store: proxy.url(pg.location), runId: 'r', concurrency: 2, reconnectSeconds: 60, signal: w.signal },
        { onNote: w.onNote, onProgress: cutOnce(proxy, 60_000, (p) => p.rounds >= 2) },
      );
      assert.deepEqual(outcome.stopped, { reason: 'interrupted', message: 'stopped by request while the database was unreachable' });
      assert.ok(outcome.progress.rounds >= 2, 'the rounds of the session before the loss are counted');

      const again = await cuttableProxy(new URL(pg.location));
      const r = stopOnLoss();
      await assert.rejects(
        runCases(
          { cases, model: MODEL, store: again.url(pg.location), runId: 'r', concurrency: 2, reconnectSeconds: 60, signal: r.signal },
          { onNote: r.onNote, onProgress: cutOnce<RunProgress>(again, 60_000, (p) => p.rounds >= 2) },
        ),
        (e: unknown) => {
          assert.ok(e instanceof StoreError && e.reason === 'unreachable', String(e));
          assert.match(
            e.message,
            /stopped by request while PostgreSQL was unreachable \(last: .+\); the rounds committed so far are kept: run the same command again once the server is back$/,
          );
          return true;
        },
      );
      again.close();
    }),
);

test('isConnectionLoss: lost sessions and unreachable servers, through wrapped causes; refusals are not', () => {
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  for (const e of [
    coded('ECONNRESET'),
    coded('ECONNREFUSED'),
    coded('57P01', 'terminating connection due to administrator command'),
    coded('57P03', 'the database system is shutting down'),
    coded('08006'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new StoreError('cannot reach PostgreSQL', { location: 'postgres://h/db', reason: 'unreachable' }),
    new Error('commit failed', { cause: coded('EPIPE') }),
  ])
    assert.equal(isConnectionLoss(e), true, String(e));
  for (const e of [
    coded('23505', 'duplicate key value violates unique constraint'),
    coded('42P01', 'relation does not exist'),
    new StoreError('read-only', { location: 'postgres://h/db', reason: 'readonly' }),
    new LeaseLostError('lease taken over', { lease: { runId: 'r', caseIndex: 0, worker: 1, epoch: 1 } }),
    new Error('boom'),
    null,
    'text',
  ])
    assert.equal(isConnectionLoss(e), false, String(e));
});

test('a server out of connections is told apart from a lost one: no reconnection, what to change, exit 2 rather than a bug', () => {
  const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  const full = coded('53300', 'sorry, too many clients already');
  const wrapped = new Error('claim failed', { cause: coded('53300', 'too many connections for role "w"') });
  for (const e of [full, wrapped]) {
    assert.equal(isOutOfConnections(e), true);
    // Retrying would abandon in-flight generations again and again on a server that stays full.
    assert.equal(isConnectionLoss(e), false);
  }
  assert.match(
    databaseTrouble(wrapped)!,
    /^PostgreSQL has no connection to spare for this process \(too many connections for role "w"\): .*raise the server's max_connections \(or the role's CONNECTION LIMIT\), give each process a smaller pool \(\?pool=N in the store URL\), or run fewer processes at once$/,
  );
  assert.match(
    databaseTrouble(new Error('Connection terminated unexpectedly'))!,
    /^lost the connection to the database \(Connection terminated unexpectedly\); everything committed is kept/,
  );
  assert.match(
    databaseTrouble(coded('57P01', 'terminating connection due to administrator command'))!,
    /^lost the connection to the database/,
  );
  assert.equal(databaseTrouble(coded('23505', 'duplicate key')), null);
  // A bare socket error may be any server's (a model's): not called the database's.
  assert.equal(databaseTrouble(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8000')), null);
  assert.equal(databaseTrouble(new Error('boom')), null);
  // What the CLI prints for such an error thrown mid-command (no StoreError around it): the advice, exit 2.
  for (const [e, code, line] of [
    [full, 2, /^revloop: PostgreSQL has no connection to spare/],
    [new Error('Connection terminated unexpectedly'), 2, /^revloop: lost the connection to the database/],
    [new Error('boom'), 1, /^revloop: unexpected error: boom$/m],
  ] as const) {
    let err = '';
    assert.equal(reportError(e, { write: (s: string) => (err += s) }), code);
    assert.match(err, line);
  }
});
