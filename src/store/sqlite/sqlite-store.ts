// The SQLite backend of the run store: one file (WAL). Writes are transactional — at once
// (`append`) or grouped with the others of the same event-loop turn (`appendSoon`, resolved after
// the commit) — so a process killed at any moment leaves every committed event and its derived
// rows, and nothing half-written. better-sqlite3 is synchronous: each method does its work before
// it returns its promise.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { namingOption, RunLockedError, StoreError, UserError } from '../../core/errors.ts';
import { processAlive } from '../../core/util/process-alive.ts';
import { checkCopiedRows, linkEvents, rowToEvent, type ChainHead, type EventRow, type RawEventRow } from '../chain.ts';
import { eventKey, type NewEvent, type RunPlannedPayload, type StoredEvent } from '../events.ts';
import { PlanCache } from '../plan-cache.ts';
import { newerSchema, notAStoreReason, openedReadOnly, readOnlyForYou, runNotFound, writtenTwice } from '../errors.ts';
import { reduceRun, type ReducedRun } from '../reduce.ts';
import { deriveChanges } from '../derive.ts';
import { encodeColumn } from '../text-codec.ts';
import { checkNewRunId } from '../run-id.ts';
import { checkNewPlan } from '../run-kinds.ts';
import {
  SCAN_CASE_RANGE,
  SCAN_LOG_PAGE,
  type RoundRowValues,
  type RunRows,
  type RunRowsVisitor,
  type ScanOptions,
  type RunRowValues,
  type TrajectoryRowValues,
} from '../integrity.ts';
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
import {
  eventSummary,
  runExists,
  SimulatedCrash,
  splitAtCrash,
  type AppendOptions,
  type EventSummary,
  type EventSummaryRow,
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
import { walDamage } from './wal-check.ts';
import {
  DERIVED_TABLES,
  KNOWN_TABLES,
  MIGRATE_1_TO_2_SQL,
  MIGRATE_2_TO_3_SQL,
  SCHEMA_SQL,
  SCHEMA_VERSION,
  STORE_MARKER,
} from './schema.ts';

interface AppendGroup {
  runId: string;
  events: readonly NewEvent[];
}

interface QueuedGroup extends AppendGroup {
  resolve: () => void;
  reject: (e: unknown) => void;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** A file name as an SQLite URI (`file:` + absolute path), with the characters URIs give a meaning escaped. */
function fileUri(path: string, query: string): string {
  return `file:${resolve(path).replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}?${query}`;
}

/** What tells a changed store file from the one an immutable connection has read: size, change time, inode. */
function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`;
  } catch {
    return 'gone';
  }
}

/** How a read-only connection reads: through the store's -wal (a writer has it open), or the file alone. */
export interface ReaderConnection {
  db: Database.Database;
  /** Opened `immutable`: no -wal existed, so nothing was writing; valid while `stamp` holds and no -wal appears. */
  immutable: boolean;
  stamp: string;
}

/**
 * A read-only connection that never creates a file. SQLite reads a WAL-mode file through its -wal
 * and -shm; an ordinary read-only open creates both when they are missing (and fails in a folder
 * the user may not write, or leaves them beside a store the user may not write). They are missing
 * only when no connection has the store open, so nothing writes it: the file is then opened
 * `immutable` (read as it is, no lock, no side file), and `SqliteRunStore` reopens it as soon as a
 * -wal appears or the file changes (a writer started). With a -wal present, a writer has it open (or
 * died), and the ordinary read-only open reads it, creating nothing.
 */
export function openReader(path: string): ReaderConnection {
  const stamp = fileStamp(path);
  if (!existsSync(`${path}-wal`)) {
    // URI file names are read by better-sqlite3 when its addon loads, at the first open of the process.
    process.env.SQLITE_USE_URI ??= '1';
    try {
      return { db: new Database(fileUri(path, 'immutable=1'), { readonly: true, fileMustExist: true }), immutable: true, stamp };
    } catch {
      // URIs are off (another module opened SQLite first with SQLITE_USE_URI=0): the ordinary open below.
    }
  }
  try {
    return { db: new Database(path, { readonly: true, fileMustExist: true }), immutable: false, stamp };
  } catch (e) {
    const message = (e as Error).message;
    if (/readonly|read-only|unable to open/i.test(message))
      throw new StoreError(
        `${path}: cannot read the store through its ${path}-wal file (${message}); a writer left it: open the store once with write access to fold it in`,
        { location: path, reason: 'readonly', cause: e },
      );
    throw new StoreError(`${path}: cannot open as a revloop store (${message})`, { location: path, reason: 'other', cause: e });
  }
}

/** Whether an error is SQLite saying that the file is damaged or not a database. */
export function isDamaged(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

/** A store file SQLite finds damaged: said with the file's name (exit 2), never as a crash. */
export function damagedStore(path: string, e: unknown): StoreError {
  return new StoreError(
    `${path}: the store file is damaged (${(e as Error).message}); nothing was changed. Restore it from a copy, ` +
      `or save what SQLite can still read (\`sqlite3 ${path} .recover\`)`,
    { location: path, reason: 'other', cause: e },
  );
}

/**
 * Opens a store read-only. A new, still empty file is one another process has just created and is
 * about to write the schema into (one transaction): wait up to two seconds for it, then tell the
 * user plainly that the file is not (yet) a revloop store.
 */
function openReadOnly(path: string): ReaderConnection {
  for (let waited = 0; ; waited += 50) {
    const reader = openReader(path);
    try {
      if ((reader.db.prepare('SELECT count(*) AS n FROM sqlite_master').get() as { n: number }).n > 0) return reader;
    } catch (e) {
      reader.db.close();
      throw isDamaged(e) ? damagedStore(path, e) : e;
    }
    reader.db.close();
    if (waited >= 2000)
      throw new StoreError(
        `${path}: the file is an empty database, not a revloop store yet (start a run with \`revloop run --store ${path} …\`)`,
        { location: path, reason: 'not_a_store' },
      );
    Atomics.wait(sleeper, 0, 0, 50);
  }
}

/** The schema version of an existing store, or null for an empty database; refuses foreign files. */
function storeVersion(db: Database.Database, path: string): number | null {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name);
  if (!tables.length) return null;
  const foreign = tables.filter((t) => !KNOWN_TABLES.has(t) && !t.startsWith('sqlite_'));
  const hasMeta = tables.includes('meta');
  const meta = hasMeta
    ? new Map((db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]))
    : new Map<string, string>();
  const version = Number(meta.get('schema_version'));
  // Schema 1 had no marker; its meta table with a schema version is what identified a store.
  const isStore = meta.has(STORE_MARKER) || (Number.isInteger(version) && version >= 1 && tables.includes('events'));
  if (!isStore || foreign.length) {
    const what = notAStoreReason(foreign);
    throw namingOption(
      'store',
      (n) =>
        new StoreError(
          `${path}: not a revloop store (${what}); revloop only turns an empty or new file into a store. Use another ${n} path.`,
          { location: path, reason: 'not_a_store' },
        ),
    );
  }
  if (version > SCHEMA_VERSION) {
    throw newerSchema(path, version, SCHEMA_VERSION);
  }
  return version;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The page size of a store file revloop creates; an existing file keeps its own. */
