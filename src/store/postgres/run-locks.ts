// Run locks of a PostgreSQL store: a study run (probe, agent, the experiments) is written by one
// process at a time. The lock is a session-level advisory lock on the process's own connection
// (StoreConnection.liveClient), so it goes when the process dies or its session ends; the row in
// `run_locks` says who holds it, and whether it is still held is read from `pg_locks`.
import { hostname } from 'node:os';
import { RunLockedError, StoreError } from '../../core/errors.ts';
import { openedReadOnly } from '../errors.ts';
import type { LockHolder } from '../store.ts';
import { key31, type StoreConnection } from './connection.ts';

/** A write to a run whose session lock this process no longer holds (its database session ended). */
export function runLockLost(display: string, runId: string, lost: Error): StoreError {
  return new StoreError(
    `${display}: the database session that held run '${runId}' for this process has ended (${lost.message}); ` +
      'nothing more of the run is written from here, since another process may now hold it. Run the same command again to resume',
    { location: display, reason: 'unreachable', cause: lost },
  );
}

/** The run locks this process takes and releases, on its session-lock connection. */
export class RunLocks {
  /** Runs this process holds by its session lock. */
  readonly held = new Set<string>();

  constructor(
    private readonly conn: StoreConnection,
    private readonly clock: () => string,
    private readonly readonly: boolean,
  ) {}

  async acquire(runId: string): Promise<void> {
    const live = await this.conn.liveClient();
    const key = key31(runId);
    const got = (await live.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [this.conn.ns ^ 1, key])).rows[0].ok;
    if (!got) {
      const row = (
        await this.conn.pool.query<{ pid: number; host: string; started_at: string }>(
          'SELECT pid, host, started_at FROM run_locks WHERE run_id = $1',
          [runId],
        )
      ).rows[0];
      const who = row ? `process ${row.pid} on ${row.host} (since ${row.started_at})` : 'another process';
      throw new RunLockedError(`run '${runId}' is being written by ${who}; wait for it or stop it, then resume`, {
        runId,
        pid: row?.pid ?? 0,
        host: row?.host ?? '',
      });
    }
    this.held.add(runId);
    await this.conn.pool.query(
      `INSERT INTO run_locks (run_id, pid, host, started_at, lock_key) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (run_id) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, started_at = EXCLUDED.started_at, lock_key = EXCLUDED.lock_key`,
      [runId, process.pid, hostname(), this.clock(), key],
    );
  }

  async release(runId: string): Promise<void> {
    if (!this.held.delete(runId) || !this.conn.live) return;
    await this.conn.pool
      .query('DELETE FROM run_locks WHERE run_id = $1 AND pid = $2 AND host = $3', [runId, process.pid, hostname()])
      .catch(() => undefined);
    await this.conn.live.query('SELECT pg_advisory_unlock($1, $2)', [this.conn.ns ^ 1, key31(runId)]).catch(() => undefined);
  }

  async holder(runId: string): Promise<LockHolder | null> {
    const row = (
      await this.conn.pool.query<{ pid: number; host: string; started_at: string; held: boolean }>(
        `SELECT pid, host, started_at, EXISTS (SELECT 1 FROM pg_locks pl WHERE pl.locktype = 'advisory' AND pl.granted AND pl.objsubid = 2
           AND pl.classid::bigint = $2 AND pl.objid::bigint = lock_key AND pl.database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held
         FROM run_locks WHERE run_id = $1`,
        [runId, (this.conn.ns ^ 1) >>> 0],
      )
    ).rows[0];
    // The lock is a session-level advisory lock: alive exactly while the holder's database session is.
    return row ? { pid: row.pid, host: row.host, startedAt: row.started_at, state: row.held ? 'alive' : 'gone' } : null;
  }

  async clearStale(runId: string, holder: LockHolder): Promise<boolean> {
    if (this.readonly) throw openedReadOnly(this.conn.location);
    const now = await this.holder(runId);
    if (!now || now.state === 'alive') return false;
    const r = await this.conn.pool.query('DELETE FROM run_locks WHERE run_id = $1 AND pid = $2 AND host = $3 AND started_at = $4', [
      runId,
      holder.pid,
      holder.host,
      holder.startedAt,
    ]);
    return (r.rowCount ?? 0) > 0;
  }
}
