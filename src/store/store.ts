// The run store: one SQLite file (WAL) holding an append-only, hash-chained event log per run, and
// tables derived from it that are updated in the same transaction as each append. Writes are
// transactional — at once (`append`) or grouped with the others of the same event-loop turn
// (`appendSoon`, resolved after the commit) — so a process killed at any moment leaves every
// committed event and its derived rows, and nothing half-written.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { UserError } from '../core/errors.ts';
import { processAlive } from '../core/util/process-alive.ts';
import type { NewEvent, RunPlannedPayload, StoredEvent } from './events.ts';
import { initialTrajectory, reduceRun, type AttemptCounts, type ReducedRun } from './reduce.ts';
import { DERIVED_TABLES, SCHEMA_SQL, SCHEMA_VERSION } from './schema.ts';
import type { TrajectoryRecord, TrajectoryStatus } from './types.ts';

export const GENESIS_HASH = '0'.repeat(64);

export interface StoreOptions {
  readonly?: boolean;
  /** 'normal' (default): WAL with synchronous=NORMAL, nothing committed is lost when a process dies.
   * 'full': also fsync every commit (survives power loss; slower). */
  durability?: 'normal' | 'full';
  /** Timestamp source (tests pin it). */
  clock?: () => string;
  /** Fault injection for crash tests: the store "dies" right after this many committed appends. */
  crashAfterAppends?: number;
}

export type RunStatus = 'complete' | 'incomplete' | 'running' | 'interrupted';

export interface RunSummary {
  runId: string;
  kind: string;
  controller: string;
  modelSpec: string;
  simulated: boolean;
  budget: number;
  protocol: string;
  planSha256: string;
  cases: number;
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
}

export interface RunInfo {
  runId: string;
  planned: RunPlannedPayload;
  summary: RunSummary;
}

/** Thrown by a store whose injected crash point was reached; every later write throws it too. */
export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash (fault injection)');
    this.name = 'SimulatedCrash';
  }
}

/** SHA-256 of the event's fields and payload joined by newlines (the payload hashed in place, not copied). */
export function eventHash(
  prevHash: string,
  runId: string,
  seq: number,
  type: string,
  caseIndex: number | null,
  revision: number | null,
  at: string,
  payload: string,
): string {
  return createHash('sha256')
    .update(`${prevHash}\n${runId}\n${seq}\n${type}\n${caseIndex ?? ''}\n${revision ?? ''}\n${at}\n`)
    .update(payload)
    .digest('hex');
}

interface ChainHead {
  seq: number;
  hash: string;
}

interface AppendGroup {
  runId: string;
  events: readonly NewEvent[];
}

