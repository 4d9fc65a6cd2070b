// The run store: one interface for every backend. A store holds an append-only, hash-chained event
// log per run (the only source of truth) and tables derived from it in the same transaction as
// each append, which make listing and reading fast. Every run of every study lives here, under a
// kind its study registered (run-kinds.ts): trajectory runs as trajectories, other studies' runs as
// keyed `record` events (see study-runs.ts).
//
// The interface is asynchronous so that a networked database can stand behind it; the SQLite
// backend (the default, sqlite/sqlite-store.ts) does its work synchronously inside each call.
import { markErrorClass, RevloopError, UserError } from '../core/errors.ts';
import type { NewEvent, RunPlannedPayload, StoredEvent } from './events.ts';
import type { EventRow } from './chain.ts';
import type { RunRows, RunRowsVisitor, ScanOptions } from './integrity.ts';
import type { AttemptCounts, ReducedRun } from './reduce.ts';
import type { TrajectoryRecord, TrajectoryStatus } from './types.ts';

/** Options of `openStore`: read-only, durability (default `normal`), a clock. */
export interface StoreOptions {
  readonly?: boolean;
  /** 'normal' (default): nothing committed is lost when a process dies. 'full': also survive power loss (slower). */
  durability?: 'normal' | 'full';
  /** Timestamp source (tests pin it). */
  clock?: () => string;
}

/** What the backends take: StoreOptions and fault injection, which only `revloop/test` sets (openCrashingStore). */
export interface BackendOptions extends StoreOptions {
  /** The store "dies" right after this many committed appends (SimulatedCrash). */
  crashAfterAppends?: number;
}

/**
 * A run's status: complete, incomplete, running (a live process holds it), planned (nothing run yet:
 * planned for workers, or stopped before its first generation ended) or interrupted.
 */
export type RunStatus = 'complete' | 'incomplete' | 'running' | 'planned' | 'interrupted';

/**
 * A worker's claim on one trajectory (PostgreSQL stores; docs/workers.md). Writes made under a lease
 * are accepted only while it is still the trajectory's current claim: the store checks worker and
 * epoch in the same transaction that appends, so a worker whose lease was taken over can never add
 * to the trajectory again.
 */
export interface Lease {
  runId: string;
  caseIndex: number;
  /** The claiming worker's number in the store. */
  worker: number;
  /** Incremented by every claim of the trajectory. */
  epoch: number;
}

/** Options of an append. */
export interface AppendOptions {
  /** Append only while this lease is the trajectory's current claim (otherwise LeaseLostError). */
  lease?: Lease;
  /**
   * Append only if the trajectory (`caseIndex` of the first event) still has this status when the
   * transaction checks it; otherwise append nothing and return []. (Reopening a protocol-incomplete
   * trajectory exactly once, however many planners try.)
   */
  ifStatus?: TrajectoryStatus;
}

/** A registered worker, as `revloop runs` lists it. */
export interface WorkerInfo {
  worker: number;
  /** host:pid#number, for people. */
  name: string;
  host: string;
  pid: number;
  concurrency: number;
  leaseSeconds: number;
  startedAt: string;
  heartbeatAt: string;
  /** Its database session is still open (it holds its liveness lock). */
  alive: boolean;
  stoppedAt: string | null;
  /** Writes refused because the lease they were made under had been taken over. */
  rejectedWrites: number;
  /** The pending trajectories it holds: none once its session is gone (its claims ended with it). */
  leases: Array<{ runId: string; caseIndex: number; epoch: number; expiresAt: string; expired: boolean }>;
  /**
   * A worker whose session ended without stopping (killed, crashed or disconnected): the pending
   * trajectories it was running then, which any worker may claim at once (not only after their
   * lease expires), until one does. Empty for live and stopped workers.
   */
  released: Array<{ runId: string; caseIndex: number }>;
}

/**
 * Leases on trajectories, for many workers sharing runs (PostgreSQL). Claims take pending
 * trajectories whose lease is free, expired, or held by a worker whose session is gone, with
 * `FOR UPDATE SKIP LOCKED`; every claim increments the trajectory's epoch.
 */
