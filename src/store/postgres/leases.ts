// Worker leases of a PostgreSQL store (docs/workers.md): workers register, claim pending
// trajectories, renew and give back their leases. A worker proves it is alive by holding a
// session-level advisory lock on the process's own connection (StoreConnection.liveClient): a
// killed worker's connection closes, its lock goes, and its trajectories can be claimed at once.
import { hostname } from 'node:os';
import type { LeaseSupport, WorkerInfo } from '../store.ts';
import { connectionError, type StoreConnection } from './connection.ts';

/** Worker numbers whose liveness lock is held (their database session is open). */
export const LIVE_SQL = (ns: number) =>
  `SELECT pl.objid::bigint::int AS worker FROM pg_locks pl WHERE pl.locktype = 'advisory' AND pl.granted AND pl.objsubid = 2
     AND pl.classid::bigint = ${ns} AND pl.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/**
 * The first `$3` claimable trajectories (of run `$2`, or of every run but those in `$5`), oldest run
 * first, in case order, locked for the claim; `live` (the workers whose session is open) comes from
 * the statement around it. Runs are walked in order (OFFSET 0 keeps the ordered run list a subquery
 * of its own, so the planner sorts incrementally, one run at a time, and stops at the limit) and
 * each run's pending trajectories come from its partial index: a claim reads about one run's rows
 * instead of joining and sorting every pending trajectory of the store (docs/workers.md "Claims
 * across many runs"). Keep
 * the statement unnamed, so each execution is planned with its own values: the generic plan a named
 * statement gets after five executions walks every run when `$2` is null (42 ms at 27,360 pending).
 */
const CLAIMABLE_SQL = `
  SELECT l.run_id, l.case_index
  FROM (SELECT run_id, position FROM runs WHERE ($2::text IS NULL OR run_id = $2) AND run_id <> ALL($5::text[])
        ORDER BY position OFFSET 0) r
  CROSS JOIN LATERAL (
    SELECT t.case_index FROM trajectories t WHERE t.run_id = r.run_id AND t.status = 'pending' ORDER BY t.case_index) t
  JOIN leases l ON l.run_id = r.run_id AND l.case_index = t.case_index
  WHERE l.worker IS NULL OR l.expires_at < clock_timestamp() OR l.worker NOT IN (SELECT worker FROM live)
  ORDER BY r.position, t.case_index
  LIMIT $3
  FOR UPDATE OF l SKIP LOCKED`;

/** The lease support of a store over `conn`; `liveWorkers` holds the workers this process registered. */
export function leaseSupport(conn: StoreConnection, liveWorkers: Set<number>): LeaseSupport {
  const pool = conn.pool;
  const ns = conn.ns;
  return {
    register: async (info) => {
      const live = await conn.liveClient();
      const worker = (
        await pool.query<{ worker: number }>(
          `INSERT INTO workers (host, pid, concurrency, lease_seconds, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, now(), now()) RETURNING worker`,
          [hostname(), process.pid, info.concurrency, info.leaseSeconds],
        )
      ).rows[0].worker;
      await live.query('SELECT pg_advisory_lock($1, $2)', [ns, worker]);
      liveWorkers.add(worker);
      return worker;
    },
    async claim(worker, o) {
      const lost = conn.liveLost;
      if (lost) throw connectionError(conn.location, lost);
      const rows = (
        await pool.query<{ run_id: string; case_index: number; epoch: number }>(
          `WITH live AS (${LIVE_SQL(ns)}),
             c AS (${CLAIMABLE_SQL})
             UPDATE leases l SET worker = $1, epoch = l.epoch + 1, claimed_at = clock_timestamp(),
               expires_at = clock_timestamp() + make_interval(secs => $4)
             FROM c WHERE l.run_id = c.run_id AND l.case_index = c.case_index
             RETURNING l.run_id, l.case_index, l.epoch`,
          [worker, o.runId ?? null, o.limit, o.leaseSeconds, o.exceptRuns ?? []],
        )
      ).rows;
      return rows
        .map((r) => ({ runId: r.run_id, caseIndex: r.case_index, worker, epoch: r.epoch }))
        .sort((a, b) => (a.runId === b.runId ? a.caseIndex - b.caseIndex : 0));
    },
    renew: async (worker, leaseSeconds) => {
      const lost = conn.liveLost;
      if (lost) throw connectionError(conn.location, lost);
      // Under the append lock: a renewal updates many lease rows, which appends hold FOR SHARE.
      const rows = await conn.underAppendLock(
        async (client) =>
          (
            await client.query<{ run_id: string; case_index: number; epoch: number }>(
              `WITH w AS (UPDATE workers SET heartbeat_at = now() WHERE worker = $1)
                 UPDATE leases SET expires_at = clock_timestamp() + make_interval(secs => $2) WHERE worker = $1
                 RETURNING run_id, case_index, epoch`,
              [worker, leaseSeconds],
            )
          ).rows,
      );
      return rows.map((r) => ({ runId: r.run_id, caseIndex: r.case_index, worker, epoch: r.epoch }));
    },
    async release(lease) {
      await pool.query(
        'UPDATE leases SET worker = NULL, expires_at = NULL WHERE run_id = $1 AND case_index = $2 AND worker = $3 AND epoch = $4',
        [lease.runId, lease.caseIndex, lease.worker, lease.epoch],
      );
    },
    unregister: async (worker) => {
      if (!liveWorkers.delete(worker)) return;
      await conn.underAppendLock((client) =>
        client.query(
          `WITH w AS (UPDATE workers SET stopped_at = now() WHERE worker = $1)
             UPDATE leases SET worker = NULL, expires_at = NULL WHERE worker = $1`,
          [worker],
        ),
      );
      await conn.live?.query('SELECT pg_advisory_unlock($1, $2)', [ns, worker]).catch(() => undefined);
    },
    workers: () => workerList(conn),
    pending: async (exceptRuns = []) =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM trajectories t JOIN leases l ON l.run_id = t.run_id AND l.case_index = t.case_index
             WHERE t.status = 'pending' AND t.run_id <> ALL($1::text[])`,
          [exceptRuns],
        )
      ).rows[0].n,
  };
}

