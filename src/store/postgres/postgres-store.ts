// The PostgreSQL backend of the run store (docs/store.md "PostgreSQL"), through `pg`. The same
// events, hash chain, unique keys and derived tables as the SQLite store, for many processes on
// many machines: every commit takes one transaction-level advisory lock, so global event ids are
// assigned in commit order (readers following `eventsAfter` never miss an event) and each run's
// chain head is read under it; writes made under a lease are checked against the trajectory's
// current claim in the same transaction (docs/workers.md). Workers prove they are alive by holding
// a session-level advisory lock on a connection of their own: a killed worker's connection closes,
// its lock goes, and its trajectories can be claimed at once.
import type pg from 'pg';
import { hostname } from 'node:os';
import { RunLockedError, StoreError, UserError } from '../../core/errors.ts';
import { checkCopiedRows, GENESIS_HASH, linkEvents, rowToEvent, type EventRow } from '../chain.ts';
import { eventKey, type NewEvent, type RunPlannedPayload, type StoredEvent } from '../events.ts';
import { PlanCache } from '../plan-cache.ts';
import { newerSchema, notAStoreReason, openedReadOnly, readOnlyForYou, runNotFound, writtenTwice } from '../errors.ts';
import { reduceRun, type ReducedRun } from '../reduce.ts';
import {
  eventSummary,
  LeaseLostError,
  RunExistsError,
  redactLocation,
  SimulatedCrash,
  splitAtCrash,
  type AppendOptions,
  type EventSummary,
  type EventSummaryRow,
  type LeaseSupport,
  type LockHolder,
  type MaterializedRun,
  type ReadEventsOptions,
  type RunInfo,
  type RunStore,
  type RunSummary,
  type StoreOptions,
  type TrajectoryPage,
  type TrajectoryQuery,
  type WorkerInfo,
} from '../store.ts';
import type { TrajectoryRecord } from '../types.ts';
import { deriveChanges, type DerivedChanges } from '../derive.ts';
import { encodeColumn } from '../text-codec.ts';
import { checkNewRunId } from '../run-id.ts';
import { checkNewPlan } from '../run-kinds.ts';
import type { RoundRowValues, RunRows, RunRowValues, TrajectoryRowValues } from '../integrity.ts';
import {
  foldTables,
  runSummary,
  selectCases,
  trajectorySummary,
  type RoundRow,
  type RunCounts,
  type RunRow,
  type TrajectoryRow,
  type TrajectorySummaryRow,
} from '../tables.ts';
import { databaseTrouble, isConnectionLoss, isOutOfConnections } from '../connection-loss.ts';
import { ClosingClient, pgDriver } from './pg-driver.ts';
import { DERIVE_FLAG, DERIVED_TABLES, KNOWN_TABLES, MIGRATIONS, SCHEMA_VERSION, STORE_MARKER } from './schema.ts';

interface QueuedGroup {
  runId: string;
  events: readonly NewEvent[];
  options: AppendOptions;
  resolve: (stored: StoredEvent[]) => void;
  reject: (e: unknown) => void;
}

/** A group's outcome inside one commit: its stored events, or why it was refused. */
type GroupOutcome = StoredEvent[] | Error;

const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    // BIGINT ids fit a double (2^53); timestamps stay ISO-like text.
    if (oid === 20) return (v: string) => Number(v);
    if (oid === 1184 || oid === 1114) return (v: string) => v;
    return pgDriver.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** Pipelined connections unless REVLOOP_PG_PIPELINE=0 (read once: bench/append-lock.ts compares both). */
const PIPELINE = process.env.REVLOOP_PG_PIPELINE !== '0';

/**
 * Awaits statements written back to back on one pipelined connection, returning their results. Each
 * promise has a handler from the start (a later one may fail before an earlier one settles); the
 * first failure in order is the cause: the statements after it fail only because the transaction aborted.
 */
async function inOrder<T extends readonly unknown[]>(...statements: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(statements);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * Runs `issue`, which writes statements on a pipelined connection, with the socket corked: the
 * statements leave in one TCP write rather than one each (node-postgres corks around each statement
 * itself; corks nest).
 */
function oneWrite<T>(client: pg.PoolClient, issue: () => T): T {
  const stream = (client as unknown as pg.Client).connection?.stream;
  stream?.cork();
  try {
    return issue();
  } finally {
    stream?.uncork();
  }
}

/** A parameterised read: its SQL and values. */
interface Read {
  text: string;
  values: unknown[];
}

/** A positive 31-bit hash (advisory lock keys). */
function key31(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h & 0x7fffffff;
}

/** Pooled connections per process unless the URL says `?pool=N` (plus one for session locks). */
export const DEFAULT_POOL_SIZE = 4;

/** Where a URL points, the schema it names (`?schema=`, default `revloop`) and the pool size (`?pool=`, default DEFAULT_POOL_SIZE). */
export function parsePostgresLocation(location: string): { connectionString: string; schema: string; pool: number; display: string } {
  const display = redactLocation(location);
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw new StoreError(display, 'other', `${display}: not a valid PostgreSQL URL (expected postgres://user@host:port/database)`);
  }
  const schema = url.searchParams.get('schema') ?? 'revloop';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new StoreError(
      display,
      'other',
      `${display}: schema '${schema}' must be lower-case letters, digits and _ (starting with a letter or _)`,
    );
  url.searchParams.delete('schema');
  const poolParam = url.searchParams.get('pool');
  const pool = poolParam === null ? DEFAULT_POOL_SIZE : Number(poolParam);
  if (poolParam !== null && (!/^\d+$/.test(poolParam) || pool < 1 || pool > 64))
    throw new StoreError(display, 'other', `${display}: pool '${poolParam}' must be a whole number of connections from 1 to 64`);
  url.searchParams.delete('pool');
  return { connectionString: url.toString(), schema, pool, display };
}

