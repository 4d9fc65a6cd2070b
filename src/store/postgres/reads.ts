// Reads of a PostgreSQL store: the event log, runs and their summaries, and trajectories from the
// derived tables. Reads that must agree with each other (a count and its page, trajectories and
// their rounds, a run's rows for an audit) come from one snapshot.
import { rowToEvent, type EventRow } from '../chain.ts';
import type { RunPlannedPayload, StoredEvent } from '../events.ts';
import type { PlanCache } from '../plan-cache.ts';
import { runNotFound } from '../errors.ts';
import { reduceRun, type ReducedRun } from '../reduce.ts';
import {
  eventSummary,
  type EventSummary,
  type EventSummaryRow,
  type MaterializedRun,
  type ReadEventsOptions,
  type RunInfo,
  type RunSummary,
  type TrajectoryPage,
  type TrajectoryQuery,
} from '../store.ts';
import type { TrajectoryRecord } from '../types.ts';
import { encodeColumn } from '../text-codec.ts';
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
import type { StoreConnection } from './connection.ts';
import { LIVE_SQL } from './leases.ts';

/** A run's row, its counts, and who is writing it (`summaries`). */
interface SummaryRow extends RunRow, RunCounts {
  run_id: string;
  leased: number | null;
  locked: boolean;
  last_event_id: number | null;
  last_event_at: string | null;
}

/** The reading side of a PostgreSQL store (PostgresRunStore's reads). */
export class PostgresReader {
  constructor(
    private readonly conn: StoreConnection,
    private readonly plannedCache: PlanCache,
  ) {}

  async runIds(): Promise<string[]> {
    return (await this.conn.pool.query<{ run_id: string }>("SELECT run_id FROM events WHERE type = 'run_planned' ORDER BY id")).rows.map(
      (r) => r.run_id,
    );
  }

  async getPlanned(runId: string): Promise<RunPlannedPayload | null> {
    const cached = this.plannedCache.get(runId);
    if (cached) return cached;
    const row = (
      await this.conn.pool.query<{ payload: string }>(
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
    const rows = (await this.conn.pool.query<EventRow>(`SELECT * FROM events WHERE ${where.join(' AND ')} ORDER BY seq`, args)).rows;
    return rows.map(rowToEvent);
  }

  async eventsAfter(cursor: number, limit: number): Promise<StoredEvent[]> {
    return (await this.conn.pool.query<EventRow>('SELECT * FROM events WHERE id > $1 ORDER BY id LIMIT $2', [cursor, limit])).rows.map(
      rowToEvent,
    );
  }

  async eventSummariesAfter(cursor: number, limit: number): Promise<EventSummary[]> {
    const rows = await this.conn.pool.query<EventSummaryRow>(
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
    return (await this.conn.pool.query<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [runId])).rows.map(stripKey);
  }

  async logHead(runId: string): Promise<{ seq: number; hash: string } | null> {
    const row = (
      await this.conn.pool.query<{ seq: number; hash: string }>(
        'SELECT seq, hash FROM events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1',
        [runId],
      )
    ).rows[0];
    return row ? { seq: row.seq, hash: row.hash } : null;
  }

  async runRows(runId: string): Promise<RunRows> {
    return this.conn.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
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

  async scanRunRows(runId: string, visit: RunRowsVisitor, o: ScanOptions = {}): Promise<void> {
    const pageSize = o.logPage ?? SCAN_LOG_PAGE;
    const caseRange = o.caseRange ?? SCAN_CASE_RANGE;
    const range = 'run_id = $1 AND case_index >= $2::bigint AND case_index < $3::bigint';
    // One REPEATABLE READ transaction: every slice comes from the same snapshot.
    await this.conn.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
      visit.run((await client.query<RunRowValues>('SELECT * FROM runs WHERE run_id = $1', [runId])).rows[0] ?? null);
      for (let after: number | null = null; ;) {
        const rows: EventRow[] = (
          after === null
            ? await client.query<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq LIMIT $2', [runId, pageSize])
            : await client.query<EventRow>('SELECT * FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [
                runId,
                after,
                pageSize,
              ])
        ).rows.map(stripKey);
        if (rows.length) visit.log(rows);
        if (rows.length < pageSize) break;
        after = rows[rows.length - 1].seq;
      }
      // Ranges start at the next case index any row names, so a forged far-off index costs one range, not a walk to it.
      const next = async (at: number) =>
        (
          await client.query<{ c: number | null }>(
            `SELECT min(c) AS c FROM (
               SELECT min(case_index) AS c FROM events WHERE run_id = $1 AND case_index >= $2::bigint
               UNION ALL SELECT min(case_index) FROM trajectories WHERE run_id = $1 AND case_index >= $2::bigint
               UNION ALL SELECT min(case_index) FROM rounds WHERE run_id = $1 AND case_index >= $2::bigint) AS b`,
            [runId, at],
          )
        ).rows[0].c;
      for (let from = await next(Number.MIN_SAFE_INTEGER); from !== null; from = await next(from + caseRange)) {
        const to = from + caseRange;
        const args = [runId, from, to];
        visit.cases({
          from,
          to,
          events: (await client.query<EventRow>(`SELECT * FROM events WHERE ${range} ORDER BY seq`, args)).rows.map(stripKey),
          trajectories: (await client.query<TrajectoryRowValues>(`SELECT * FROM trajectories WHERE ${range} ORDER BY case_index`, args))
            .rows,
          rounds: (await client.query<RoundRowValues>(`SELECT * FROM rounds WHERE ${range} ORDER BY case_index, revision`, args)).rows,
        });
      }
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
      await this.conn.pool.query<SummaryRow>(
        `WITH live AS (${LIVE_SQL(this.conn.ns)}),
         locks AS (
           SELECT rl.run_id FROM run_locks rl JOIN pg_locks pl ON pl.locktype = 'advisory' AND pl.granted AND pl.objsubid = 2
             AND pl.classid::bigint = ${this.conn.ns ^ 1} AND pl.objid::bigint = rl.lock_key
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
      if (!(await this.getPlanned(id))) throw runNotFound(id, this.conn.location);
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
    const [[{ n: total }], rows] = await this.conn.inSnapshot<{ n: number }, TrajectorySummaryRow>(
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
    const [rows, rounds] = await this.conn.inSnapshot<TrajectoryRow, RoundRow>(
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
