// The PostgreSQL backend of the run store (docs/store.md "PostgreSQL"), through `pg`. The same
// events, hash chain, unique keys and derived tables as the SQLite store, for many processes on
// many machines. This file opens a store and puts its parts together, one file each:
//
//   connection.ts  the URL, the pool of pipelined connections, transactions, snapshot reads, errors,
//                  and the process's own connection for session-level advisory locks
//   schema.ts      the tables, their migrations, and the version check on open
//   appends.ts     appends and their group commit (the append lock, chain heads, lease checks)
//   run-locks.ts   run locks of the studies (session-level advisory locks)
//   leases.ts      workers and their leases (docs/workers.md)
//   reads.ts       the event log, run summaries, trajectories
import type pg from 'pg';
import { StoreError, UserError } from '../../core/errors.ts';
import type { EventRow } from '../chain.ts';
import type { NewEvent, RunPlannedPayload, StoredEvent } from '../events.ts';
import { PlanCache } from '../plan-cache.ts';
import type { ReducedRun } from '../reduce.ts';
import {
  runExists,
  type AppendOptions,
  type EventSummary,
  type LeaseSupport,
  type LockHolder,
  type MaterializedRun,
  type ReadEventsOptions,
  type RunInfo,
  type RunStore,
  type RunSummary,
  type BackendOptions,
  type TrajectoryPage,
  type TrajectoryQuery,
} from '../store.ts';
import type { TrajectoryRecord } from '../types.ts';
import { checkNewRunId } from '../run-id.ts';
import { checkNewPlan } from '../run-kinds.ts';
import type { RunRows, RunRowsVisitor, ScanOptions } from '../integrity.ts';
import { GroupCommit } from './appends.ts';
import { connectionError, createPool, key31, parsePostgresLocation, StoreConnection } from './connection.ts';
import { leaseSupport } from './leases.ts';
import { PostgresReader } from './reads.ts';
import { RunLocks } from './run-locks.ts';
import { prepareSchema } from './schema.ts';

export { DEFAULT_POOL_SIZE, parsePostgresLocation } from './connection.ts';

/** Opens (and, for writing, creates or migrates) a store in a PostgreSQL schema. */
export async function openPostgresStore(location: string, options: BackendOptions = {}): Promise<PostgresRunStore> {
  const { connectionString, schema, pool: poolSize, display } = parsePostgresLocation(location);
  const readonly = options.readonly ?? false;
  const { pool, config } = createPool(connectionString, schema, poolSize, readonly);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw connectionError(display, e);
  }
  const ns = key31(`revloop:${schema}`);
  try {
    await prepareSchema(client, schema, display, ns, readonly);
  } catch (e) {
    client.release();
    await pool.end().catch(() => undefined);
    if (e instanceof UserError) throw e;
    const err = e as { code?: string; message?: string };
    if (err.code === '42501')
      throw new StoreError(`${display}: not allowed to create or change schema '${schema}' (${err.message})`, {
        location: display,
        reason: 'readonly',
        cause: e,
      });
    throw connectionError(display, e);
  }
  client.release();
  return new PostgresRunStore(pool, config, display, schema, ns, options);
}

export class PostgresRunStore implements RunStore {
  readonly readonly: boolean;
  readonly leases: LeaseSupport | null;
  private closed = false;
  private readonly conn: StoreConnection;
  private readonly writes: GroupCommit;
  private readonly runLocks: RunLocks;
  private readonly reads: PostgresReader;
  /** Workers this process registered (unregistered on close). */
  private readonly liveWorkers = new Set<number>();
  private readonly workerLeases: LeaseSupport;