/** Turns a connection failure into a StoreError people can act on (never printing the password). */
function connectionError(display: string, e: unknown): StoreError {
  const err = e as { code?: string; message?: string };
  const message = err.message ?? String(e);
  if (err.code === '3D000')
    return new StoreError(display, 'missing', `${display}: the database does not exist (${message}); create it first (createdb)`, {
      cause: e,
    });
  // node-postgres's words when the server asks for a password (SCRAM, MD5 or clear text) and none is configured.
  if (/password must be a (non-empty )?string|password must be a string/i.test(message))
    return new StoreError(
      display,
      'other',
      `${display}: PostgreSQL asks for a password for this user and none is configured: set PGPASSWORD, add the ` +
        'server to ~/.pgpass, or give it in the URL (postgres://user:password@host:port/db)',
      { cause: e },
    );
  if (err.code === '28P01' || err.code === '28000')
    return new StoreError(
      display,
      'other',
      `${display}: PostgreSQL refused the login (${message}); check the user and PGPASSWORD or ~/.pgpass`,
      { cause: e },
    );
  // Before the generic case below: "too many connections" mentions connecting but is no unreachable server.
  if (isOutOfConnections(e)) return new StoreError(display, 'other', `${display}: ${databaseTrouble(e)}`, { cause: e });
  if (isConnectionLoss(e) || /connect|terminat/i.test(message))
    return new StoreError(
      display,
      'unreachable',
      `${display}: cannot reach PostgreSQL (${message}); is the server running? (docs/store.md)`,
      { cause: e },
    );
  return new StoreError(display, 'other', `${display}: cannot open as a revloop store (${message})`, { cause: e });
}

/** A write to a run whose session lock this process no longer holds (its database session ended). */
function runLockLost(display: string, runId: string, lost: Error): StoreError {
  return new StoreError(
    display,
    'unreachable',
    `${display}: the database session that held run '${runId}' for this process has ended (${lost.message}); ` +
      'nothing more of the run is written from here, since another process may now hold it. Run the same command again to resume',
    { cause: lost },
  );
}

/** Opens (and, for writing, creates or migrates) a store in a PostgreSQL schema. */
export async function openPostgresStore(location: string, options: StoreOptions = {}): Promise<PostgresRunStore> {
  const { connectionString, schema, pool: poolSize, display } = parsePostgresLocation(location);
  const readonly = options.readonly ?? false;
  const config: pg.PoolConfig = {
    connectionString,
    max: poolSize,
    // Read-only stores are read-only in the database too.
    options: `-c search_path=${schema}${readonly ? ' -c default_transaction_read_only=on' : ''}`,
    types: TYPES,
    application_name: 'revloop',
    connectionTimeoutMillis: 10_000,
    // Statements issued back to back on one connection go out together instead of one per round
    // trip; a commit needs two round trips instead of four (see `commit`). Results and errors still
    // come back per statement, in order. REVLOOP_PG_PIPELINE=0 sends one at a time (for comparison).
    pipeline: PIPELINE,
    Client: ClosingClient as unknown as pg.PoolConfig['Client'],
  };
  const pool = new pgDriver.Pool(config);
  // A client that loses its connection must not crash the process: the pool reports idle ones, a
  // query in flight fails with the error, and a client checked out between statements (a commit
  // holds one across two round trips) has no listener of the pool's, so it gets this one; its next
  // statement fails, and the pool discards it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (c) => c.on('error', () => undefined));
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw connectionError(display, e);
  }
  const ns = key31(`revloop:${schema}`);
  try {
    const version = await storeVersion(client, schema, display);
    if (readonly) {
      if (version === null)
        throw new StoreError(
          display,
          'missing',
          `${display}: no revloop store in schema '${schema}' (run \`revloop run --store … --workers 0\` first)`,
        );
    } else if (version !== SCHEMA_VERSION) {
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${ns ^ 2}, 1)`);
      try {
        // Another process may have migrated while we waited for the lock.
        const now = (await storeVersion(client, schema, display)) ?? 0;
        if (now === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        for (let v = now + 1; v <= SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v - 1]);
        await client.query(
          `INSERT INTO meta (key, value) VALUES ('schema_version', $1), ($2, '1') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
          [String(SCHEMA_VERSION), STORE_MARKER],
        );
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    }
  } catch (e) {
    client.release();
    await pool.end().catch(() => undefined);
    if (e instanceof UserError) throw e;
    const err = e as { code?: string; message?: string };
    if (err.code === '42501')
      throw new StoreError(display, 'readonly', `${display}: not allowed to create or change schema '${schema}' (${err.message})`, {
        cause: e,
      });
    throw connectionError(display, e);
  }
  client.release();
  return new PostgresRunStore(pool, config, display, schema, ns, options);
}

/** The schema version of the store in `schema`, null when the schema holds nothing; refuses foreign schemas. */
async function storeVersion(client: pg.PoolClient, schema: string, display: string): Promise<number | null> {
  const tables = (
    await client.query<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1', [schema])
  ).rows.map((r) => r.name);
  if (!tables.length) return null;
  const foreign = tables.filter((t) => !KNOWN_TABLES.has(t));
  const meta = tables.includes('meta')
    ? new Map((await client.query<{ key: string; value: string }>('SELECT key, value FROM meta')).rows.map((r) => [r.key, r.value]))
    : new Map<string, string>();
  if (!meta.has(STORE_MARKER) || foreign.length) {
    const what = notAStoreReason(foreign);
    throw new StoreError(
      display,
      'not_a_store',
      `${display}: schema '${schema}' is not a revloop store (${what}); name another with ?schema=<name> in the URL`,
    );
  }
  const version = Number(meta.get('schema_version'));
  if (version > SCHEMA_VERSION) throw newerSchema(display, version, SCHEMA_VERSION);
  return version;
}

const EVENT_COLUMNS = 'run_id, seq, type, case_index, revision, at, payload, prev_hash, hash, key';
const EVENT_UNNEST =
  'unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])';

/**
 * What an append reads under the append lock: each run's chain head, the current holder of each
 * leased trajectory (its lease row locked FOR SHARE until COMMIT) and the status of trajectories
 * written conditionally.
 */