export interface LeaseSupport {
  /** Registers this process as a worker (held alive by its database session); returns its number. */
  register(info: { concurrency: number; leaseSeconds: number }): Promise<number>;
  /**
   * Claims up to `limit` trajectories (of one run, or of every run in creation order but those in
   * `exceptRuns`: runs this worker cannot run).
   */
  claim(worker: number, o: { runId?: string; limit: number; leaseSeconds: number; exceptRuns?: readonly string[] }): Promise<Lease[]>;
  /** Extends every lease the worker still holds and beats its heartbeat; returns those leases. */
  renew(worker: number, leaseSeconds: number): Promise<Lease[]>;
  /** Gives a lease back (a no-op when it is no longer this claim). */
  release(lease: Lease): Promise<void>;
  /** Marks the worker stopped and gives back every lease it holds. */
  unregister(worker: number): Promise<void>;
  /** Workers seen recently (alive, or stopped within the last hour) with their leases. */
  workers(): Promise<WorkerInfo[]>;
  /**
   * Pending trajectories of every run planned for workers (but those in `exceptRuns`), leased or
   * not: 0 means a worker on every run has nothing left to wait for.
   */
  pending(exceptRuns?: readonly string[]): Promise<number>;
}

/** The recorded holder of a run's lock. */
export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  /**
   * 'alive': known to be running (a process on this host, or a live database session);
   * 'gone': known to be dead; 'unknown': on another host, which cannot be checked from here.
   */
  state: 'alive' | 'gone' | 'unknown';
}

/** A second plan for an existing run (createRun, or two planners racing): refused whole. */
export class RunExistsError extends UserError {
  /** Whether `e` is a RunExistsError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<RunExistsError>(this, 'revloop.error.RunExistsError');
  readonly runId: string;
  /** The store's path or redacted URL. */
  readonly location: string;

  constructor(message: string, options: { runId: string; location: string; cause?: unknown }) {
    super(message, options);
    this.runId = options.runId;
    this.location = options.location;
    this.name = 'RunExistsError';
  }
}

/** The RunExistsError of run `runId` in the store at `location`: the stores' one wording of it. */
export function runExists(runId: string, location: string): RunExistsError {
  return new RunExistsError(`run '${runId}' already exists in ${location}`, { runId, location });
}

/**
 * A write refused because the lease it was made under is no longer the trajectory's claim: another
 * worker took the trajectory over (what a worker does is give it up, not report it).
 */
export class LeaseLostError extends RevloopError {
  /** Whether `e` is a LeaseLostError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<LeaseLostError>(this, 'revloop.error.LeaseLostError');
  readonly lease: Lease;

  constructor(message: string, options: { lease: Lease; cause?: unknown }) {
    super(message, { ...options, code: 'E_LEASE_LOST' });
    this.lease = options.lease;
    this.name = 'LeaseLostError';
  }
}

/** One line of `RunStore.listRuns`: the run's kind, status, counts, controller and protocol, and whether it is simulated. */
export interface RunSummary {
  runId: string;
  /** The plan's kind: run, import, or another a study registered (run-kinds.ts). */
  kind: string;
  controller: string;
  modelSpec: string;
  simulated: boolean;
  budget: number;
  protocol: string;
  planSha256: string;
  cases: number;
  /** Trajectories under a live lease (workers; 0 on SQLite). */
  leased?: number;
  complete: number;
  incomplete: number;
  pending: number;
  successes: number;
  rounds: number;
  attempts: number;
  failedAttempts: number;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  /**
   * Global id of the run's latest event: a cursor for `eventsAfter`. `listRuns` reads every
   * summary in one snapshot, so the largest `lastEventId` of a listing is a cursor after which
   * nothing the listing already reflects is delivered again, and nothing it misses is skipped.
   */
  lastEventId: number;
}

/** One run's plan event and summary (`RunStore.getRun`). */
export interface RunInfo {
  runId: string;
  planned: RunPlannedPayload;
  summary: RunSummary;
}

/** A run's trajectories and attempt counts as the derived tables hold them. */
export interface MaterializedRun {
  trajectories: TrajectoryRecord[];
  attempts: AttemptCounts[];
  nRounds: number[];
}

/** Thrown by a store whose injected crash point was reached; every later write throws it too. */
export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash (fault injection)');
    this.name = 'SimulatedCrash';
  }
}