export const PAGE_SIZE = 16384;

/**
 * SQLite's page cache for a connection that writes, in KiB (`cache_size = -N`): a writer touches
 * again only the right edges of its append-only trees and a few index leaves. Read-only connections
 * (analysis, export, the viewer) keep better-sqlite3's 16 MB. Why: docs/performance.md#sqlite
 */
export const WRITER_CACHE_KIB = 4000;

/** Opens (and, for writing, creates or migrates) a SQLite store file. */
export function openSqliteStore(path: string, options: BackendOptions = {}): SqliteRunStore {
  const readonly = options.readonly ?? false;
  if (readonly && !existsSync(path))
    throw new StoreError(`${path}: no such store (run \`revloop run --store ${path} …\` first)`, { location: path, reason: 'missing' });
  if (existsSync(path) && statSync(path).isDirectory())
    throw new StoreError(`${path}: is a folder, not a store file`, { location: path, reason: 'other' });
  // Before SQLite reads the WAL (read-only or not; opened for writing, it would checkpoint what it could read into the file).
  const damage = walDamage(path);
  if (damage)
    throw new StoreError(
      `${damage}. revloop will not open the store over it: keep a copy of ${path} and its -wal and -shm files (the lost commits are in the WAL); ` +
        `to open the store without them, as SQLite would, move ${path}-wal and ${path}-shm aside. \`revloop audit --expect-head\` with a head printed earlier tells what is missing.`,
      { location: path, reason: 'other' },
    );
  if (readonly) {
    const reader = openReadOnly(path);
    try {
      reader.db.pragma('busy_timeout = 10000');
      storeVersion(reader.db, path);
    } catch (e) {
      reader.db.close();
      throw openFailure(path, e);
    }
    return guardReads(new SqliteRunStore(reader.db, path, options, reader));
  }
  if (existsSync(path) && !writable(path))
    throw namingOption(
      'store',
      (n) =>
        new StoreError(`${path}: the store file is read-only for you; make it writable or choose another ${n}`, {
          location: path,
          reason: 'readonly',
        }),
    );
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw new StoreError(`${path}: cannot create its folder (${(e as Error).message})`, { location: path, reason: 'other' });
  }
  if (!existsSync(path) && !writable(dirname(path)))
    throw new StoreError(`${path}: cannot create the store: the folder ${dirname(path)} is read-only for you`, {
      location: path,
      reason: 'readonly',
    });
  // A file that is already a database is looked at without side files first: a foreign one (WAL mode
  // included) is refused without a -wal or -shm ever appearing beside it.
  if (existsSync(path) && statSync(path).size > 0) {
    const reader = openReader(path);
    try {
      storeVersion(reader.db, path);
    } catch (e) {
      throw openFailure(path, e);
    } finally {
      reader.db.close();
    }
  }
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (e) {
    throw new StoreError(`${path}: cannot open as a revloop store (${(e as Error).message})`, {
      location: path,
      reason: 'other',
      cause: e,
    });
  }
  try {
    db.pragma('busy_timeout = 10000');
    // Checked before anything is written, so a foreign file is left untouched.
    const version = storeVersion(db, path);
    // A new file gets 16 KB pages (fixed once the file is written): docs/performance.md#sqlite
    if (version === null) db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma('journal_mode = WAL');
    db.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
    db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    // One transaction, so a reader opening a store that is being created sees all of it or none.
    db.transaction(() => {
      if (version === 1) db.exec(MIGRATE_1_TO_2_SQL);
      if (version !== null && version <= 2 && db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'rounds'").get())
        db.exec(MIGRATE_2_TO_3_SQL);
      db.exec(SCHEMA_SQL);
      const set = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
      set.run('schema_version', String(SCHEMA_VERSION));
      set.run(STORE_MARKER, '1');
    }).immediate();
  } catch (e) {
    if (db.open) db.close();
    throw openFailure(path, e);
  }
  return new SqliteRunStore(db, path, options);
}