  constructor(
    pool: pg.Pool,
    config: pg.PoolConfig,
    readonly location: string,
    readonly schema: string,
    /** Advisory-lock namespace of this schema (append lock, worker liveness, run locks). */
    ns: number,
    options: BackendOptions,
  ) {
    this.readonly = options.readonly ?? false;
    const clock = options.clock ?? (() => new Date().toISOString());
    const plannedCache = new PlanCache();
    this.conn = new StoreConnection(pool, config, location, ns);
    this.runLocks = new RunLocks(this.conn, clock, this.readonly);
    this.writes = new GroupCommit(this.conn, plannedCache, this.runLocks.held, options, clock);
    this.reads = new PostgresReader(this.conn, plannedCache);
    this.workerLeases = leaseSupport(this.conn, this.liveWorkers);
    this.leases = this.workerLeases;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.writes.crashed) await this.flush();
    } finally {
      this.closed = true;
      for (const w of this.liveWorkers) await this.workerLeases.unregister(w).catch(() => undefined);
      await this.conn.end();
    }
  }

  // ---- writing (appends.ts) ------------------------------------------------------------------

  append(runId: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    return this.writes.append(runId, events, options);
  }

  appendSoon(runId: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<void> {
    return this.writes.appendSoon(runId, events, options);
  }

  flush(): Promise<void> {
    return this.writes.flush();
  }

  appendRows(runId: string, rows: readonly EventRow[]): Promise<void> {
    return this.writes.appendRows(runId, rows);
  }

  async createRun(runId: string, planned: RunPlannedPayload, seed: readonly NewEvent[] = []): Promise<void> {
    checkNewRunId(runId);
    checkNewPlan(runId, planned);
    if (await this.getPlanned(runId)) throw runExists(runId, this.location);
    await this.append(runId, [{ type: 'run_planned', payload: planned }, ...seed]);
  }

  async rebuild(runId?: string): Promise<void> {
    return this.writes.rebuild(runId ? [runId] : await this.runIds());
  }

  // ---- run locks (run-locks.ts) --------------------------------------------------------------

  acquireLock(runId: string): Promise<void> {
    return this.runLocks.acquire(runId);
  }

  releaseLock(runId: string): Promise<void> {
    return this.runLocks.release(runId);
  }

  lockHolder(runId: string): Promise<LockHolder | null> {
    return this.runLocks.holder(runId);
  }

  clearStaleLock(runId: string, holder: LockHolder): Promise<boolean> {
    return this.runLocks.clearStale(runId, holder);
  }

  // ---- reading (reads.ts) --------------------------------------------------------------------

  runIds(): Promise<string[]> {
    return this.reads.runIds();
  }

  getPlanned(runId: string): Promise<RunPlannedPayload | null> {
    return this.reads.getPlanned(runId);
  }

  readEvents(runId: string, options: ReadEventsOptions = {}): Promise<StoredEvent[]> {
    return this.reads.readEvents(runId, options);
  }

  eventsAfter(cursor: number, limit: number): Promise<StoredEvent[]> {
    return this.reads.eventsAfter(cursor, limit);
  }

  eventSummariesAfter(cursor: number, limit: number): Promise<EventSummary[]> {
    return this.reads.eventSummariesAfter(cursor, limit);
  }

  rawEventRows(runId: string): Promise<EventRow[]> {
    return this.reads.rawEventRows(runId);
  }

  logHead(runId: string): Promise<{ seq: number; hash: string } | null> {
    return this.reads.logHead(runId);
  }

  runRows(runId: string): Promise<RunRows> {
    return this.reads.runRows(runId);
  }

  scanRunRows(runId: string, visit: RunRowsVisitor, options?: ScanOptions): Promise<void> {
    return this.reads.scanRunRows(runId, visit, options);
  }

  reduce(runId: string): Promise<ReducedRun | null> {
    return this.reads.reduce(runId);
  }

  listRuns(runIds?: readonly string[]): Promise<RunSummary[]> {
    return this.reads.listRuns(runIds);
  }

  getRun(runId: string): Promise<RunInfo | null> {
    return this.reads.getRun(runId);
  }

  loadTrajectories(
    runIds?: readonly string[],
    options: { from?: 'tables' | 'events'; cases?: readonly number[] } = {},
  ): Promise<TrajectoryRecord[]> {
    return this.reads.loadTrajectories(runIds, options);
  }

  materialized(runId: string): Promise<MaterializedRun> {
    return this.reads.materialized(runId);
  }

  trajectorySummaries(runId: string, query: TrajectoryQuery = {}): Promise<TrajectoryPage> {
    return this.reads.trajectorySummaries(runId, query);
  }

  trajectoriesAt(runId: string, caseIndexes: readonly number[]): Promise<TrajectoryRecord[]> {
    return this.reads.trajectoriesAt(runId, caseIndexes);
  }
}