/**
 * Fault injection (`crashAfterAppends`): of a batch of queued groups, those the store commits
 * before it dies right after its n-th committed group, and those beyond (lost whole).
 */
export function splitAtCrash<T>(batch: T[], appends: number, crashAt: number | undefined): { committed: T[]; beyond: T[] } {
  if (crashAt === undefined || appends + batch.length <= crashAt) return { committed: batch, beyond: [] };
  const n = Math.max(0, crashAt - appends);
  return { committed: batch.slice(0, n), beyond: batch.slice(n) };
}

/**
 * One event without its payload, what a live view follows (`RunStore.eventSummariesAfter`): where
 * it is and the few facts a progress display needs, read without parsing drafts or replies.
 */
export interface EventSummary {
  id: number;
  runId: string;
  seq: number;
  type: string;
  caseIndex: number | null;
  revision: number | null;
  at: string;
  /** draft_accepted: its joint flag; trajectory_completed: final_joint. */
  joint?: boolean;
  /** attempt_finished: whether it succeeded, and a failure's kind. */
  ok?: boolean;
  errorKind?: string;
  /** trajectory_completed: why it stopped. */
  stop?: string;
}

/** A summary row as both backends select it (see eventSummary). */
export interface EventSummaryRow {
  id: number;
  run_id: string;
  seq: number;
  type: string;
  case_index: number | null;
  revision: number | null;
  at: string;
  /** attempt_finished: the payload's first characters. */
  head: string | null;
  /** trajectory_completed and failed attempt_finished: the whole (small) payload. */
  small: string | null;
  /** draft_accepted: its round's joint flag. */
  joint: boolean | number | null;
}