/** A failure while opening, as people should read it: the store's own errors as they are, SQLite's naming the file. */
function openFailure(path: string, e: unknown): unknown {
  if (e instanceof UserError) return e;
  if (isDamaged(e)) return damagedStore(path, e);
  const message = (e as Error).message;
  if (/readonly|read-only/i.test(message)) return readOnlyForYou(path, message);
  return new StoreError(`${path}: cannot open as a revloop store (${message})`, { location: path, reason: 'other', cause: e });
}

/**
 * A read-only store whose reads turn SQLite's "damaged file" errors into a StoreError naming the
 * file (the first read of a damaged page may come long after the open). Writers are left bare: a
 * run's appends are its hot path, and a damaged file fails their open or commit already.
 */
function guardReads(store: SqliteRunStore): SqliteRunStore {
  const translate = (e: unknown) => (isDamaged(e) ? damagedStore(store.location, e) : e);
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || key === 'constructor') return value;
      return (...args: unknown[]) => {
        try {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise ? result.catch((e) => Promise.reject(translate(e))) : result;
        } catch (e) {
          throw translate(e);
        }
      };
    },
  });
}

export class SqliteRunStore implements RunStore {
  readonly readonly: boolean;
  /** One writing process per run (run_locks): no leases. */
  readonly leases = null;
  private readonly clock: () => string;
  private appends = 0;
  private dead = false;
  private readonly plannedCache = new PlanCache();
  private statements: Record<string, Database.Statement>;
  /** The connection; a reader's is replaced when a writer starts (see `fresh`). */
  private connection: Database.Database;
  /**
   * The last committed (seq, hash) of each run this store appended to, so an append need not read
   * it back. Another writer that appended meanwhile makes our next seq collide with UNIQUE(run_id,
   * seq); the commit then reads the heads from the table and tries once more.
   */
  private readonly heads = new Map<string, ChainHead>();
  /** The commit transaction, built once (better-sqlite3 builds four wrappers per `transaction()`). */
  private readonly commitTx?: (groups: readonly AppendGroup[], heads: Map<string, ChainHead>) => StoredEvent[][];
  /** Groups waiting for the next group commit (appendSoon), in call order. */
  private queue: QueuedGroup[] = [];
  private flushScheduled = false;

  constructor(
    db: Database.Database,
    readonly location: string,
    private readonly options: BackendOptions,
    /** A read-only store's connection as `openReader` made it. */
    private reader?: ReaderConnection,
  ) {
    this.readonly = options.readonly ?? false;
    this.clock = options.clock ?? (() => new Date().toISOString());
    this.connection = db;
    this.statements = this.prepareStatements(db);
    if (!this.readonly) this.commitTx = db.transaction(this.commitInTransaction.bind(this)).immediate;
  }

  /** The connection to read and write through (a reader's made fresh first). */
  get db(): Database.Database {
    if (this.reader?.immutable) this.fresh();
    return this.connection;
  }

  private get stmt(): Record<string, Database.Statement> {
    if (this.reader?.immutable) this.fresh();
    return this.statements;
  }

  /**
   * An immutable reader (no writer had the store open) sees nothing a writer adds, and could read
   * pages a checkpoint is rewriting: once a -wal appears beside the store or the file changes, the
   * connection is replaced by one that reads through the -wal (never inside a read transaction).
   */
  private fresh(): void {
    const r = this.reader!;
    if (this.connection.inTransaction || !this.connection.open) return;
    if (!existsSync(`${this.location}-wal`) && fileStamp(this.location) === r.stamp) return;
    const next = openReader(this.location);
    next.db.pragma('busy_timeout = 10000');
    this.connection.close();
    this.reader = next;
    this.connection = next.db;
    this.statements = this.prepareStatements(next.db);
  }

