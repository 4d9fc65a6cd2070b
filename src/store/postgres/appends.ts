// Appends of a PostgreSQL store and their group commit. Every commit takes one transaction-level
// advisory lock (the append lock), so global event ids are assigned in commit order (readers
// following `eventsAfter` never miss an event) and each run's chain head is read under it; writes
// made under a lease are checked against the trajectory's current claim in the same transaction
// (docs/workers.md). Groups queued while a commit is in flight share the next one; the events and
// their derived-table changes go in as one statement (docs/store.md "PostgreSQL").
import type pg from 'pg';
import { checkCopiedRows, GENESIS_HASH, linkEvents, rowToEvent, type EventRow } from '../chain.ts';
import { eventKey, type NewEvent, type StoredEvent } from '../events.ts';
import type { PlanCache } from '../plan-cache.ts';
import { openedReadOnly } from '../errors.ts';
import { LeaseLostError, SimulatedCrash, splitAtCrash, type AppendOptions, type BackendOptions } from '../store.ts';
import { deriveChanges, type DerivedChanges } from '../derive.ts';
import { inOrder, oneWrite, type StoreConnection } from './connection.ts';
import { runLockLost } from './run-locks.ts';
import { DERIVED_TABLES } from './schema.ts';

interface QueuedGroup {
  runId: string;
  events: readonly NewEvent[];
  options: AppendOptions;
  resolve: (stored: StoredEvent[]) => void;
  reject: (e: unknown) => void;
}

/** A group's outcome inside one commit: its stored events, or why it was refused. */
type GroupOutcome = StoredEvent[] | Error;

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

/** The appends of one store: a queue of groups, committed one transaction at a time. */
export class GroupCommit {
  private readonly readonly: boolean;
  private appends = 0;
  private dead = false;
  /** Groups waiting for the next commit, in call order. */
  private queue: QueuedGroup[] = [];
  private scheduled = false;
  /** The commit in flight (one at a time: groups queued meanwhile share the next one). */
  private committing: Promise<void> | null = null;

  constructor(
    private readonly conn: StoreConnection,
    private readonly plannedCache: PlanCache,
    /** Runs this process holds by its session lock (RunLocks.held): written only while that session lives. */
    private readonly sessionRuns: ReadonlySet<string>,
    private readonly options: BackendOptions,
    private readonly clock: () => string,
  ) {
    this.readonly = options.readonly ?? false;
  }

  /** Whether a simulated crash (BackendOptions.crashAfterAppends: revloop/test) has stopped this store's writes. */
  get crashed(): boolean {
    return this.dead;
  }

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
    if (this.readonly) return Promise.reject(openedReadOnly(this.conn.location));
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
    const client = await this.conn.pool.connect();
    try {
      const runIds = [...new Set(groups.map((g) => g.runId))];
      const leased = groups.filter((g) => g.options.lease);
      const conditional = groups.filter((g) => g.options.ifStatus);
      const [, probe] = await oneWrite(client, () =>
        inOrder(
          client.query(this.conn.appendLockBegin()),
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
        // A run this process holds by its session lock (a study's records, an experiment) is written only
        // while that session lives: once it has ended, another process may hold the run.
        const lost = this.conn.liveLost;
        if (lost && this.sessionRuns.has(g.runId)) {
          outcomes.push(runLockLost(this.conn.location, g.runId, lost));
          continue;
        }
        const lease = g.options.lease;
        if (lease) {
          const now = current.get(`${lease.caseIndex}\u0000${lease.runId}`);
          if (!now || now.worker !== lease.worker || now.epoch !== lease.epoch) {
            outcomes.push(
              new LeaseLostError(
                `run '${lease.runId}' case #${lease.caseIndex + 1}: the lease (epoch ${lease.epoch}) was taken over; the write was refused`,
                { lease },
              ),
            );
            rejected.set(lease.worker, (rejected.get(lease.worker) ?? 0) + 1);
            continue;
          }
        }
        if (g.options.ifStatus && statuses.get(`${g.events[0]?.caseIndex}\u0000${g.runId}`) !== g.options.ifStatus) {
          outcomes.push([]);
          continue;
        }
        const linked = linkEvents(g.runId, heads.get(g.runId), g.events, this.clock, this.conn.location, (row) => {
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
      throw this.conn.translate(e);
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

  async appendRows(runId: string, rows: readonly EventRow[]): Promise<void> {
    if (this.readonly) throw openedReadOnly(this.conn.location);
    await this.flush();
    return this.conn.underAppendLock(async (client) => {
      const head = (
        await client.query<{ seq: number; hash: string }>('SELECT seq, hash FROM events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1', [
          runId,
        ])
      ).rows[0];
      checkCopiedRows(runId, head ?? null, rows, this.conn.location);
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

  /** Empties and refills the derived tables of the runs `ids` from their events. */
  async rebuild(ids: readonly string[]): Promise<void> {
    return this.conn.underAppendLock(async (client) => {
      for (const id of ids) {
        for (const t of DERIVED_TABLES) await client.query(`DELETE FROM ${t} WHERE run_id = $1`, [id]);
        const events = (await client.query<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [id])).rows.map(rowToEvent);
        const changes = deriveChanges(events);
        await client.query(PLAN_SQL, planParams(changes));
        await client.query(`WITH ${derivedSql(1)} SELECT 1`, derivedParams(changes));
      }
    });
  }
}