/** The summary of a row from the summary query (a payload that does not parse gives no facts). */
export function eventSummary(r: EventSummaryRow): EventSummary {
  const out: EventSummary = {
    id: r.id,
    runId: r.run_id,
    seq: r.seq,
    type: r.type,
    caseIndex: r.case_index,
    revision: r.revision,
    at: r.at,
  };
  if (r.type === 'draft_accepted' && r.joint !== null) out.joint = r.joint === true || r.joint === 1;
  if (r.type === 'attempt_finished' && r.head) {
    const m = /"record":\{"ok":(true|false)/.exec(r.head);
    if (m) out.ok = m[1] === 'true';
  }
  if (r.small !== null) {
    try {
      const p = JSON.parse(r.small);
      if (r.type === 'trajectory_completed') {
        out.joint = p.final_joint === true;
        out.stop = String(p.stop);
      } else if (typeof p?.record?.error?.kind === 'string') out.errorKind = p.record.error.kind;
    } catch {
      // a payload that is not JSON: the chain check reports it
    }
  }
  return out;
}

/** Options of `RunStore.readEvents`: only some event types, or only keys with a prefix. */
export interface ReadEventsOptions {
  types?: readonly string[];
  /** Only events whose unique key starts with this (e.g. `score:` for one kind of study record). */
  keyPrefix?: string;
  /** Only the events of this trajectory (its case index): one trajectory's story, attempts included. */
  caseIndex?: number;
}

/** One trajectory as the derived tables hold it, without its texts: for tables, filters and live progress. */
export interface TrajectorySummary {
  caseIndex: number;
  caseId: string;
  status: TrajectoryStatus;
  incompleteReason: string | null;
  /** Accepted drafts so far. */
  rounds: number;
  /** Joint success of the latest accepted draft (null before the first). */
  finalJoint: boolean | null;
  /** Energy of the latest accepted draft (null before the first). */
  finalEnergy: number | null;
  attempts: AttemptCounts;
}

/**
 * Which of a run's trajectories `trajectorySummaries` returns, in case order. Every backend
 * implements the same semantics (docs/store.md, "Paged reads").
 */
export interface TrajectoryQuery {
  /** Only these case indexes (any order; duplicates and unknown indexes ignored). Default: every case. */
  caseIndexes?: readonly number[];
  /**
   * Only trajectories whose case id or any accepted draft contains this text; ASCII letters match
   * case-insensitively (other characters exactly). Empty: no text filter.
   */
  text?: string;
  /** Matches to skip (default 0). */
  offset?: number;
  /** Most rows to return (default: all). */
  limit?: number;
}

export interface TrajectoryPage {
  /** Matches before offset and limit. */
  total: number;
  rows: TrajectorySummary[];
}

/**
 * The run store: every run an append-only, hash-chained event log, with derived tables for reading. Open one with `openStore`; reading
 * methods never change it.
 */
export interface RunStore {
  /** Where the store is: a file path, or a URL with any password removed. */
  readonly location: string;
  readonly readonly: boolean;
  /** Leases for many workers sharing runs; null when the backend has one writer per run (SQLite). */
  readonly leases: LeaseSupport | null;

  // ---- writing ----
  /**
   * Appends events to a run's log in one transaction, updating the derived tables with them.
   * Groups queued by `appendSoon` are committed first, so the log keeps the order of the calls.
   */
  append(runId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<StoredEvent[]>;
  /**
   * Group commit: queues events to be appended in one transaction with every other group queued in
   * this turn of the event loop, and resolves once they are committed (rejects if the commit fails).
   * Callers must not act on the events (e.g. start the next generation) before it resolves; a process
   * killed meanwhile loses the queued groups whole, never part of one.
   */
  appendSoon(runId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<void>;
  /**
   * Appends rows copied from another store verbatim (times and hashes kept): they must continue
   * the run's chain from its last event here, and each must hash correctly; derived tables follow.
   */
  appendRows(runId: string, rows: readonly EventRow[]): Promise<void>;
  /** Commits the queued groups now. */
  flush(): Promise<void>;
  /**
   * Creates a run with its plan as the first event (refuses an existing run id); `seed` events
   * (a trajectory study's frozen rounds) are appended in the same transaction, so a run never exists
   * without them.
   */
  createRun(runId: string, planned: RunPlannedPayload, seed?: readonly NewEvent[]): Promise<void>;
  /** Claims a run for this process; refuses when another live process holds it. */
  acquireLock(runId: string): Promise<void>;
  releaseLock(runId: string): Promise<void>;
  /** Who holds the run's lock, as recorded (null: nobody), and whether that holder is known to be alive. */
  lockHolder(runId: string): Promise<LockHolder | null>;
  /**
   * Clears a stale lock (`revloop runs --release-lock`): only the holder given (still the one
   * recorded), and never one known to be alive. Returns whether a lock was cleared.
   */
  clearStaleLock(runId: string, holder: LockHolder): Promise<boolean>;
  /** Drops and refills the derived tables of one run (or all) from the events. */
  rebuild(runId?: string): Promise<void>;

  // ---- reading ----
  runIds(): Promise<string[]>;
  getPlanned(runId: string): Promise<RunPlannedPayload | null>;
  /** The run's events in log order (optionally only some types, or only keys starting with a prefix). */
  readEvents(runId: string, options?: ReadEventsOptions): Promise<StoredEvent[]>;
  /** Event rows exactly as stored, payload unparsed (the audit re-hashes these bytes). */
  rawEventRows(runId: string): Promise<EventRow[]>;
  /** The run's head: its last event's seq and hash (null: no events). What `run` prints when it ends. */
  logHead(runId: string): Promise<{ seq: number; hash: string } | null>;
  /**
   * The run's event rows and its rows of every derived table exactly as stored, all from one snapshot
   * (integrity.ts compares them; a run being written never shows a round ahead of its events).
   */
  runRows(runId: string): Promise<RunRows>;
  /**
   * What `runRows` reads, from one snapshot, handed to `visit` a slice at a time so that a reader
   * holds one slice, not the run (a paper-size run is hundreds of MB): the run's row, its event rows
   * in seq order page by page, then its derived rows and their events case range by case range.
   */
  scanRunRows(runId: string, visit: RunRowsVisitor, options?: ScanOptions): Promise<void>;
  /** A fresh reduction of the run's events (ignores the derived tables). */
  reduce(runId: string): Promise<ReducedRun | null>;
  /**
   * Summaries of every run in creation order — or of the given runs, in the order given, unknown ids
   * left out — from the derived tables (plans are not read), all from one snapshot.
   */
  listRuns(runIds?: readonly string[]): Promise<RunSummary[]>;
  getRun(runId: string): Promise<RunInfo | null>;
  /**
   * Every run's events with a global id above `cursor`, in id order (at most `limit`); ids only grow.
   * A live view polls it with the last id it has seen (0 for the whole log) and misses nothing.
   */
  eventsAfter(cursor: number, limit: number): Promise<StoredEvent[]>;
  /**
   * `eventsAfter` without payloads: each event's place and a summary (a draft's joint flag, an
   * attempt's outcome, a completion's stop), read without parsing drafts or replies. What the
   * viewer's live stream sends, so a replay of a large log costs ids, not payloads.
   */
  eventSummariesAfter(cursor: number, limit: number): Promise<EventSummary[]>;
  /**
   * Trajectories in case order, read from the derived tables (or a fresh reduction of events);
   * `cases` reads only those case indexes (tables only).
   */
  loadTrajectories(
    runIds?: readonly string[],
    options?: { from?: 'tables' | 'events'; cases?: readonly number[] },
  ): Promise<TrajectoryRecord[]>;
  materialized(runId: string): Promise<MaterializedRun>;
  /** One page of a run's trajectories from the derived tables, in case order, without texts. */
  trajectorySummaries(runId: string, query?: TrajectoryQuery): Promise<TrajectoryPage>;
  /** Full records (rounds included) of some trajectories of one run, in case order; unknown indexes are skipped. */
  trajectoriesAt(runId: string, caseIndexes: readonly number[]): Promise<TrajectoryRecord[]>;

  close(): Promise<void>;
}

/** Whether a store location names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** A store location fit to print: a URL's password is replaced by `***`. */
export function redactLocation(location: string): string {
  if (!isPostgresLocation(location)) return location;
  return location.replace(/^(postgres(?:ql)?:\/\/[^:/?#@]*):[^@/?#]*@/i, '$1:***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/**
 * Opens a store. A path (or `sqlite:<path>`) is a SQLite file, created on first write; only an
 * empty or new file becomes a store. `postgres://user@host:port/db[?schema=name&pool=N]` is a
 * PostgreSQL database (schema `revloop` unless named; `pool`: connections pooled, default 4),
 * created and migrated on first write.
 */
export async function openStore(location: string, options: StoreOptions = {}): Promise<RunStore> {
  // Fault injection is revloop/test's (openBackend), never an option of a store opened here.
  const { crashAfterAppends: _, ...rest } = options as BackendOptions;
  return openBackend(location, rest);
}

/** openStore with the backends' own options (fault injection): `revloop/test` opens crashing stores with it. */
export async function openBackend(location: string, options: BackendOptions): Promise<RunStore> {
  if (isPostgresLocation(location)) {
    const { openPostgresStore } = await import('./postgres/postgres-store.ts');
    return openPostgresStore(location, options);
  }
  const { openSqliteStore } = await import('./sqlite/sqlite-store.ts');
  return openSqliteStore(location.startsWith('sqlite:') ? location.slice('sqlite:'.length) : location, options);
}

/** Runs `work` with a store opened for it, closing the store afterwards whatever happens. */
export async function withStore<T>(location: string, options: StoreOptions, work: (store: RunStore) => Promise<T> | T): Promise<T> {
  const store = await openStore(location, options);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