  private prepareStatements(db: Database.Database): Record<string, Database.Statement> {
    const p = (sql: string) => db.prepare(sql);
    return {
      lastEvent: p('SELECT seq, hash FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1'),
      // A run's plan is its first event (linkEvents and checkCopiedRows refuse anything else).
      planned: p("SELECT * FROM events WHERE run_id = ? AND seq = 1 AND type = 'run_planned'"),
      events: p('SELECT * FROM events WHERE run_id = ? ORDER BY seq'),
      eventsRaw: p(
        'SELECT id, run_id, seq, type, case_index, revision, at, CAST(payload AS BLOB) AS payload, prev_hash, hash FROM events WHERE run_id = ? ORDER BY seq',
      ),
      eventsAfter: p('SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?'),
      eventSummariesAfter: p(`SELECT e.id, e.run_id, e.seq, e.type, e.case_index, e.revision, e.at,
           CASE WHEN e.type = 'attempt_finished' THEN substr(e.payload, 1, 80) END AS head,
           CASE WHEN e.type = 'trajectory_completed' OR (e.type = 'attempt_finished' AND instr(substr(e.payload, 1, 80), '"ok":false') > 0)
             THEN e.payload END AS small,
           CASE WHEN e.type = 'draft_accepted' THEN
             (SELECT r.joint FROM rounds r WHERE r.run_id = e.run_id AND r.case_index = e.case_index AND r.revision = e.revision) END AS joint
         FROM events e WHERE e.id > ? ORDER BY e.id LIMIT ?`),
      runIds: p(
        `WITH RECURSIVE ids(r) AS (SELECT (SELECT min(run_id) FROM events) UNION ALL SELECT (SELECT min(run_id) FROM events WHERE run_id > r) FROM ids WHERE r IS NOT NULL)
         SELECT e.run_id FROM ids JOIN events e ON e.run_id = ids.r AND e.seq = 1 WHERE e.type = 'run_planned' ORDER BY e.id`,
      ),
      lastEventIdAndTime: p('SELECT id, at FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1'),
      ...(this.readonly
        ? {}
        : {
            insertEvent: p(
              'INSERT INTO events (run_id, seq, type, case_index, revision, at, payload, prev_hash, hash, key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            ),
            insertRun: p(
              'INSERT OR REPLACE INTO runs (run_id, kind, controller, model_spec, simulated, budget, protocol, plan_sha256, n_cases, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            ),
            insertTrajectory: p(
              "INSERT OR REPLACE INTO trajectories (run_id, case_index, case_id, status, reason, n_rounds, final_joint, attempts_started, attempts_finished, attempts_failed) VALUES (?, ?, ?, 'pending', NULL, 0, NULL, 0, 0, 0)",
            ),
            insertRound: p(
              'INSERT OR REPLACE INTO rounds (run_id, case_index, revision, text, state, energy, joint, feedback) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            ),
            // One trajectory's changes in one batch (src/store/derive.ts): counters, rounds, final joint, status.
            applyDelta: p(
              `UPDATE trajectories SET attempts_started = attempts_started + @started, attempts_finished = attempts_finished + @finished,
                 attempts_failed = attempts_failed + @failed, n_rounds = n_rounds + @rounds,
                 final_joint = CASE WHEN @rounds > 0 THEN @finalJoint ELSE final_joint END,
                 status = coalesce(@status, status), reason = CASE WHEN @status IS NULL THEN reason ELSE @reason END
               WHERE run_id = @runId AND case_index = @caseIndex`,
            ),
          }),
    };
  }

  /** The file path (the same as `location`). */
  get path(): string {
    return this.location;
  }

  async close(): Promise<void> {
    this.closeSync();
  }

  /** Closes at once (flushing queued groups); for exit handlers that cannot wait. */
  closeSync(): void {
    if (!this.connection.open) return;
    this.flushSync();
    this.connection.close();
  }

  // ---- writing -------------------------------------------------------------------------------

  async append(runId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]> {
    this.refuseLease(options);
    if (options?.ifStatus) {
      const wanted = options.ifStatus;
      this.flushSync();
      // One writer per run: the status read now holds until the append (same synchronous turn).
      const row = this.db
        .prepare('SELECT status FROM trajectories WHERE run_id = ? AND case_index = ?')
        .get(runId, events[0]?.caseIndex ?? -1) as { status: string } | undefined;
      if (row?.status !== wanted) return [];
    }
    return this.appendSync(runId, events);
  }

  /** SQLite has one writer per run and no leases: a leased write is a programming error. */
  private refuseLease(options?: AppendOptions): void {
    if (options?.lease)
      throw new StoreError(`${this.location}: SQLite stores have no leases (one writer per run)`, {
        location: this.location,
        reason: 'other',
      });
  }

  async appendRows(runId: string, rows: readonly EventRow[]): Promise<void> {
    if (this.readonly) throw openedReadOnly(this.location);
    this.flushSync();
    this.heads.delete(runId);
    this.db
      .transaction(() => {
        const head = this.stmt.lastEvent.get(runId) as ChainHead | undefined;
        checkCopiedRows(runId, head ?? null, rows, this.location);
        const events: StoredEvent[] = [];
        for (const r of rows) {
          const e = rowToEvent(r);
          const info = this.stmt.insertEvent.run(
            runId,
            r.seq,
            r.type,
            r.case_index,
            r.revision,
            r.at,
            r.payload,
            r.prev_hash,
            r.hash,
            eventKey(e),
          );
          events.push({ ...e, id: Number(info.lastInsertRowid) });
        }
        this.materialize(events);
      })
      .immediate();
  }

  /** `append`, synchronously (SQLite only). */
  appendSync(runId: string, events: readonly NewEvent[]): StoredEvent[] {
    this.flushSync();
    return this.commitGroups([{ runId, events }])[0];
  }

  appendSoon(runId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<void> {
    if (this.dead) return Promise.reject(new SimulatedCrash());
    if (options?.lease || options?.ifStatus) return this.append(runId, events, options).then(() => undefined);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ runId, events, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.flushSync();
        });
      }
    });
  }

  async flush(): Promise<void> {
    this.flushSync();
  }

  /** Commits the queued groups now: when it returns, everything queued so far is committed (or failed). */
  flushSync(): void {
    if (!this.queue.length) return;
    const { committed: batch, beyond } = splitAtCrash(this.queue, this.appends, this.options.crashAfterAppends);
    this.queue = [];
    try {
      if (batch.length) this.commitGroups(batch);
      for (const g of batch) g.resolve();
    } catch (e) {
      for (const g of batch) g.reject(e);
    }
    for (const g of beyond) g.reject(new SimulatedCrash());
  }

  /** Commits groups in one transaction, in order; returns each group's stored events. */
  private commitGroups(groups: readonly AppendGroup[]): StoredEvent[][] {
    if (this.dead) throw new SimulatedCrash();
    if (this.readonly || !this.commitTx) throw openedReadOnly(this.location);
    const cached = groups.some((g) => this.heads.has(g.runId));
    let stored: StoredEvent[][];
    try {
      stored = this.commitTx(groups, new Map(this.heads));
    } catch (e) {
      for (const g of groups) this.heads.delete(g.runId);
      // Someone else appended to one of these runs since our last write: read the heads and retry.
      const code = (e as { code?: string }).code;
      const seqCollision = code === 'SQLITE_CONSTRAINT_UNIQUE' && /events\.run_id, events\.seq/.test((e as Error).message);
      if (!cached || !seqCollision) throw this.translate(e);
      try {
        stored = this.commitTx(groups, new Map());
      } catch (e2) {
        throw this.translate(e2);
      }
    }
    for (const events of stored) {
      const last = events[events.length - 1];
      if (last) this.heads.set(last.runId, { seq: last.seq, hash: last.hash });
    }
    this.appends += groups.length;
    if (this.options.crashAfterAppends !== undefined && this.appends >= this.options.crashAfterAppends) {
      this.dead = true;
      throw new SimulatedCrash();
    }
    return stored;
  }

  /** SQLite failures people can act on become StoreErrors naming the file. */
  private translate(e: unknown): unknown {
    const message = (e as Error)?.message ?? '';
    if (/readonly database/i.test(message)) return readOnlyForYou(this.location, message, e);
    if (/events\.run_id, events\.key/.test(message)) return writtenTwice(this.location, message, e);
    return e;
  }

  /** The body of a commit (runs inside BEGIN IMMEDIATE … COMMIT); `heads` is updated as it goes. */
  private commitInTransaction(groups: readonly AppendGroup[], heads: Map<string, ChainHead>): StoredEvent[][] {
    // A loop into a literal, not map(): docs/performance.md#deoptimisations
    const all: StoredEvent[][] = [];
    for (const { runId, events } of groups) {
      const last = heads.get(runId) ?? (this.stmt.lastEvent.get(runId) as ChainHead | undefined);
      const linked = linkEvents(runId, last, events, this.clock, this.location, (row) =>
        Number(this.stmt.insertEvent.run(...row).lastInsertRowid),
      );
      heads.set(runId, linked.head);
      all.push(linked.stored);
    }
    this.materialize(all.length === 1 ? all[0] : all.flat());
    return all;
  }

  /** Updates the derived tables for events appended in this order (inside the append transaction). */
  private materialize(events: readonly StoredEvent[]): void {
    const s = this.stmt;
    const c = deriveChanges(events);
    for (const [runId, p] of c.planned) this.plannedCache.set(runId, p);
    for (const p of c.plans) {
      s.insertRun.run(
        p.runId,
        p.kind,
        p.controller,
        p.modelSpec,
        p.simulated ? 1 : 0,
        p.budget,
        p.protocol,
        p.planSha256,
        p.caseIds.length,
        p.at,
        p.at,
      );
      p.caseIds.forEach((id, i) => s.insertTrajectory.run(p.runId, i, id));
    }
    const [rRun, rCase, rRev, rText, rState, rEnergy, rJoint, rFeedback] = c.rounds;
    for (let i = 0; i < rRun.length; i++)
      s.insertRound.run(rRun[i], rCase[i], rRev[i], rText[i], rState[i], rEnergy[i], rJoint[i] ? 1 : 0, rFeedback[i]);
    const [dRun, dCase, started, finished, failed, rounds, finalJoint, status, reason] = c.deltas;
    for (let i = 0; i < dRun.length; i++) {
      const joint = finalJoint[i];
      s.applyDelta.run({
        runId: dRun[i],
        caseIndex: dCase[i],
        started: started[i],
        finished: finished[i],
        failed: failed[i],
        rounds: rounds[i],
        finalJoint: joint === null ? null : joint ? 1 : 0,
        status: status[i],
        reason: reason[i],
      });
    }
  }

  async rebuild(runId?: string): Promise<void> {
    const ids = runId ? [runId] : this.runIdsSync();
    this.db
      .transaction(() => {
        for (const id of ids) {
          for (const t of DERIVED_TABLES) this.db.prepare(`DELETE FROM ${t} WHERE run_id = ?`).run(id);
          this.materialize(this.readEventsSync(id));
        }
      })
      .immediate();
  }

  async createRun(runId: string, planned: RunPlannedPayload, seed: readonly NewEvent[] = []): Promise<void> {
    checkNewRunId(runId);
    checkNewPlan(runId, planned);
    if (this.getPlannedSync(runId)) throw runExists(runId, this.location);
    this.appendSync(runId, [{ type: 'run_planned', payload: planned }, ...seed]);
  }

  // ---- locking: one writing process per run ---------------------------------------------------

  async acquireLock(runId: string): Promise<void> {
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT pid, host, started_at FROM run_locks WHERE run_id = ?').get(runId) as
          { pid: number; host: string; started_at: string } | undefined;
        if (row && processAlive(row.pid, row.host, row.started_at) && !(row.pid === process.pid && row.host === hostname())) {
          throw new RunLockedError(
            `run '${runId}' is being written by process ${row.pid} on ${row.host} (since ${row.started_at}); wait for it or stop it, then resume`,
            { runId, pid: row.pid, host: row.host },
          );
        }
        this.db
          .prepare('INSERT OR REPLACE INTO run_locks (run_id, pid, host, started_at) VALUES (?, ?, ?, ?)')
          .run(runId, process.pid, hostname(), this.clock());
      })
      .immediate();
  }

  async releaseLock(runId: string): Promise<void> {
    this.releaseLockSync(runId);
  }

  async lockHolder(runId: string): Promise<LockHolder | null> {
    const row = this.db.prepare('SELECT pid, host, started_at FROM run_locks WHERE run_id = ?').get(runId) as
      { pid: number; host: string; started_at: string } | undefined;
    if (!row) return null;
    const state = row.host !== hostname() ? 'unknown' : processAlive(row.pid, row.host, row.started_at) ? 'alive' : 'gone';
    return { pid: row.pid, host: row.host, startedAt: row.started_at, state };
  }

  async clearStaleLock(runId: string, holder: LockHolder): Promise<boolean> {
    if (this.readonly) throw openedReadOnly(this.location);
    if (holder.host === hostname() && processAlive(holder.pid, holder.host, holder.startedAt)) return false;
    // Only the lock that was shown: a process that took the run meanwhile keeps its lock.
    const r = this.db
      .prepare('DELETE FROM run_locks WHERE run_id = ? AND pid = ? AND host = ? AND started_at = ?')
      .run(runId, holder.pid, holder.host, holder.startedAt);
    return r.changes > 0;
  }

  releaseLockSync(runId: string): void {
    if (!this.connection.open || this.readonly) return;
    this.db.prepare('DELETE FROM run_locks WHERE run_id = ? AND pid = ? AND host = ?').run(runId, process.pid, hostname());
  }

  // ---- reading -------------------------------------------------------------------------------

  async runIds(): Promise<string[]> {
    return this.runIdsSync();
  }

  private runIdsSync(): string[] {
    // A loose index scan over UNIQUE(run_id, seq): one seek per run, not a pass over every event.
    return (this.stmt.runIds.all() as Array<{ run_id: string }>).map((r) => r.run_id);
  }

  async getPlanned(runId: string): Promise<RunPlannedPayload | null> {
    return this.getPlannedSync(runId);
  }

  private getPlannedSync(runId: string): RunPlannedPayload | null {
    const cached = this.plannedCache.get(runId);
    if (cached) return cached;
    const row = this.stmt.planned.get(runId) as EventRow | undefined;
    return row ? this.plannedCache.parse(runId, row.payload) : null;
  }

  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<StoredEvent[]> {
    if (!options.types && options.keyPrefix === undefined && options.caseIndex === undefined) return this.readEventsSync(runId);
    const where = ['run_id = ?'];
    const args: unknown[] = [runId];
    if (options.caseIndex !== undefined) {
      where.push('case_index = ?');
      args.push(options.caseIndex);
    }
    if (options.types) {
      where.push(`type IN (${options.types.map(() => '?').join(', ')})`);
      args.push(...options.types);
    }
    if (options.keyPrefix !== undefined) {
      // A range on the unique index instead of LIKE (which would need escaping and skips the index).
      where.push('key >= ? AND key < ?');
      args.push(encodeColumn(options.keyPrefix), encodeColumn(options.keyPrefix) + '\u{10FFFF}');
    }
    // Within a run, id order is seq order (appends only); ordering by id lets one trajectory's events
    // come straight from events_case instead of a pass over the run's whole log in seq order.
    const order = options.caseIndex !== undefined ? 'id' : 'seq';
    const rows = this.db.prepare(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY ${order}`).all(...args) as EventRow[];
    return rows.map(rowToEvent);
  }

  private readEventsSync(runId: string): StoredEvent[] {
    return (this.stmt.events.all(runId) as EventRow[]).map(rowToEvent);
  }

  async rawEventRows(runId: string): Promise<EventRow[]> {
    return this.stmt.events.all(runId) as EventRow[];
  }

  async logHead(runId: string): Promise<{ seq: number; hash: string } | null> {
    const row = this.stmt.lastEvent.get(runId) as { seq: number; hash: string } | undefined;
    return row ? { seq: row.seq, hash: row.hash } : null;
  }

  async runRows(runId: string): Promise<RunRows> {
    return this.db.transaction(() => ({
      // Payloads as their stored bytes: hashed as they are, decoded only where a payload is read.
      events: this.stmt.eventsRaw.all(runId) as RawEventRow[],
      run: (this.db.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRowValues | undefined) ?? null,
      trajectories: this.db.prepare('SELECT * FROM trajectories WHERE run_id = ? ORDER BY case_index').all(runId) as TrajectoryRowValues[],
      rounds: this.db.prepare('SELECT * FROM rounds WHERE run_id = ? ORDER BY case_index, revision').all(runId) as RoundRowValues[],
    }))();
  }

  async scanRunRows(runId: string, visit: RunRowsVisitor, o: ScanOptions = {}): Promise<void> {
    const pageSize = o.logPage ?? SCAN_LOG_PAGE;
    const caseRange = o.caseRange ?? SCAN_CASE_RANGE;
    const raw = 'id, run_id, seq, type, case_index, revision, at, CAST(payload AS BLOB) AS payload, prev_hash, hash';
    const range = 'run_id = ? AND case_index >= ? AND case_index < ?';
    // One read transaction: every slice comes from the same snapshot.
    this.db.transaction(() => {
      visit.run((this.db.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRowValues | undefined) ?? null);
      const firstPage = this.db.prepare(`SELECT ${raw} FROM events WHERE run_id = ? ORDER BY seq LIMIT ?`);
      const nextPage = this.db.prepare(`SELECT ${raw} FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`);
      for (let after: number | null = null; ;) {
        const rows = (after === null ? firstPage.all(runId, pageSize) : nextPage.all(runId, after, pageSize)) as RawEventRow[];
        if (rows.length) visit.log(rows);
        if (rows.length < pageSize) break;
        after = rows[rows.length - 1].seq;
      }
      // Ranges start at the next case index any row names, so a forged far-off index costs one range, not a walk to it.
      // They walk whole numbers within ±2^53 only: an INTEGER column keeps whatever a forged row holds
      // (a text, a blob, a real, an integer where adding the range's width no longer moves a double),
      // and on those the walk would not end. Such rows come last, as one slice of their own.
      const whole = `typeof(case_index) = 'integer' AND case_index BETWEEN ${-Number.MAX_SAFE_INTEGER} AND ${Number.MAX_SAFE_INTEGER}`;
      const nextCase = this.db.prepare(
        `SELECT min(c) AS c FROM (
           SELECT min(case_index) AS c FROM events WHERE run_id = ? AND case_index >= ? AND ${whole}
           UNION ALL SELECT min(case_index) FROM trajectories WHERE run_id = ? AND case_index >= ? AND ${whole}
           UNION ALL SELECT min(case_index) FROM rounds WHERE run_id = ? AND case_index >= ? AND ${whole})`,
      );
      const next = (at: number) => (nextCase.get(runId, at, runId, at, runId, at) as { c: number | null }).c;
      const slice = (where: string) => ({
        events: this.db.prepare(`SELECT ${raw} FROM events WHERE ${where} ORDER BY seq`),
        trajectories: this.db.prepare(`SELECT * FROM trajectories WHERE ${where} ORDER BY case_index`),
        rounds: this.db.prepare(`SELECT * FROM rounds WHERE ${where} ORDER BY case_index, revision`),
      });
      const inRange = slice(`${range} AND ${whole}`);
      for (let from = next(-Number.MAX_SAFE_INTEGER); from !== null; from = next(from + caseRange)) {
        const to = from + caseRange;
        visit.cases({
          from,
          to,
          events: inRange.events.all(runId, from, to) as RawEventRow[],
          trajectories: inRange.trajectories.all(runId, from, to) as TrajectoryRowValues[],
          rounds: inRange.rounds.all(runId, from, to) as RoundRowValues[],
        });
      }
      const odd = slice(`run_id = ? AND case_index IS NOT NULL AND NOT (${whole})`);
      const rest = {
        events: odd.events.all(runId) as RawEventRow[],
        trajectories: odd.trajectories.all(runId) as TrajectoryRowValues[],
        rounds: odd.rounds.all(runId) as RoundRowValues[],
      };
      if (rest.events.length + rest.trajectories.length + rest.rounds.length > 0)
        visit.cases({ from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY, ...rest });
    })();
  }

  async reduce(runId: string): Promise<ReducedRun | null> {
    return reduceRun(this.readEventsSync(runId));
  }

  async listRuns(runIds?: readonly string[]): Promise<RunSummary[]> {
    // One read transaction: every summary (and its lastEventId) comes from the same snapshot.
    return this.db.transaction(() =>
      (runIds ?? this.runIdsSync()).map((id) => this.summary(id)).filter((s): s is RunSummary => s !== null),
    )();
  }

  async getRun(runId: string): Promise<RunInfo | null> {
    const planned = this.getPlannedSync(runId);
    const summary = this.db.transaction(() => this.summary(runId))();
    return planned && summary ? { runId, planned, summary } : null;
  }

  private summary(runId: string): RunSummary | null {
    const run = this.db.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow | undefined;
    if (!run) return null;
    const c = this.db
      .prepare(
        `SELECT
           SUM(status = 'complete') AS complete, SUM(status = 'incomplete') AS incomplete, SUM(status = 'pending') AS pending,
           SUM(status = 'complete' AND final_joint = 1) AS successes, SUM(n_rounds) AS rounds,
           SUM(attempts_finished) AS attempts, SUM(attempts_failed) AS failed
         FROM trajectories WHERE run_id = ?`,
      )
      .get(runId) as RunCounts;
    const lock = this.db.prepare('SELECT pid, host, started_at FROM run_locks WHERE run_id = ?').get(runId) as
      { pid: number; host: string; started_at: string } | undefined;
    const live = !!lock && processAlive(lock.pid, lock.host, lock.started_at);
    const last = this.stmt.lastEventIdAndTime.get(runId) as { id: number; at: string } | undefined;
    return runSummary(runId, run, c, last ?? null, live);
  }

  async loadTrajectories(
    runIds?: readonly string[],
    options: { from?: 'tables' | 'events'; cases?: readonly number[] } = {},
  ): Promise<TrajectoryRecord[]> {
    const ids = runIds ?? this.runIdsSync();
    const out: TrajectoryRecord[] = [];
    for (const id of ids) {
      if (!this.getPlannedSync(id)) throw runNotFound(id, this.location);
      let ts =
        options.from === 'events' ? (reduceRun(this.readEventsSync(id))?.trajectories ?? []) : this.materializedSync(id).trajectories;
      if (options.cases) {
        const wanted = new Set(options.cases);
        ts = ts.filter((t) => wanted.has(t.caseIndex));
      }
      out.push(...ts);
    }
    return out;
  }

  async trajectorySummaries(runId: string, query: TrajectoryQuery = {}): Promise<TrajectoryPage> {
    const where = ['t.run_id = ?'];
    const args: unknown[] = [runId];
    if (query.caseIndexes) {
      // One JSON parameter instead of one per index (a filter may select tens of thousands).
      where.push('t.case_index IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(query.caseIndexes));
    }
    if (query.text) {
      // lower() folds ASCII letters only (SQLite without ICU), as the filter's semantics ask; instr is
      // a plain substring search (memcmp), unlike LIKE's pattern walk whose cost grew with the query.
      const needle = encodeColumn(query.text).replace(/[A-Z]/g, (c) => c.toLowerCase());
      where.push(
        '(instr(lower(t.case_id), ?) > 0 OR EXISTS (SELECT 1 FROM rounds r WHERE r.run_id = t.run_id AND r.case_index = t.case_index AND instr(lower(r.text), ?) > 0))',
      );
      args.push(needle, needle);
    }
    const offset = Math.max(0, Math.floor(query.offset ?? 0));
    const limit = query.limit === undefined ? -1 : Math.max(0, Math.floor(query.limit));
    const cond = where.join(' AND ');
    return this.db.transaction(() => {
      const total = (this.db.prepare(`SELECT count(*) AS n FROM trajectories t WHERE ${cond}`).get(...args) as { n: number }).n;
      const rows = this.db
        .prepare(
          `SELECT t.*, (SELECT r.energy FROM rounds r WHERE r.run_id = t.run_id AND r.case_index = t.case_index ORDER BY r.revision DESC LIMIT 1) AS final_energy
           FROM trajectories t WHERE ${cond} ORDER BY t.case_index LIMIT ? OFFSET ?`,
        )
        .all(...args, limit, offset) as TrajectorySummaryRow[];
      return { total, rows: rows.map(trajectorySummary) };
    })();
  }

  async trajectoriesAt(runId: string, caseIndexes: readonly number[]): Promise<TrajectoryRecord[]> {
    return this.db.transaction(() => this.materializeCases(runId, caseIndexes).trajectories)();
  }

  async eventsAfter(cursor: number, limit: number): Promise<StoredEvent[]> {
    return (this.stmt.eventsAfter.all(Math.floor(cursor), Math.max(0, Math.floor(limit))) as EventRow[]).map(rowToEvent);
  }

  async eventSummariesAfter(cursor: number, limit: number): Promise<EventSummary[]> {
    return (this.stmt.eventSummariesAfter.all(Math.floor(cursor), Math.max(0, Math.floor(limit))) as EventSummaryRow[]).map(eventSummary);
  }

  async materialized(runId: string): Promise<MaterializedRun> {
    return this.materializedSync(runId);
  }

  private materializedSync(runId: string): MaterializedRun {
    return this.materializeCases(runId, null);
  }

  /** Trajectories of a run from the derived tables: every case (null), or only the given ones in case order. */
  private materializeCases(runId: string, only: readonly number[] | null): MaterializedRun {
    const selected = selectCases(this.getPlannedSync(runId), only);
    if (!selected) return { trajectories: [], attempts: [], nRounds: [] };
    const filter = only ? ' AND case_index IN (SELECT value FROM json_each(?))' : '';
    const args: unknown[] = only ? [runId, JSON.stringify(selected.indexes)] : [runId];
    const rows = this.db
      .prepare(`SELECT * FROM trajectories WHERE run_id = ?${filter} ORDER BY case_index`)
      .all(...args) as TrajectoryRow[];
    const rounds = this.db
      .prepare(`SELECT * FROM rounds WHERE run_id = ?${filter} ORDER BY case_index, revision`)
      .all(...args) as RoundRow[];
    return foldTables(runId, selected, rows, rounds);
  }
}