interface QueuedGroup extends AppendGroup {
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface EventRow {
  id: number;
  run_id: string;
  seq: number;
  type: string;
  case_index: number | null;
  revision: number | null;
  at: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

export function rowToEvent(r: EventRow): StoredEvent {
  return {
    id: r.id,
    runId: r.run_id,
    seq: r.seq,
    type: r.type,
    caseIndex: r.case_index,
    revision: r.revision,
    at: r.at,
    payload: JSON.parse(r.payload),
    prevHash: r.prev_hash,
    hash: r.hash,
  } as StoredEvent;
}

/**
 * A read-only open of a brand-new, still empty database file: another process has just created it
 * and is about to write the schema (one transaction). Wait up to two seconds for it, then tell the
 * user plainly that the file is not (yet) a revloop store.
 */
function waitWhileBeingCreated(db: Database.Database, path: string): void {
  const tables = db.prepare('SELECT count(*) AS n FROM sqlite_master');
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; (tables.get() as { n: number }).n === 0; waited += 50) {
    if (waited >= 2000) {
      db.close();
      throw new UserError(
        `${path}: the file is an empty database, not a revloop store yet (start a run with \`revloop run --store ${path} …\`)`,
      );
    }
    Atomics.wait(sleeper, 0, 0, 50);
  }
}

export function openStore(path: string, options: StoreOptions = {}): RunStore {
  if (options.readonly && !existsSync(path)) throw new UserError(`${path}: no such store (run \`revloop run --store ${path} …\` first)`);
  if (!options.readonly) mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    db.pragma('busy_timeout = 10000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
      // One transaction, so a reader opening a store that is being created sees all of it or none.
      db.transaction(() => {
        db.exec(SCHEMA_SQL);
        const v = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
        if (!v) db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
      }).immediate();
    } else {
      waitWhileBeingCreated(db, path);
    }
    const v = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    if (v && Number(v.value) > SCHEMA_VERSION) {
      db.close();
      throw new UserError(
        `${path}: store schema version ${v.value} is newer than this revloop understands (${SCHEMA_VERSION}); upgrade revloop`,
      );
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${path}: cannot open as a revloop store (${(e as Error).message})`);
  }
  return new RunStore(db, path, options);
}

export class RunStore {
  private readonly clock: () => string;
  private appends = 0;
  private dead = false;
  private readonly plannedCache = new Map<string, RunPlannedPayload>();
  private readonly stmt: Record<string, Database.Statement>;
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
    readonly db: Database.Database,
    readonly path: string,
    private readonly options: StoreOptions,
  ) {
    this.clock = options.clock ?? (() => new Date().toISOString());
    const ro = options.readonly;
    const p = (sql: string) => db.prepare(sql);
    this.stmt = {
      lastEvent: p('SELECT seq, hash FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1'),
      planned: p("SELECT * FROM events WHERE run_id = ? AND type = 'run_planned' ORDER BY seq LIMIT 1"),
      events: p('SELECT * FROM events WHERE run_id = ? ORDER BY seq'),
      ...(ro
        ? {}
        : {
            insertEvent: p(
              'INSERT INTO events (run_id, seq, type, case_index, revision, at, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
            ),
            insertRun: p(
              'INSERT OR REPLACE INTO runs (run_id, kind, controller, model_spec, simulated, budget, protocol, plan_sha256, n_cases, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            ),
            touchRun: p('UPDATE runs SET updated_at = ? WHERE run_id = ?'),
            insertTrajectory: p(
              "INSERT OR REPLACE INTO trajectories (run_id, case_index, case_id, status, reason, n_rounds, final_joint, attempts_started, attempts_finished, attempts_failed) VALUES (?, ?, ?, 'pending', NULL, 0, NULL, 0, 0, 0)",
            ),
            attemptStarted: p('UPDATE trajectories SET attempts_started = attempts_started + 1 WHERE run_id = ? AND case_index = ?'),
            attemptFinished: p(
              'UPDATE trajectories SET attempts_finished = attempts_finished + 1, attempts_failed = attempts_failed + ? WHERE run_id = ? AND case_index = ?',
            ),
            insertRound: p(
              'INSERT OR REPLACE INTO rounds (run_id, case_index, revision, text, state, energy, joint, feedback) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            ),
            roundAdded: p('UPDATE trajectories SET n_rounds = n_rounds + 1, final_joint = ? WHERE run_id = ? AND case_index = ?'),
            setStatus: p('UPDATE trajectories SET status = ?, reason = ? WHERE run_id = ? AND case_index = ?'),
          }),
    };
    if (!ro) this.commitTx = db.transaction(this.commitInTransaction.bind(this)).immediate;
  }

  close(): void {
    if (!this.db.open) return;
    this.flush();
    this.db.close();
  }

  // ---- writing -------------------------------------------------------------------------------

  /**
   * Appends events to a run's log in one transaction, updating the derived tables with them.
   * Groups queued by `appendSoon` are committed first, so the log keeps the order of the calls.
   */
  append(runId: string, events: readonly NewEvent[]): StoredEvent[] {
    this.flush();
    return this.commitGroups([{ runId, events }])[0];
  }

  /**
   * Group commit: queues events to be appended, in one transaction with every other group queued in
   * this turn of the event loop, and resolves once they are committed (rejects if the commit fails).
   * Callers must not act on the events (e.g. start the next generation) before it resolves; a
   * process killed meanwhile loses the queued groups whole, never part of one.
   */
  appendSoon(runId: string, events: readonly NewEvent[]): Promise<void> {
    if (this.dead) return Promise.reject(new SimulatedCrash());
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ runId, events, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Commits the queued groups now: when it returns, everything queued so far is committed (or failed). */
  flush(): void {
    if (!this.queue.length) return;
    let batch = this.queue;
    this.queue = [];
    // Fault injection keeps its meaning: the store dies right after its n-th committed group.
    const crashAt = this.options.crashAfterAppends;
    let beyond: QueuedGroup[] = [];
    if (crashAt !== undefined && this.appends + batch.length > crashAt) {
      beyond = batch.slice(Math.max(0, crashAt - this.appends));
      batch = batch.slice(0, Math.max(0, crashAt - this.appends));
    }
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
    if (this.options.readonly || !this.commitTx) throw new Error('store opened read-only');
    const cached = groups.some((g) => this.heads.has(g.runId));
    let stored: StoredEvent[][];
    try {
      stored = this.commitTx(groups, new Map(this.heads));
    } catch (e) {
      for (const g of groups) this.heads.delete(g.runId);
      // Someone else appended to one of these runs since our last write: read the heads and retry.
      if (!cached || (e as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw e;
      stored = this.commitTx(groups, new Map());
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

  /** The body of a commit (runs inside BEGIN IMMEDIATE … COMMIT); `heads` is updated as it goes. */
  private commitInTransaction(groups: readonly AppendGroup[], heads: Map<string, ChainHead>): StoredEvent[][] {
    const touched = new Map<string, string>();
    const all = groups.map(({ runId, events }) => {
      const last = heads.get(runId) ?? (this.stmt.lastEvent.get(runId) as ChainHead | undefined);
      let seq = last?.seq ?? 0;
      let prev = last?.hash ?? GENESIS_HASH;
      const out: StoredEvent[] = [];
      for (const e of events) {
        if (seq === 0 && e.type !== 'run_planned') throw new Error(`run ${runId}: the first event must be run_planned`);
        seq++;
        const at = this.clock();
        const payload = JSON.stringify(e.payload);
        const caseIndex = e.caseIndex ?? null;
        const revision = e.revision ?? null;
        const hash = eventHash(prev, runId, seq, e.type, caseIndex, revision, at, payload);
        const info = this.stmt.insertEvent.run(runId, seq, e.type, caseIndex, revision, at, payload, prev, hash);
        const ev = { ...e, id: Number(info.lastInsertRowid), runId, seq, at, caseIndex, revision, prevHash: prev, hash } as StoredEvent;
        this.materialize(ev);
        out.push(ev);
        prev = hash;
      }
      heads.set(runId, { seq, hash: prev });
      if (out.length) touched.set(runId, out[out.length - 1].at);
      return out;
    });
    for (const [runId, at] of touched) this.stmt.touchRun.run(at, runId);
    return all;
  }

  /** Updates the derived tables for one event (inside the append transaction). */
  private materialize(e: StoredEvent): void {
    const s = this.stmt;
    switch (e.type) {
      case 'run_planned': {
        const p = e.payload;
        this.plannedCache.set(e.runId, p);
        s.insertRun.run(
          e.runId,
          p.plan.kind,
          p.plan.controller.label,
          p.plan.controller.spec,
          p.plan.controller.simulated ? 1 : 0,
          p.plan.protocol.budget,
          p.plan.protocol.name,
          p.plan_sha256,
          p.cases.length,
          e.at,
          e.at,
        );
        p.cases.forEach((c, i) => s.insertTrajectory.run(e.runId, i, c.id));
        break;
      }
      case 'attempt_started':
        s.attemptStarted.run(e.runId, e.caseIndex);
        break;
      case 'attempt_finished':
        s.attemptFinished.run(e.payload.record.ok ? 0 : 1, e.runId, e.caseIndex);
        break;
      case 'draft_accepted': {
        const p = e.payload;
        s.insertRound.run(e.runId, e.caseIndex, e.revision, p.text, JSON.stringify(p.state), p.energy, p.joint ? 1 : 0, p.feedback);
        s.roundAdded.run(p.joint ? 1 : 0, e.runId, e.caseIndex);
        break;
      }
      case 'trajectory_completed':
        s.setStatus.run('complete', null, e.runId, e.caseIndex);
        break;
      case 'trajectory_incomplete':
        s.setStatus.run('incomplete', e.payload.reason, e.runId, e.caseIndex);
        break;
      case 'trajectory_reopened':
        s.setStatus.run('pending', null, e.runId, e.caseIndex);
        break;
      default:
        break;
    }
  }

  /** Drops and refills the derived tables of one run (or all) from the events. */
  rebuild(runId?: string): void {
    const ids = runId ? [runId] : this.runIds();
    this.db
      .transaction(() => {
        for (const id of ids) {
          for (const t of DERIVED_TABLES) this.db.prepare(`DELETE FROM ${t} WHERE run_id = ?`).run(id);
          for (const e of this.readEvents(id)) this.materialize(e);
          const last = this.stmt.lastEvent.get(id) as { seq: number } | undefined;
          if (last) {
            const at = (this.db.prepare('SELECT at FROM events WHERE run_id = ? AND seq = ?').get(id, last.seq) as { at: string }).at;
            this.stmt.touchRun.run(at, id);
          }
        }
      })
      .immediate();
  }

  /** Creates a run with its plan as the first event. */
  createRun(runId: string, planned: RunPlannedPayload): void {
    if (this.getPlanned(runId)) throw new UserError(`run '${runId}' already exists in ${this.path}`);
    this.append(runId, [{ type: 'run_planned', payload: planned }]);
  }

  // ---- locking: one writing process per run ---------------------------------------------------

  /** Claims a run for this process; refuses when another live process holds it. */
  acquireLock(runId: string): void {
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT pid, host, started_at FROM run_locks WHERE run_id = ?').get(runId) as
          { pid: number; host: string; started_at: string } | undefined;
        if (row && processAlive(row.pid, row.host) && !(row.pid === process.pid && row.host === hostname())) {
          throw new UserError(
            `run '${runId}' is being written by process ${row.pid} on ${row.host} (since ${row.started_at}); wait for it or stop it, then resume`,
          );
        }
        this.db
          .prepare('INSERT OR REPLACE INTO run_locks (run_id, pid, host, started_at) VALUES (?, ?, ?, ?)')
          .run(runId, process.pid, hostname(), this.clock());
      })
      .immediate();
  }

  releaseLock(runId: string): void {
    if (!this.db.open || this.options.readonly) return;
    this.db.prepare('DELETE FROM run_locks WHERE run_id = ? AND pid = ? AND host = ?').run(runId, process.pid, hostname());
  }

  // ---- reading -------------------------------------------------------------------------------

  runIds(): string[] {
    return (this.db.prepare("SELECT run_id FROM events WHERE type = 'run_planned' ORDER BY id").all() as Array<{ run_id: string }>).map(
      (r) => r.run_id,
    );
  }

  getPlanned(runId: string): RunPlannedPayload | null {
    const cached = this.plannedCache.get(runId);
    if (cached) return cached;
    const row = this.stmt.planned.get(runId) as EventRow | undefined;
    if (!row) return null;
    const p = JSON.parse(row.payload) as RunPlannedPayload;
    this.plannedCache.set(runId, p);
    return p;
  }

  readEvents(runId: string): StoredEvent[] {
    return (this.stmt.events.all(runId) as EventRow[]).map(rowToEvent);
  }

  /** Event rows exactly as stored, payload unparsed (the audit re-hashes these bytes). */
  rawEventRows(runId: string): EventRow[] {
    return this.stmt.events.all(runId) as EventRow[];
  }

  /** A fresh reduction of the run's events (ignores the derived tables). */
  reduce(runId: string): ReducedRun | null {
    return reduceRun(this.readEvents(runId));
  }

  listRuns(): RunSummary[] {
    return this.runIds()
      .map((id) => this.summary(id))
      .filter((s): s is RunSummary => s !== null);
  }

  getRun(runId: string): RunInfo | null {
    const planned = this.getPlanned(runId);
    const summary = this.summary(runId);
    return planned && summary ? { runId, planned, summary } : null;
  }

  private summary(runId: string): RunSummary | null {
    const run = this.db.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId) as
      | {
          kind: string;
          controller: string;
          model_spec: string;
          simulated: number;
          budget: number;
          protocol: string;
          plan_sha256: string;
          n_cases: number;
          created_at: string;
          updated_at: string;
        }
      | undefined;
    if (!run) return null;
    const c = this.db
      .prepare(
        `SELECT
           SUM(status = 'complete') AS complete, SUM(status = 'incomplete') AS incomplete, SUM(status = 'pending') AS pending,
           SUM(status = 'complete' AND final_joint = 1) AS successes, SUM(n_rounds) AS rounds,
           SUM(attempts_finished) AS attempts, SUM(attempts_failed) AS failed
         FROM trajectories WHERE run_id = ?`,
      )
      .get(runId) as Record<string, number | null>;
    const lock = this.db.prepare('SELECT pid, host FROM run_locks WHERE run_id = ?').get(runId) as
      { pid: number; host: string } | undefined;
    const pending = c.pending ?? 0;
    const incomplete = c.incomplete ?? 0;
    const status: RunStatus =
      pending > 0 ? (lock && processAlive(lock.pid, lock.host) ? 'running' : 'interrupted') : incomplete > 0 ? 'incomplete' : 'complete';
    return {
      runId,
      kind: run.kind,
      controller: run.controller,
      modelSpec: run.model_spec,
      simulated: run.simulated === 1,
      budget: run.budget,
      protocol: run.protocol,
      planSha256: run.plan_sha256,
      cases: run.n_cases,
      complete: c.complete ?? 0,
      incomplete,
      pending,
      successes: c.successes ?? 0,
      rounds: c.rounds ?? 0,
      attempts: c.attempts ?? 0,
      failedAttempts: c.failed ?? 0,
      status,
      createdAt: run.created_at,
      updatedAt: run.updated_at,
    };
  }

  /** Trajectories in case order, read from the derived tables (or a fresh reduction of events). */
  loadTrajectories(runIds?: string[], options: { from?: 'tables' | 'events' } = {}): TrajectoryRecord[] {
    const ids = runIds ?? this.runIds();
    const out: TrajectoryRecord[] = [];
    for (const id of ids) {
      if (!this.getPlanned(id)) throw new UserError(`run '${id}' not found in ${this.path} (see \`revloop runs --store ${this.path}\`)`);
      if (options.from === 'events') out.push(...(this.reduce(id)?.trajectories ?? []));
      else out.push(...this.materialized(id).trajectories);
    }
    return out;
  }