/** Workers alive, recently stopped or still holding leases, with their leases. */
async function workerList(conn: StoreConnection): Promise<WorkerInfo[]> {
  const rows = (
    await conn.pool.query<{
      worker: number;
      host: string;
      pid: number;
      concurrency: number;
      lease_seconds: number;
      started_at: string;
      heartbeat_at: string;
      stopped_at: string | null;
      rejected_writes: number;
      alive: boolean;
      leases: Array<[string, number, number, string, boolean]> | null;
    }>(
      // A lease is held while its trajectory is pending. A worker killed between committing a
      // trajectory's last events and giving the lease back leaves a row on a finished trajectory,
      // which no claim takes (claims take pending ones) and which holds nothing.
      `WITH live AS (${LIVE_SQL(conn.ns)}),
         held AS (SELECT l.* FROM leases l JOIN trajectories t ON t.run_id = l.run_id AND t.case_index = l.case_index
                  WHERE l.worker IS NOT NULL AND t.status = 'pending')
         SELECT w.worker, w.host, w.pid, w.concurrency, w.lease_seconds, w.rejected_writes,
           to_json(w.started_at)#>>'{}' AS started_at, to_json(w.heartbeat_at)#>>'{}' AS heartbeat_at, to_json(w.stopped_at)#>>'{}' AS stopped_at,
           w.worker IN (SELECT worker FROM live) AS alive,
           (SELECT json_agg(json_build_array(l.run_id, l.case_index, l.epoch, to_json(l.expires_at)#>>'{}', l.expires_at < clock_timestamp()) ORDER BY l.run_id, l.case_index)
              FROM held l WHERE l.worker = w.worker) AS leases
         FROM workers w
         WHERE w.worker IN (SELECT worker FROM live) OR coalesce(w.stopped_at, w.heartbeat_at) > now() - interval '1 hour'
           OR EXISTS (SELECT 1 FROM held l WHERE l.worker = w.worker)
         ORDER BY w.worker`,
    )
  ).rows;
  // A claim lasts while its worker's session does (claims take trajectories of workers not in
  // `live` at once, whatever the lease's expiry): the rows of a gone worker are claims it lost,
  // free to claim, not leases it holds.
  return rows.map((r) => {
    const rows = (r.leases ?? []).map(([runId, caseIndex, epoch, expiresAt, expired]) => ({
      runId,
      caseIndex,
      epoch,
      expiresAt,
      expired,
    }));
    return {
      worker: r.worker,
      name: `${r.host}:${r.pid}#${r.worker}`,
      host: r.host,
      pid: r.pid,
      concurrency: r.concurrency,
      leaseSeconds: r.lease_seconds,
      startedAt: r.started_at,
      heartbeatAt: r.heartbeat_at,
      alive: r.alive,
      stoppedAt: r.stopped_at,
      rejectedWrites: r.rejected_writes,
      leases: r.alive ? rows : [],
      released: r.alive ? [] : rows.map(({ runId, caseIndex }) => ({ runId, caseIndex })),
    };
  });
}
