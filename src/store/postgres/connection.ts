// Connections of a PostgreSQL store: its URL (`?schema=`, `?pool=`), the pool of pipelined
// connections with the statement helpers every part of the store shares (one TCP write for
// statements issued together, transactions, the append lock, snapshot reads, errors people can act
// on), and the connection of the process's own that holds its session-level advisory locks (run
// locks and worker liveness: a killed process's session ends and its locks go with it).
import type pg from 'pg';
import { StoreError } from '../../core/errors.ts';
import { readOnlyForYou, writtenTwice } from '../errors.ts';
import { redactLocation } from '../store.ts';
import { databaseTrouble, isConnectionLoss, isOutOfConnections } from '../connection-loss.ts';
import { ClosingClient, pgDriver } from './pg-driver.ts';
import { DERIVE_FLAG } from './schema.ts';

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
export async function inOrder<T extends readonly unknown[]>(...statements: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(statements);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * Runs `issue`, which writes statements on a pipelined connection, with the socket corked: the
 * statements leave in one TCP write rather than one each (node-postgres corks around each statement
 * itself; corks nest).
 */
export function oneWrite<T>(client: pg.PoolClient, issue: () => T): T {
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
export function key31(s: string): number {
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
    throw new StoreError(`${display}: not a valid PostgreSQL URL (expected postgres://user@host:port/database)`, {
      location: display,
      reason: 'other',
    });
  }
  const schema = url.searchParams.get('schema') ?? 'revloop';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new StoreError(`${display}: schema '${schema}' must be lower-case letters, digits and _ (starting with a letter or _)`, {
      location: display,
      reason: 'other',
    });
  url.searchParams.delete('schema');
  const poolParam = url.searchParams.get('pool');
  const pool = poolParam === null ? DEFAULT_POOL_SIZE : Number(poolParam);
  if (poolParam !== null && (!/^\d+$/.test(poolParam) || pool < 1 || pool > 64))
    throw new StoreError(`${display}: pool '${poolParam}' must be a whole number of connections from 1 to 64`, {
      location: display,
      reason: 'other',
    });
  url.searchParams.delete('pool');
  return { connectionString: url.toString(), schema, pool, display };
}

/** Turns a connection failure into a StoreError people can act on (never printing the password). */
export function connectionError(display: string, e: unknown): StoreError {
  const err = e as { code?: string; message?: string };
  const message = err.message ?? String(e);
  if (err.code === '3D000')
    return new StoreError(`${display}: the database does not exist (${message}); create it first (createdb)`, {
      location: display,
      reason: 'missing',
      cause: e,
    });
  // node-postgres's words when the server asks for a password (SCRAM, MD5 or clear text) and none is configured.
  if (/password must be a (non-empty )?string|password must be a string/i.test(message))
    return new StoreError(
      `${display}: PostgreSQL asks for a password for this user and none is configured: set PGPASSWORD, add the ` +
        'server to ~/.pgpass, or give it in the URL (postgres://user:password@host:port/db)',
      { location: display, reason: 'other', cause: e },
    );
  if (err.code === '28P01' || err.code === '28000')
    return new StoreError(`${display}: PostgreSQL refused the login (${message}); check the user and PGPASSWORD or ~/.pgpass`, {
      location: display,
      reason: 'other',
      cause: e,
    });
  // Before the generic case below: "too many connections" mentions connecting but is no unreachable server.
  if (isOutOfConnections(e)) return new StoreError(`${display}: ${databaseTrouble(e)}`, { location: display, reason: 'other', cause: e });
  if (isConnectionLoss(e) || /connect|terminat/i.test(message))
    return new StoreError(`${display}: cannot reach PostgreSQL (${message}); is the server running? (docs/store.md)`, {
      location: display,
      reason: 'unreachable',
      cause: e,
    });
  return new StoreError(`${display}: cannot open as a revloop store (${message})`, { location: display, reason: 'other', cause: e });
}

/** A pool of pipelined connections to `schema` (read-only in the database too when `readonly`), and its settings. */
export function createPool(
  connectionString: string,
  schema: string,
  poolSize: number,
  readonly: boolean,
): { pool: pg.Pool; config: pg.PoolConfig } {
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
  return { pool, config };
}

/**
 * A store's connections: the pool, with the statement helpers the store's parts share, and the
 * connection of the process's own for session-level advisory locks (opened on first use).
 */
export class StoreConnection {
  /** The connection holding this process's session-level advisory locks (worker liveness, run locks). */
  private liveConnection: pg.Client | null = null;
  /** Why that connection's session ended, once it has: its locks are gone. */
  private lost: Error | null = null;

  constructor(
    readonly pool: pg.Pool,
    readonly config: pg.PoolConfig,
    /** The store's location as shown (password redacted). */
    readonly location: string,
    /** Advisory-lock namespace of this schema (append lock, worker liveness, run locks). */
    readonly ns: number,
  ) {}

  /** The session-lock connection, when one has been opened. */
  get live(): pg.Client | null {
    return this.liveConnection;
  }

  /** Why the session-lock connection was lost (its locks went with it), or null. */
  get liveLost(): Error | null {
    return this.lost;
  }

  /** The connection holding this process's session-level advisory locks (opened on first use). */
  async liveClient(): Promise<pg.Client> {
    if (this.lost) throw connectionError(this.location, this.lost);
    if (this.liveConnection) return this.liveConnection;
    const c = new pgDriver.Client({ ...this.config, application_name: 'revloop-live' } as pg.ClientConfig);
    c.on('error', (e) => {
      this.lost = e;
    });
    try {
      await c.connect();
    } catch (e) {
      throw connectionError(this.location, e);
    }
    this.liveConnection = c;
    return c;
  }

  /** Ends the session-lock connection (releasing its locks) and the pool. */
  async end(): Promise<void> {
    if (this.liveConnection) await this.liveConnection.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  /** Failures people can act on become errors naming the store. */
  translate(e: unknown): unknown {
    const err = e as { code?: string; constraint?: string; message?: string };
    if (err.code === '23505' && err.constraint === 'events_key') return writtenTwice(this.location, err.message, e);
    if (err.code === '21000') return writtenTwice(this.location, err.message, e);
    if (err.code === '25006' || err.code === '42501') return readOnlyForYou(this.location, err.message, e);
    if (err.code && /^(08|57P)/.test(err.code)) return connectionError(this.location, e);
    if (!err.code && /ECONNREFUSED|ECONNRESET|Connection terminated/i.test(err.message ?? '')) return connectionError(this.location, e);
    return e;
  }

  /**
   * Runs `work` in a transaction holding the append lock: every append, copy and rebuild. Statements
   * that lock many lease rows (renewals, unregistering) take it too, so they never wait in a cycle
   * with an append holding some of those rows FOR SHARE (claims never wait: SKIP LOCKED).
   */
  underAppendLock<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.transaction(this.appendLockBegin(), work);
  }

  /** The start of every transaction that takes the append lock (and so may write derived rows). */
  appendLockBegin(): string {
    // Every transaction that writes derived rows starts here: it alone may (schema migration 2).
    return `BEGIN; SELECT pg_advisory_xact_lock(${this.ns ^ 2}, 0); ${DERIVE_FLAG}`;
  }

  /**
   * Two reads from one snapshot (a read-only REPEATABLE READ transaction). BEGIN, both reads and
   * COMMIT leave in one TCP write on the pipelined connection: one round trip instead of four, which
   * a worker pays after every claim (it reads the trajectory it took over).
   */
  async inSnapshot<A extends pg.QueryResultRow, B extends pg.QueryResultRow>(first: Read, second: Read): Promise<[A[], B[]]> {
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
  async transaction<T>(begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
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
}