  /** The run's trajectories and attempt counts as the derived tables hold them. */
  materialized(runId: string): { trajectories: TrajectoryRecord[]; attempts: AttemptCounts[]; nRounds: number[] } {
    const planned = this.getPlanned(runId);
    if (!planned) return { trajectories: [], attempts: [], nRounds: [] };
    const trajectories = planned.cases.map((_, i) => initialTrajectory(runId, planned, i));
    const attempts = planned.cases.map(() => ({ started: 0, finished: 0, failed: 0 }));
    const nRounds = planned.cases.map(() => 0);
    const rows = this.db.prepare('SELECT * FROM trajectories WHERE run_id = ? ORDER BY case_index').all(runId) as Array<{
      case_index: number;
      status: TrajectoryStatus;
      reason: string | null;
      n_rounds: number;
      attempts_started: number;
      attempts_finished: number;
      attempts_failed: number;
    }>;
    for (const r of rows) {
      const t = trajectories[r.case_index];
      if (!t) continue;
      t.status = r.status;
      if (r.reason !== null) t.incompleteReason = r.reason;
      attempts[r.case_index] = { started: r.attempts_started, finished: r.attempts_finished, failed: r.attempts_failed };
      nRounds[r.case_index] = r.n_rounds;
    }
    const rounds = this.db.prepare('SELECT * FROM rounds WHERE run_id = ? ORDER BY case_index, revision').all(runId) as Array<{
      case_index: number;
      revision: number;
      text: string;
      state: string;
      energy: number;
      joint: number;
      feedback: string | null;
    }>;
    for (const r of rounds) {
      trajectories[r.case_index]?.rounds.push({
        revision: r.revision,
        text: r.text,
        state: JSON.parse(r.state),
        energy: r.energy,
        joint: r.joint === 1,
        feedback: r.feedback,
      });
    }
    return { trajectories, attempts, nRounds };
  }
}