const PROBE_SQL = `WITH l AS (
  SELECT le.run_id, le.case_index, le.worker, le.epoch FROM leases le
  JOIN unnest($2::text[], $3::int[]) AS g(run_id, case_index) ON le.run_id = g.run_id AND le.case_index = g.case_index
  FOR SHARE OF le)
SELECT
  (SELECT coalesce(json_agg(json_build_array(r.run_id, e.seq, e.hash)), '[]') FROM unnest($1::text[]) AS r(run_id)
     LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE events.run_id = r.run_id ORDER BY seq DESC LIMIT 1) e ON true) AS heads,
  (SELECT coalesce(json_agg(json_build_array(run_id, case_index, worker, epoch)), '[]') FROM l) AS leases,
  (SELECT coalesce(json_agg(json_build_array(t.run_id, t.case_index, t.status)), '[]') FROM trajectories t
     JOIN unnest($4::text[], $5::int[]) AS s(run_id, case_index) ON t.run_id = s.run_id AND t.case_index = s.case_index) AS statuses`;

interface ProbeRow {
  heads: Array<[string, number | null, string | null]>;
  leases: Array<[string, number, number | null, number]>;
  statuses: Array<[string, number, string]>;
}

/** Derived-table changes of a batch as one statement (parameters from $first on). */
function derivedSql(first: number): string {
  const $ = (i: number) => `$${first + i}`;
  return `
r AS (
  INSERT INTO rounds (run_id, case_index, revision, text, state, energy, joint, feedback)
  SELECT * FROM unnest(${$(0)}::text[], ${$(1)}::int[], ${$(2)}::int[], ${$(3)}::text[], ${$(4)}::text[], ${$(5)}::float8[], ${$(6)}::bool[], ${$(7)}::text[])
  ON CONFLICT (run_id, case_index, revision) DO UPDATE SET
    text = EXCLUDED.text, state = EXCLUDED.state, energy = EXCLUDED.energy, joint = EXCLUDED.joint, feedback = EXCLUDED.feedback),
t AS (
  UPDATE trajectories t SET
    attempts_started = t.attempts_started + d.started,
    attempts_finished = t.attempts_finished + d.finished,
    attempts_failed = t.attempts_failed + d.failed,
    n_rounds = t.n_rounds + d.rounds,
    final_joint = CASE WHEN d.rounds > 0 THEN d.final_joint ELSE t.final_joint END,
    status = COALESCE(d.status, t.status),
    reason = CASE WHEN d.status IS NULL THEN t.reason ELSE d.reason END
  FROM unnest(${$(8)}::text[], ${$(9)}::int[], ${$(10)}::int[], ${$(11)}::int[], ${$(12)}::int[], ${$(13)}::int[], ${$(14)}::bool[], ${$(15)}::text[], ${$(16)}::text[])
    AS d(run_id, case_index, started, finished, failed, rounds, final_joint, status, reason)
  WHERE t.run_id = d.run_id AND t.case_index = d.case_index)`;
}

/** A batch of events and its derived-table changes in one statement (no plan among the events). */
const APPEND_SQL = `WITH e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM ${EVENT_UNNEST} WITH ORDINALITY AS x(${EVENT_COLUMNS}, n) ORDER BY n RETURNING id),
${derivedSql(11)}
SELECT id FROM e ORDER BY id`;

function derivedParams(c: DerivedChanges): unknown[] {
  return [...c.rounds, ...c.deltas];
}

/** Inserts planned runs, their trajectories and their (free) leases. */
const PLAN_SQL = `
WITH p AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::int[], $8::text[], $9::text[], $10::int[], $11::text[])
    AS p(run_id, position, kind, controller, model_spec, simulated, budget, protocol, plan_sha256, n_cases, at)),
r AS (
  INSERT INTO runs (run_id, position, kind, controller, model_spec, simulated, budget, protocol, plan_sha256, n_cases, created_at, updated_at)
  SELECT run_id, position, kind, controller, model_spec, simulated, budget, protocol, plan_sha256, n_cases, at, at FROM p
  ON CONFLICT (run_id) DO UPDATE SET position = EXCLUDED.position, kind = EXCLUDED.kind, controller = EXCLUDED.controller,
    model_spec = EXCLUDED.model_spec, simulated = EXCLUDED.simulated, budget = EXCLUDED.budget, protocol = EXCLUDED.protocol,
    plan_sha256 = EXCLUDED.plan_sha256, n_cases = EXCLUDED.n_cases, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at),
c AS (SELECT * FROM unnest($12::text[], $13::int[], $14::text[]) AS c(run_id, case_index, case_id)),
t AS (
  INSERT INTO trajectories (run_id, case_index, case_id, status, reason, n_rounds, final_joint, attempts_started, attempts_finished, attempts_failed)
  SELECT run_id, case_index, case_id, 'pending', NULL, 0, NULL, 0, 0, 0 FROM c
  ON CONFLICT (run_id, case_index) DO UPDATE SET case_id = EXCLUDED.case_id, status = 'pending', reason = NULL, n_rounds = 0,
    final_joint = NULL, attempts_started = 0, attempts_finished = 0, attempts_failed = 0)
INSERT INTO leases (run_id, case_index) SELECT run_id, case_index FROM c ON CONFLICT DO NOTHING`;

function planParams(c: DerivedChanges): unknown[] {
  const cols: unknown[][] = Array.from({ length: 14 }, () => []);
  for (const p of c.plans) {
    const row = [
      p.runId,
      p.position,
      p.kind,
      p.controller,
      p.modelSpec,
      p.simulated,
      p.budget,
      p.protocol,
      p.planSha256,
      p.caseIds.length,
      p.at,
    ];
    row.forEach((v, i) => cols[i].push(v));
    p.caseIds.forEach((id, i) => {
      cols[11].push(p.runId);
      cols[12].push(i);
      cols[13].push(id);
    });
  }
  return cols;
}

/** Worker numbers whose liveness lock is held (their database session is open). */
const LIVE_SQL = (ns: number) =>
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

