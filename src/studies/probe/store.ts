// Probe records in the run store (the same SQLite file as revision runs, tables of their own).
// A probe run is one (model, environment): its items, and one row per (item, condition,
// candidate) score — the reference's resume key. Scores are insert-only (triggers refuse UPDATE
// and DELETE); a resumed session skips keys that are present. Sessions record cost counters.
import type Database from 'better-sqlite3';
import { openStore, type RunStore } from '../../store/store.ts';
import { UserError } from '../../core/errors.ts';
import { itemJsonLine, itemSha256 } from './items.ts';
import type { CandidateName, Condition, ProbeItem, ScoreRecord } from './types.ts';
import { ensureExtensionSchema, hasTable } from '../../store/study-tables.ts';
import { modelLabelSlug } from '../../core/util/slug.ts';

export const PROBE_SCHEMA_VERSION = 1;

export const PROBE_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS probe_runs (
  run_id      TEXT PRIMARY KEY,
  env         TEXT NOT NULL,
  model_spec  TEXT NOT NULL,
  model_label TEXT NOT NULL,
  simulated   INTEGER NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS probe_items (
  run_id         TEXT    NOT NULL,
  item_id        TEXT    NOT NULL,
  item_sha256    TEXT    NOT NULL,
  task_id        TEXT    NOT NULL,
  operator       TEXT    NOT NULL,
  error_type     TEXT    NOT NULL,
  template       TEXT    NOT NULL,
  n_prefix_steps INTEGER NOT NULL,
  item           TEXT    NOT NULL,
  PRIMARY KEY (run_id, item_id)
);
CREATE TABLE IF NOT EXISTS probe_scores (
  run_id         TEXT    NOT NULL,
  item_id        TEXT    NOT NULL,
  condition      TEXT    NOT NULL,
  candidate      TEXT    NOT NULL,
  logprob        REAL    NOT NULL,
  n_tokens       INTEGER NOT NULL,
  n_argmax_match INTEGER,
  is_greedy      INTEGER,
  ctx_tokens     INTEGER,
  session        INTEGER NOT NULL,
  at             TEXT    NOT NULL,
  PRIMARY KEY (run_id, item_id, condition, candidate)
);
CREATE TRIGGER IF NOT EXISTS probe_scores_insert_only_update BEFORE UPDATE ON probe_scores
BEGIN SELECT RAISE(ABORT, 'probe scores are insert-only'); END;
CREATE TRIGGER IF NOT EXISTS probe_scores_insert_only_delete BEFORE DELETE ON probe_scores
BEGIN SELECT RAISE(ABORT, 'probe scores are insert-only'); END;
CREATE TABLE IF NOT EXISTS probe_padding (
  run_id        TEXT    NOT NULL,
  item_id       TEXT    NOT NULL,
  observation   TEXT    NOT NULL,
  units         INTEGER NOT NULL,
  target_tokens INTEGER NOT NULL,
  tokens        INTEGER NOT NULL,
  PRIMARY KEY (run_id, item_id)
);
CREATE TABLE IF NOT EXISTS probe_sessions (
  run_id         TEXT    NOT NULL,
  session        INTEGER NOT NULL,
  started_at     TEXT    NOT NULL,
  finished_at    TEXT,
  status         TEXT    NOT NULL,
  model_spec     TEXT    NOT NULL,
  conditions     TEXT    NOT NULL,
  items_source   TEXT    NOT NULL,
  items_sha256   TEXT    NOT NULL,
  n_items        INTEGER NOT NULL,
  n_scored       INTEGER NOT NULL DEFAULT 0,
  n_unavailable  INTEGER NOT NULL DEFAULT 0,
  forward_tokens INTEGER,
  forward_calls  INTEGER,
  naive_tokens   INTEGER,
  seconds        REAL,
  backend        TEXT    NOT NULL,
  PRIMARY KEY (run_id, session)
);
`;

/** Creates the probe tables if missing and records their version in the store's meta table. */
export function ensureProbeSchema(db: Database.Database): void {
  ensureExtensionSchema(db, 'probe', PROBE_SCHEMA_SQL, PROBE_SCHEMA_VERSION);
}

export function hasProbeTables(db: Database.Database): boolean {
  return hasTable(db, 'probe_scores');
}

export interface ProbeRunRow {
  run_id: string;
  env: string;
  model_spec: string;
  model_label: string;
  simulated: boolean;
  created_at: string;
}

export interface ProbeSessionStart {
  modelSpec: string;
  conditions: readonly Condition[];
  itemsSource: string;
  itemsSha256: string;
  nItems: number;
  backend: Record<string, unknown>;
}

export interface ProbeSessionEnd {
  status: 'complete' | 'interrupted' | 'failed';
  nScored: number;
  nUnavailable: number;
  counters: { forwardTokens: number; forwardCalls: number; naiveTokens: number } | null;
  seconds: number;
}

export interface ScoreRow extends ScoreRecord {
  session: number;
  at: string;
}

/** The probe tables of one store file. */
export class ProbeStore {
  private readonly now: () => string;

  private constructor(
    readonly runStore: RunStore,
    readonly readonly: boolean,
  ) {
    this.now = () => new Date().toISOString();
  }

  get db(): Database.Database {
    return this.runStore.db;
  }

  static open(path: string, options: { readonly?: boolean } = {}): ProbeStore {
    const rs = openStore(path, { readonly: options.readonly });
    if (!options.readonly) {
      try {
        ensureProbeSchema(rs.db);
      } catch (e) {
        rs.close();
        throw e;
      }
    }
    return new ProbeStore(rs, !!options.readonly);
  }

  close(): void {
    this.runStore.close();
  }

  private tables(): boolean {
    return hasProbeTables(this.db);
  }

  listRuns(): ProbeRunRow[] {
    if (!this.tables()) return [];
    return (
      this.db.prepare('SELECT * FROM probe_runs ORDER BY created_at, run_id').all() as Array<
        Omit<ProbeRunRow, 'simulated'> & { simulated: number }
      >
    ).map((r) => ({ ...r, simulated: r.simulated === 1 }));
  }

  getRun(runId: string): ProbeRunRow | null {
    if (!this.tables()) return null;
    const r = this.db.prepare('SELECT * FROM probe_runs WHERE run_id = ?').get(runId) as
      (Omit<ProbeRunRow, 'simulated'> & { simulated: number }) | undefined;
    return r ? { ...r, simulated: r.simulated === 1 } : null;
  }

  /** Creates the run on first use; later sessions must name the same environment. */
  ensureRun(run: Omit<ProbeRunRow, 'created_at'>): ProbeRunRow {
    const existing = this.getRun(run.run_id);
    if (existing) {
      if (existing.env !== run.env)
        throw new UserError(`probe run '${run.run_id}' holds ${existing.env} items; these items are ${run.env} (choose another --run)`);
      return existing;
    }
    const created_at = this.now();
    this.db
      .prepare('INSERT INTO probe_runs (run_id, env, model_spec, model_label, simulated, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(run.run_id, run.env, run.model_spec, run.model_label, run.simulated ? 1 : 0, created_at);
    return { ...run, created_at };
  }

  /**
   * Adds items to a run. An item id already present must have identical content: scores of two
   * different items must never share a key.
   */
  addItems(runId: string, items: readonly ProbeItem[], source: string): void {
    const get = this.db.prepare('SELECT item_sha256 FROM probe_items WHERE run_id = ? AND item_id = ?');
    const put = this.db.prepare(
      'INSERT INTO probe_items (run_id, item_id, item_sha256, task_id, operator, error_type, template, n_prefix_steps, item) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.db
      .transaction(() => {
        for (const it of items) {
          const sha = itemSha256(it);
          const row = get.get(runId, it.item_id) as { item_sha256: string } | undefined;
          if (row) {
            if (row.item_sha256 !== sha) {
              throw new UserError(
                `${source}: item ${it.item_id} differs from the item of the same id already scored in probe run '${runId}'; use a new --run for a different item set`,
              );
            }
            continue;
          }
          put.run(runId, it.item_id, sha, it.task_id, it.operator, it.error_type, it.template, it.prefix_actions.length, itemJsonLine(it));
        }
      })
      .immediate();
  }

  items(runId: string): ProbeItem[] {
    if (!this.tables()) return [];
    return (this.db.prepare('SELECT item FROM probe_items WHERE run_id = ? ORDER BY item_id').all(runId) as Array<{ item: string }>).map(
      (r) => JSON.parse(r.item) as ProbeItem,
    );
  }

  /** Keys `item_id\tcondition\tcandidate` already scored in the run. */
  scoredKeys(runId: string): Set<string> {
    const rows = this.db.prepare('SELECT item_id, condition, candidate FROM probe_scores WHERE run_id = ?').all(runId) as Array<{
      item_id: string;
      condition: string;
      candidate: string;
    }>;
    return new Set(rows.map((r) => scoreKey(r.item_id, r.condition, r.candidate)));
  }

  startSession(runId: string, s: ProbeSessionStart): number {
    const row = this.db.prepare('SELECT MAX(session) AS n FROM probe_sessions WHERE run_id = ?').get(runId) as { n: number | null };
    const session = (row.n ?? 0) + 1;
    this.db
      .prepare(
        'INSERT INTO probe_sessions (run_id, session, started_at, status, model_spec, conditions, items_source, items_sha256, n_items, backend) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        runId,
        session,
        this.now(),
        'running',
        s.modelSpec,
        JSON.stringify(s.conditions),
        s.itemsSource,
        s.itemsSha256,
        s.nItems,
        JSON.stringify(s.backend),
      );
    return session;
  }

  endSession(runId: string, session: number, e: ProbeSessionEnd): void {
    this.db
      .prepare(
        'UPDATE probe_sessions SET finished_at = ?, status = ?, n_scored = ?, n_unavailable = ?, forward_tokens = ?, forward_calls = ?, naive_tokens = ?, seconds = ? WHERE run_id = ? AND session = ?',
      )
      .run(
        this.now(),
        e.status,
        e.nScored,
        e.nUnavailable,
        e.counters?.forwardTokens ?? null,
        e.counters?.forwardCalls ?? null,
        e.counters?.naiveTokens ?? null,
        e.seconds,
        runId,
        session,
      );
  }

  sessions(runId: string): Array<Record<string, unknown>> {
    if (!this.tables()) return [];
    return this.db.prepare('SELECT * FROM probe_sessions WHERE run_id = ? ORDER BY session').all(runId) as Array<Record<string, unknown>>;
  }

  /** Inserts the scores of one (item, condition) in one transaction; present keys are left alone. */
  insertScores(runId: string, session: number, rows: readonly ScoreRecord[]): number {
    const put = this.db.prepare(
      'INSERT OR IGNORE INTO probe_scores (run_id, item_id, condition, candidate, logprob, n_tokens, n_argmax_match, is_greedy, ctx_tokens, session, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const at = this.now();
    return this.db
      .transaction(() => {
        let n = 0;
        for (const r of rows) {
          n += put.run(
            runId,
            r.item_id,
            r.condition,
            r.candidate,
            r.logprob,
            r.n_tokens,
            r.n_argmax_match,
            r.is_greedy === null ? null : r.is_greedy ? 1 : 0,
            r.ctx_tokens,
            session,
            at,
          ).changes;
        }
        return n;
      })
      .immediate();
  }

  savePadding(runId: string, itemId: string, p: { observation: string; units: number; targetTokens: number; tokens: number }): void {
    this.db
      .prepare('INSERT OR IGNORE INTO probe_padding (run_id, item_id, observation, units, target_tokens, tokens) VALUES (?, ?, ?, ?, ?, ?)')
      .run(runId, itemId, p.observation, p.units, p.targetTokens, p.tokens);
  }

  padding(runId: string, itemId: string): { observation: string; units: number; targetTokens: number; tokens: number } | null {
    const r = this.db.prepare('SELECT * FROM probe_padding WHERE run_id = ? AND item_id = ?').get(runId, itemId) as
      { observation: string; units: number; target_tokens: number; tokens: number } | undefined;
    return r ? { observation: r.observation, units: r.units, targetTokens: r.target_tokens, tokens: r.tokens } : null;
  }

  scores(runId: string): ScoreRow[] {
    if (!this.tables()) return [];
    const rows = this.db.prepare('SELECT * FROM probe_scores WHERE run_id = ? ORDER BY item_id, condition, candidate').all(runId) as Array<{
      item_id: string;
      condition: Condition;
      candidate: CandidateName;
      logprob: number;
      n_tokens: number;
      n_argmax_match: number | null;
      is_greedy: number | null;
      ctx_tokens: number | null;
      session: number;
      at: string;
    }>;
    return rows.map((r) => ({ ...r, is_greedy: r.is_greedy === null ? null : r.is_greedy === 1 }));
  }
}

export function scoreKey(itemId: string, condition: string, candidate: string): string {
  return `${itemId}\t${condition}\t${candidate}`;
}

/** Default run id of a (model, environment): readable, stable across sessions. */
export function defaultProbeRunId(env: string, modelLabel: string): string {
  const slug = modelLabelSlug(modelLabel);
  return `probe-${env}-${slug}`;
}