/** A run's row, its counts, and who is writing it (`summaries`). */
interface SummaryRow extends RunRow, RunCounts {
  run_id: string;
  leased: number | null;
  locked: boolean;
  last_event_id: number | null;
  last_event_at: string | null;
}

export class PostgresRunStore implements RunStore {
  readonly readonly: boolean;
  readonly leases: LeaseSupport | null;
  private readonly clock: () => string;
  private appends = 0;
  private dead = false;
  private closed = false;
  private readonly plannedCache = new PlanCache();
  /** Groups waiting for the next commit, in call order. */
  private queue: QueuedGroup[] = [];
  private scheduled = false;
  /** The commit in flight (one at a time: groups queued meanwhile share the next one). */
  private committing: Promise<void> | null = null;
  /** A connection of our own for session-level advisory locks (worker liveness, run locks). */
  private live: pg.Client | null = null;
  private liveLost: Error | null = null;
  private readonly runLocks = new Set<string>();
  private readonly liveWorkers = new Set<number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly config: pg.PoolConfig,
    readonly location: string,
    readonly schema: string,
    /** Advisory-lock namespace of this schema (append lock, worker liveness, run locks). */
    private readonly ns: number,
    private readonly options: StoreOptions,
  ) {
    this.readonly = options.readonly ?? false;
    this.clock = options.clock ?? (() => new Date().toISOString());
    this.leases = this.leaseSupport();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.dead) await this.flush();
    } finally {
      this.closed = true;
      for (const w of this.liveWorkers)
        await this.leaseSupport()
          .unregister(w)
          .catch(() => undefined);
      if (this.live) await this.live.end().catch(() => undefined);
      await this.pool.end().catch(() => undefined);
    }
  }

  // ---- writing -------------------------------------------------------------------------------

  async append(runId: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<StoredEvent[]> {
    // Both awaited together, so a refusal is never an unhandled rejection while the commit runs.
    const [stored] = await Promise.all([this.enqueue(runId, events, options), this.flush()]);
    return stored;
  }

  appendSoon(runId: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<void> {
    const p = this.enqueue(runId, events, options).then(() => undefined);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.drain();
      });
    }
    return p;
  }

  private enqueue(runId: string, events: readonly NewEvent[], options: AppendOptions): Promise<StoredEvent[]> {
    if (this.dead) return Promise.reject(new SimulatedCrash());
    if (this.readonly) return Promise.reject(openedReadOnly(this.location));
    return new Promise<StoredEvent[]>((resolve, reject) => this.queue.push({ runId, events, options, resolve, reject }));
  }

  async flush(): Promise<void> {
    while (this.queue.length || this.committing) {
      if (this.committing) await this.committing;
      else await this.drain();
    }
  }

  /** Commits what is queued, after the commit in flight. */
  private async drain(): Promise<void> {
    while (this.committing) await this.committing;
    if (!this.queue.length) return;
    // Fault injection: that commit's callers see the crash too; later groups are lost whole.
    const crashAt = this.options.crashAfterAppends;
    const { committed: batch, beyond } = splitAtCrash(this.queue, this.appends, crashAt);
    this.queue = [];
    this.committing = (async () => {
      try {
        if (this.dead) throw new SimulatedCrash();
        const outcomes = batch.length ? await this.commit(batch) : [];
        this.appends += batch.length;
        if (crashAt !== undefined && this.appends >= crashAt) {
          this.dead = true;
          throw new SimulatedCrash();
        }
        batch.forEach((g, i) => {
          const o = outcomes[i];
          if (o instanceof Error) g.reject(o);
          else g.resolve(o);
        });
      } catch (e) {
        for (const g of batch) g.reject(e);
      }
      for (const g of beyond) g.reject(new SimulatedCrash());
    })().finally(() => {
      this.committing = null;
    });
    await this.committing;
  }

  /**
   * One transaction: lock, read chain heads and leases, append the groups that may append, derive.
   * Two round trips on the pipelined connection, one TCP write each: the lock with the probe, then
   * the rows with COMMIT. The append lock is held from the moment the server grants it to the
   * COMMIT, about one round trip, and that caps how many commits a schema takes per second.
   */
  private async commit(groups: readonly QueuedGroup[]): Promise<GroupOutcome[]> {
    const client = await this.pool.connect();
    try {
      const runIds = [...new Set(groups.map((g) => g.runId))];
      const leased = groups.filter((g) => g.options.lease);
      const conditional = groups.filter((g) => g.options.ifStatus);
      const [, probe] = await oneWrite(client, () =>
        inOrder(
          client.query(this.appendLockBegin()),
          client.query<ProbeRow>({
            name: 'revloop_append_probe',
            text: PROBE_SQL,
            values: [
              runIds,
              leased.map((g) => g.options.lease!.runId),
              leased.map((g) => g.options.lease!.caseIndex),
              conditional.map((g) => g.runId),
              conditional.map((g) => g.events[0]?.caseIndex ?? -1),
            ],
          }),
        ),
      );
      const { heads: headRows, leases: leaseRows, statuses: statusRows } = probe.rows[0];
      const heads = new Map(headRows.map(([run, seq, hash]) => [run, { seq: seq ?? 0, hash: hash ?? GENESIS_HASH }]));
      const current = new Map(leaseRows.map(([run, c, worker, epoch]) => [`${c}\u0000${run}`, { worker, epoch }]));
      const statuses = new Map(statusRows.map(([run, c, status]) => [`${c}\u0000${run}`, status]));
      const rejected = new Map<number, number>();
      const outcomes: GroupOutcome[] = [];
      const all: StoredEvent[] = [];
      const cols: unknown[][] = Array.from({ length: 10 }, () => []);
      for (const g of groups) {
        // A run this process holds by its session lock (probe, agent, experiments) is written only
        // while that session lives: once it has ended, another process may hold the run.
        if (this.liveLost && this.runLocks.has(g.runId)) {
          outcomes.push(runLockLost(this.location, g.runId, this.liveLost));
          continue;
        }
        const lease = g.options.lease;
        if (lease) {
          const now = current.get(`${lease.caseIndex}\u0000${lease.runId}`);
          if (!now || now.worker !== lease.worker || now.epoch !== lease.epoch) {
            outcomes.push(new LeaseLostError(lease));
            rejected.set(lease.worker, (rejected.get(lease.worker) ?? 0) + 1);
            continue;
          }
        }
        if (g.options.ifStatus && statuses.get(`${g.events[0]?.caseIndex}\u0000${g.runId}`) !== g.options.ifStatus) {
          outcomes.push([]);
          continue;
        }
        const linked = linkEvents(g.runId, heads.get(g.runId), g.events, this.clock, this.location, (row) => {
          row.forEach((v, i) => cols[i].push(v));
          return 0;
        });
        heads.set(g.runId, linked.head);
        const out = linked.stored;
        outcomes.push(out);
        all.push(...out);
      }
      const planned = all.some((e) => e.type === 'run_planned');
      // A plan's statements depend on each other, so they go one by one; everything else goes out with COMMIT.
      if (planned) await this.insert(client, all, cols);
      await oneWrite(client, () =>
        inOrder(
          ...(all.length && !planned ? [this.insert(client, all, cols)] : []),
          ...[...rejected].map(([worker, n]) =>
            client.query('UPDATE workers SET rejected_writes = rejected_writes + $2 WHERE worker = $1', [worker, n]),
          ),
          client.query('COMMIT'),
        ),
      );
      return outcomes;
    } catch (e) {
      // After a failed statement the pipelined COMMIT has already rolled back; this is then a no-op.
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.translate(e);
    } finally {
      client.release();
    }
  }

  /**
   * Inserts events (ids set on `events` in place) and updates the derived tables, inside a transaction.
   * Without a plan among the events it is one statement, written before this returns (so a COMMIT
   * issued next is pipelined behind it).
   */
  private insert(client: pg.PoolClient, events: StoredEvent[], cols: unknown[][]): Promise<void> {
    const setIds = (rows: Array<{ id: number }>) => rows.forEach((r, i) => (events[i].id = r.id));
    if (events.some((e) => e.type === 'run_planned')) return this.insertPlanned(client, events, cols, setIds);
    const changes = deriveChanges(events);
    return client
      .query<{ id: number }>({ name: 'revloop_append', text: APPEND_SQL, values: [...cols, ...derivedParams(changes)] })
      .then((ids) => setIds(ids.rows));
  }

  /** A batch with a plan: planned runs take the event's id as their position, so the events go in first. */
  private async insertPlanned(
    client: pg.PoolClient,
    events: StoredEvent[],
    cols: unknown[][],
    setIds: (rows: Array<{ id: number }>) => void,
  ): Promise<void> {
    const ids = await client.query<{ id: number }>(
      `INSERT INTO events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM ${EVENT_UNNEST} WITH ORDINALITY AS x(${EVENT_COLUMNS}, n) ORDER BY n RETURNING id`,
      cols,
    );
    setIds(ids.rows);
    const changes = deriveChanges(events);
    await client.query(PLAN_SQL, planParams(changes));
    await client.query(`WITH ${derivedSql(1)} SELECT 1`, derivedParams(changes));
    for (const [runId, p] of changes.planned) this.plannedCache.set(runId, p);
  }

  /** Failures people can act on become errors naming the store. */
  private translate(e: unknown): unknown {
    const err = e as { code?: string; constraint?: string; message?: string };
    if (err.code === '23505' && err.constraint === 'events_key') return writtenTwice(this.location, err.message, e);
    if (err.code === '21000') return writtenTwice(this.location, err.message, e);
    if (err.code === '25006' || err.code === '42501') return readOnlyForYou(this.location, err.message, e);
    if (err.code && /^(08|57P)/.test(err.code)) return connectionError(this.location, e);
    if (!err.code && /ECONNREFUSED|ECONNRESET|Connection terminated/i.test(err.message ?? '')) return connectionError(this.location, e);
    return e;
  }

  async appendRows(runId: string, rows: readonly EventRow[]): Promise<void> {
    if (this.readonly) throw openedReadOnly(this.location);
    await this.flush();
    return this.underAppendLock(async (client) => {
      const head = (
        await client.query<{ seq: number; hash: string }>('SELECT seq, hash FROM events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1', [
          runId,
        ])
      ).rows[0];
      checkCopiedRows(runId, head ?? null, rows, this.location);
      // In slices, so a long run does not make one giant statement.
      for (let i = 0; i < rows.length; i += 2000) {
        const slice = rows.slice(i, i + 2000);
        const events = slice.map(rowToEvent);
        const cols: unknown[][] = Array.from({ length: 10 }, () => []);
        slice.forEach((r, j) =>
          [r.run_id, r.seq, r.type, r.case_index, r.revision, r.at, r.payload, r.prev_hash, r.hash, eventKey(events[j])].forEach((v, k) =>
            cols[k].push(v),
          ),
        );
        await this.insert(client, events, cols);
      }
    });
  }

  async createRun(runId: string, planned: RunPlannedPayload, seed: readonly NewEvent[] = []): Promise<void> {
    checkNewRunId(runId);
    checkNewPlan(runId, planned);
    if (await this.getPlanned(runId)) throw new RunExistsError(runId, this.location);
    await this.append(runId, [{ type: 'run_planned', payload: planned }, ...seed]);
  }

  async rebuild(runId?: string): Promise<void> {
    const ids = runId ? [runId] : await this.runIds();
    return this.underAppendLock(async (client) => {
      for (const id of ids) {
        for (const t of DERIVED_TABLES) await client.query(`DELETE FROM ${t} WHERE run_id = $1`, [id]);
        const events = (await client.query<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [id])).rows.map(rowToEvent);
        const changes = deriveChanges(events);
        await client.query(PLAN_SQL, planParams(changes));
        await client.query(`WITH ${derivedSql(1)} SELECT 1`, derivedParams(changes));
      }
    });
  }

  /**
   * Runs `work` in a transaction holding the append lock: every append, copy and rebuild. Statements
   * that lock many lease rows (renewals, unregistering) take it too, so they never wait in a cycle
   * with an append holding some of those rows FOR SHARE (claims never wait: SKIP LOCKED).
   */
  private underAppendLock<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.transaction(this.appendLockBegin(), work);
  }

  private appendLockBegin(): string {
    // Every transaction that writes derived rows starts here: it alone may (schema migration 2).
    return `BEGIN; SELECT pg_advisory_xact_lock(${this.ns ^ 2}, 0); ${DERIVE_FLAG}`;
  }

  /**
   * Two reads from one snapshot (a read-only REPEATABLE READ transaction). BEGIN, both reads and
   * COMMIT leave in one TCP write on the pipelined connection: one round trip instead of four, which
   * a worker pays after every claim (it reads the trajectory it took over).
   */
  private async inSnapshot<A extends pg.QueryResultRow, B extends pg.QueryResultRow>(first: Read, second: Read): Promise<[A[], B[]]> {
    const client = await this.pool.connect();
    try {
      const [, a, b] = await oneWrite(client, () =>
        inOrder(
          client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),
          client.query<A>(first.text, first.values),
          client.query<B>(second.text, second.values),
          client.query('COMMIT'),
        ),
      );
      return [a.rows, b.rows];
    } catch (e) {
      // After a failed read the pipelined COMMIT has already rolled back; this is then a no-op.
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.translate(e);
    } finally {
      client.release();
    }
  }

  /** Runs `work` on one connection between `begin` and COMMIT; a failure rolls back and is translated. */
  private async transaction<T>(begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(begin);
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.translate(e);
    } finally {
      client.release();
    }
  }

  // ---- session locks: run locks (studies) and worker liveness ----------------------------------

  /** The connection holding this process's session-level advisory locks (opened on first use). */
  private async liveClient(): Promise<pg.Client> {
    if (this.liveLost) throw connectionError(this.location, this.liveLost);
    if (this.live) return this.live;
    const c = new pgDriver.Client({ ...this.config, application_name: 'revloop-live' } as pg.ClientConfig);
    c.on('error', (e) => {
      this.liveLost = e;
    });
    try {
      await c.connect();
    } catch (e) {
      throw connectionError(this.location, e);
    }
    this.live = c;
    return c;
  }

  async acquireLock(runId: string): Promise<void> {
    const live = await this.liveClient();
    const key = key31(runId);
    const got = (await live.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [this.ns ^ 1, key])).rows[0].ok;
    if (!got) {
      const row = (
        await this.pool.query<{ pid: number; host: string; started_at: string }>(
          'SELECT pid, host, started_at FROM run_locks WHERE run_id = $1',
          [runId],
        )
      ).rows[0];
      const who = row ? `process ${row.pid} on ${row.host} (since ${row.started_at})` : 'another process';
      throw new RunLockedError(
        runId,
        row?.pid ?? 0,
        row?.host ?? '',
        `run '${runId}' is being written by ${who}; wait for it or stop it, then resume`,
      );
    }
    this.runLocks.add(runId);
    await this.pool.query(
      `INSERT INTO run_locks (run_id, pid, host, started_at, lock_key) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (run_id) DO UPDATE SET pid = EXCLUDED.pid, host = EXCLUDED.host, started_at = EXCLUDED.started_at, lock_key = EXCLUDED.lock_key`,
      [runId, process.pid, hostname(), this.clock(), key],
    );
  }

  async releaseLock(runId: string): Promise<void> {
    if (!this.runLocks.delete(runId) || !this.live) return;
    await this.pool
      .query('DELETE FROM run_locks WHERE run_id = $1 AND pid = $2 AND host = $3', [runId, process.pid, hostname()])
      .catch(() => undefined);
    await this.live.query('SELECT pg_advisory_unlock($1, $2)', [this.ns ^ 1, key31(runId)]).catch(() => undefined);
  }

  async lockHolder(runId: string): Promise<LockHolder | null> {
    const row = (
      await this.pool.query<{ pid: number; host: string; started_at: string; held: boolean }>(
        `SELECT pid, host, started_at, EXISTS (SELECT 1 FROM pg_locks pl WHERE pl.locktype = 'advisory' AND pl.granted AND pl.objsubid = 2
           AND pl.classid::bigint = $2 AND pl.objid::bigint = lock_key AND pl.database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held
         FROM run_locks WHERE run_id = $1`,
        [runId, (this.ns ^ 1) >>> 0],
      )
    ).rows[0];
    // The lock is a session-level advisory lock: alive exactly while the holder's database session is.
    return row ? { pid: row.pid, host: row.host, startedAt: row.started_at, state: row.held ? 'alive' : 'gone' } : null;
  }

  async clearStaleLock(runId: string, holder: LockHolder): Promise<boolean> {
    if (this.readonly) throw openedReadOnly(this.location);
    const now = await this.lockHolder(runId);
    if (!now || now.state === 'alive') return false;
    const r = await this.pool.query('DELETE FROM run_locks WHERE run_id = $1 AND pid = $2 AND host = $3 AND started_at = $4', [
      runId,
      holder.pid,
      holder.host,
      holder.startedAt,
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  private leaseSupport(): LeaseSupport {
    const store = { live: () => this.live, liveLost: () => this.liveLost, location: this.location, liveWorkers: this.liveWorkers };
    const pool = this.pool;
    const ns = this.ns;
    return {
      register: async (info) => {
        const live = await this.liveClient();
        const worker = (
          await pool.query<{ worker: number }>(
            `INSERT INTO workers (host, pid, concurrency, lease_seconds, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, now(), now()) RETURNING worker`,
            [hostname(), process.pid, info.concurrency, info.leaseSeconds],
          )
        ).rows[0].worker;
        await live.query('SELECT pg_advisory_lock($1, $2)', [ns, worker]);
        store.liveWorkers.add(worker);
        return worker;
      },
      async claim(worker, o) {
        const lost = store.liveLost();
        if (lost) throw connectionError(store.location, lost);
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
        const lost = store.liveLost();
        if (lost) throw connectionError(store.location, lost);
        // Under the append lock: a renewal updates many lease rows, which appends hold FOR SHARE.
        const rows = await this.underAppendLock(
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
        if (!store.liveWorkers.delete(worker)) return;
        await this.underAppendLock((client) =>
          client.query(
            `WITH w AS (UPDATE workers SET stopped_at = now() WHERE worker = $1)
             UPDATE leases SET worker = NULL, expires_at = NULL WHERE worker = $1`,
            [worker],
          ),
        );
        await store
          .live()
          ?.query('SELECT pg_advisory_unlock($1, $2)', [ns, worker])
          .catch(() => undefined);
      },
      workers: () => this.workerList(),
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

  private async workerList(): Promise<WorkerInfo[]> {
    const rows = (
      await this.pool.query<{
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
        `WITH live AS (${LIVE_SQL(this.ns)}),
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

  // ---- reading -------------------------------------------------------------------------------

  async runIds(): Promise<string[]> {
    return (await this.pool.query<{ run_id: string }>("SELECT run_id FROM events WHERE type = 'run_planned' ORDER BY id")).rows.map(
      (r) => r.run_id,
    );
  }

  async getPlanned(runId: string): Promise<RunPlannedPayload | null> {
    const cached = this.plannedCache.get(runId);
    if (cached) return cached;
    const row = (
      await this.pool.query<{ payload: string }>(
        "SELECT payload FROM events WHERE run_id = $1 AND type = 'run_planned' ORDER BY seq LIMIT 1",
        [runId],
      )
    ).rows[0];
    return row ? this.plannedCache.parse(runId, row.payload) : null;
  }

  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<StoredEvent[]> {
    const where = ['run_id = $1'];
    const args: unknown[] = [runId];
    if (options.caseIndex !== undefined) {
      args.push(options.caseIndex);
      where.push(`case_index = $${args.length}`);
    }
    if (options.types) {
      args.push(options.types);
      where.push(`type = ANY($${args.length}::text[])`);
    }
    if (options.keyPrefix !== undefined) {
      // A range on the unique index (byte order, as the index is built) instead of LIKE.
      args.push(encodeColumn(options.keyPrefix), encodeColumn(options.keyPrefix) + '\u{10FFFF}');
      where.push(`key COLLATE "C" >= $${args.length - 1} AND key COLLATE "C" < $${args.length}`);
    }
    const rows = (await this.pool.query<EventRow>(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY seq`, args)).rows;
    return rows.map(rowToEvent);
  }

  async eventsAfter(cursor: number, limit: number): Promise<StoredEvent[]> {
    return (await this.pool.query<EventRow>('SELECT * FROM events WHERE id > $1 ORDER BY id LIMIT $2', [cursor, limit])).rows.map(
      rowToEvent,
    );
  }

  async eventSummariesAfter(cursor: number, limit: number): Promise<EventSummary[]> {
    const rows = await this.pool.query<EventSummaryRow>(
      `SELECT e.id, e.run_id, e.seq, e.type, e.case_index, e.revision, e.at,
         CASE WHEN e.type = 'attempt_finished' THEN substr(e.payload, 1, 80) END AS head,
         CASE WHEN e.type = 'trajectory_completed' OR (e.type = 'attempt_finished' AND strpos(substr(e.payload, 1, 80), '"ok":false') > 0)
           THEN e.payload END AS small,
         CASE WHEN e.type = 'draft_accepted' THEN
           (SELECT r.joint FROM rounds r WHERE r.run_id = e.run_id AND r.case_index = e.case_index AND r.revision = e.revision) END AS joint
       FROM events e WHERE e.id > $1 ORDER BY e.id LIMIT $2`,
      [Math.floor(cursor), Math.max(0, Math.floor(limit))],
    );
    return rows.rows.map(eventSummary);
  }

  async rawEventRows(runId: string): Promise<EventRow[]> {
    return (await this.pool.query<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [runId])).rows.map(stripKey);
  }

  async logHead(runId: string): Promise<{ seq: number; hash: string } | null> {
    const row = (
      await this.pool.query<{ seq: number; hash: string }>('SELECT seq, hash FROM events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1', [
        runId,
      ])
    ).rows[0];
    return row ? { seq: row.seq, hash: row.hash } : null;
  }

  async runRows(runId: string): Promise<RunRows> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
      const events = (await client.query<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [runId])).rows.map(stripKey);
      const run = (await client.query<RunRowValues>('SELECT * FROM runs WHERE run_id = $1', [runId])).rows[0] ?? null;
      const trajectories = (
        await client.query<TrajectoryRowValues>('SELECT * FROM trajectories WHERE run_id = $1 ORDER BY case_index', [runId])
      ).rows;
      const rounds = (await client.query<RoundRowValues>('SELECT * FROM rounds WHERE run_id = $1 ORDER BY case_index, revision', [runId]))
        .rows;
      return { events, run, trajectories, rounds };
    });
  }

  async reduce(runId: string): Promise<ReducedRun | null> {
    return reduceRun(await this.readEvents(runId));
  }

  async listRuns(runIds?: readonly string[]): Promise<RunSummary[]> {
    // One statement, so every summary (and its lastEventId) comes from the same snapshot.
    const rows = (await this.summaries(runIds ?? null)).map(toSummary);
    if (!runIds) return rows;
    const byId = new Map(rows.map((r) => [r.runId, r]));
    return runIds.map((id) => byId.get(id)).filter((r): r is RunSummary => r !== undefined);
  }

  async getRun(runId: string): Promise<RunInfo | null> {
    const planned = await this.getPlanned(runId);
    const [row] = await this.summaries([runId]);
    return planned && row ? { runId, planned, summary: toSummary(row) } : null;
  }

  private async summaries(runIds: readonly string[] | null): Promise<SummaryRow[]> {
    return (
      await this.pool.query<SummaryRow>(
        `WITH live AS (${LIVE_SQL(this.ns)}),
         locks AS (
           SELECT rl.run_id FROM run_locks rl JOIN pg_locks pl ON pl.locktype = 'advisory' AND pl.granted AND pl.objsubid = 2
             AND pl.classid::bigint = ${this.ns ^ 1} AND pl.objid::bigint = rl.lock_key
             AND pl.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
         SELECT r.*, c.*,
           (SELECT count(*)::int FROM leases l JOIN trajectories t ON t.run_id = l.run_id AND t.case_index = l.case_index
              WHERE l.run_id = r.run_id AND t.status = 'pending' AND l.worker IN (SELECT worker FROM live) AND l.expires_at > clock_timestamp()) AS leased,
           r.run_id IN (SELECT run_id FROM locks) AS locked,
           le.id AS last_event_id, le.at AS last_event_at
         FROM runs r LEFT JOIN LATERAL (SELECT e.id, e.at FROM events e WHERE e.run_id = r.run_id ORDER BY e.seq DESC LIMIT 1) le ON true
         LEFT JOIN LATERAL (
           SELECT count(*) FILTER (WHERE status = 'complete')::int AS complete, count(*) FILTER (WHERE status = 'incomplete')::int AS incomplete,
             count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'complete' AND final_joint)::int AS successes,
             sum(n_rounds)::int AS rounds, sum(attempts_finished)::int AS attempts, sum(attempts_failed)::int AS failed
           FROM trajectories t WHERE t.run_id = r.run_id) c ON true
         WHERE $1::text[] IS NULL OR r.run_id = ANY($1::text[])
         ORDER BY r.position`,
        [runIds],
      )
    ).rows;
  }

  async loadTrajectories(
    runIds?: readonly string[],
    options: { from?: 'tables' | 'events'; cases?: readonly number[] } = {},
  ): Promise<TrajectoryRecord[]> {
    const ids = runIds ?? (await this.runIds());
    const out: TrajectoryRecord[] = [];
    for (const id of ids) {
      if (!(await this.getPlanned(id))) throw runNotFound(id, this.location);
      let ts =
        options.from === 'events'
          ? ((await this.reduce(id))?.trajectories ?? [])
          : (await this.materializedRows(id, options.cases)).trajectories;
      if (options.cases) {
        const wanted = new Set(options.cases);
        ts = ts.filter((t) => wanted.has(t.caseIndex));
      }
      out.push(...ts);
    }
    return out;
  }

  async materialized(runId: string): Promise<MaterializedRun> {
    return this.materializedRows(runId);
  }

  async trajectorySummaries(runId: string, query: TrajectoryQuery = {}): Promise<TrajectoryPage> {
    const where = ['t.run_id = $1'];
    const args: unknown[] = [runId];
    if (query.caseIndexes) {
      args.push(query.caseIndexes.filter((i) => Number.isInteger(i)));
      where.push(`t.case_index = ANY($${args.length}::int[])`);
    }
    if (query.text) {
      // ASCII letters fold, nothing else (ILIKE and lower() would fold by the database's locale).
      args.push(foldAscii(encodeColumn(query.text)));
      const n = args.length;
      where.push(
        `(strpos(translate(t.case_id, '${UPPER}', '${LOWER}'), $${n}) > 0 OR EXISTS (SELECT 1 FROM rounds r WHERE r.run_id = t.run_id AND r.case_index = t.case_index AND strpos(translate(r.text, '${UPPER}', '${LOWER}'), $${n}) > 0))`,
      );
    }
    const cond = where.join(' AND ');
    const offset = Math.max(0, Math.floor(query.offset ?? 0));
    const limit = query.limit === undefined ? null : Math.max(0, Math.floor(query.limit));
    // One snapshot for the count and the page.
    const [[{ n: total }], rows] = await this.inSnapshot<{ n: number }, TrajectorySummaryRow>(
      { text: `SELECT count(*)::int AS n FROM trajectories t WHERE ${cond}`, values: args },
      {
        text: `SELECT t.*, (SELECT r.energy FROM rounds r WHERE r.run_id = t.run_id AND r.case_index = t.case_index ORDER BY r.revision DESC LIMIT 1) AS final_energy
           FROM trajectories t WHERE ${cond} ORDER BY t.case_index LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
        values: [...args, limit, offset],
      },
    );
    return { total, rows: rows.map(trajectorySummary) };
  }

  async trajectoriesAt(runId: string, caseIndexes: readonly number[]): Promise<TrajectoryRecord[]> {
    return (await this.materializedRows(runId, caseIndexes)).trajectories;
  }

  /** Trajectories of a run from the derived tables: every case, or only the given ones in case order. */
  private async materializedRows(runId: string, cases?: readonly number[]): Promise<MaterializedRun> {
    const selected = selectCases(await this.getPlanned(runId), cases);
    if (!selected) return { trajectories: [], attempts: [], nRounds: [] };
    const only = cases ? ' AND case_index = ANY($2::int[])' : '';
    const args = cases ? [runId, selected.indexes] : [runId];
    // Trajectories and their rounds from one snapshot, so a live run never shows a status without its rounds.
    const [rows, rounds] = await this.inSnapshot<TrajectoryRow, RoundRow>(
      { text: `SELECT * FROM trajectories WHERE run_id = $1${only} ORDER BY case_index`, values: args },
      { text: `SELECT * FROM rounds WHERE run_id = $1${only} ORDER BY case_index, revision`, values: args },
    );
    return foldTables(runId, selected, rows, rounds);
  }
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** Lower-cases ASCII letters only (the text filter's folding, the same on every backend). */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Event rows as the chain defines them (the unique key is derived, not stored evidence). */
function stripKey(r: EventRow & { key?: unknown }): EventRow {
  const { key: _key, ...row } = r;
  return row;
}

function toSummary(r: SummaryRow): RunSummary {
  const leased = r.leased ?? 0;
  const last = r.last_event_id === null ? null : { id: r.last_event_id, at: r.last_event_at! };
  return runSummary(r.run_id, r, r, last, leased > 0 || r.locked, leased);
}
