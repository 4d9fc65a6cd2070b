// Agent rollouts in the run store (same SQLite file as revision and probe runs, tables of their
// own). A run is one (model, env, harness, temperature, seed) — the reference's file granularity;
// rollouts are keyed by task_id (the reference's resume granularity) and insert-only.
import type Database from 'better-sqlite3';
import { openStore, type RunStore } from '../../store/store.ts';
import { UserError } from '../../core/errors.ts';
import type { HarnessName } from './harness.ts';
import type { RolloutRecord } from './engine.ts';
import { ensureExtensionSchema, hasTable } from '../../store/study-tables.ts';
import { modelLabelSlug } from '../../core/util/slug.ts';

export const AGENT_SCHEMA_VERSION = 1;

export const AGENT_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS agent_runs (
  run_id      TEXT PRIMARY KEY,
  env         TEXT NOT NULL,
  harness     TEXT NOT NULL,
  model_spec  TEXT NOT NULL,
  model_label TEXT NOT NULL,
  simulated   INTEGER NOT NULL,
  settings    TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_rollouts (
  run_id                TEXT    NOT NULL,
  task_id               TEXT    NOT NULL,
  task_index            INTEGER NOT NULL,
  solved                INTEGER NOT NULL,
  stuck                 INTEGER NOT NULL,
  stop_reason           TEXT    NOT NULL,
  n_steps               INTEGER NOT NULL,
  n_failed_actions      INTEGER NOT NULL,
  n_exact_repeats       INTEGER NOT NULL,
  n_canonical_repeats   INTEGER NOT NULL,
  exact_repeat_rate     REAL,
  canonical_repeat_rate REAL,
  gen_tokens            INTEGER,
  prompt_tokens         INTEGER,
  n_banned_masked       INTEGER,
  seconds               REAL    NOT NULL,
  record                TEXT    NOT NULL,
  at                    TEXT    NOT NULL,
  PRIMARY KEY (run_id, task_id)
);
CREATE TRIGGER IF NOT EXISTS agent_rollouts_insert_only_update BEFORE UPDATE ON agent_rollouts
BEGIN SELECT RAISE(ABORT, 'agent rollouts are insert-only'); END;
CREATE TRIGGER IF NOT EXISTS agent_rollouts_insert_only_delete BEFORE DELETE ON agent_rollouts
BEGIN SELECT RAISE(ABORT, 'agent rollouts are insert-only'); END;
CREATE TABLE IF NOT EXISTS agent_sessions (
  run_id      TEXT    NOT NULL,
  session     INTEGER NOT NULL,
  started_at  TEXT    NOT NULL,
  finished_at TEXT,
  status      TEXT    NOT NULL,
  model_spec  TEXT    NOT NULL,
  n_tasks     INTEGER NOT NULL,
  n_done      INTEGER NOT NULL DEFAULT 0,
  n_failed    INTEGER NOT NULL DEFAULT 0,
  seconds     REAL,
  backend     TEXT    NOT NULL,
  PRIMARY KEY (run_id, session)
);
`;

export function ensureAgentSchema(db: Database.Database): void {
  ensureExtensionSchema(db, 'agent', AGENT_SCHEMA_SQL, AGENT_SCHEMA_VERSION);
}

export function hasAgentTables(db: Database.Database): boolean {
  return hasTable(db, 'agent_rollouts');
}

export interface AgentRunSettings {
  max_steps: number;
  max_new_tokens: number;
  temperature: number;
  seed: number;
  task_seed: number;
}

export interface AgentRunRow {
  run_id: string;
  env: string;
  harness: HarnessName;
  model_spec: string;
  model_label: string;
  simulated: boolean;
  settings: AgentRunSettings;
  created_at: string;
}

export class AgentStore {
  private constructor(readonly runStore: RunStore) {}

  get db(): Database.Database {
    return this.runStore.db;
  }

  static open(path: string, options: { readonly?: boolean } = {}): AgentStore {
    const rs = openStore(path, { readonly: options.readonly });
    if (!options.readonly) {
      try {
        ensureAgentSchema(rs.db);
      } catch (e) {
        rs.close();
        throw e;
      }
    }
    return new AgentStore(rs);
  }

  close(): void {
    this.runStore.close();
  }

  listRuns(): AgentRunRow[] {
    if (!hasAgentTables(this.db)) return [];
    const rows = this.db.prepare('SELECT * FROM agent_runs ORDER BY created_at, run_id').all() as Array<Record<string, unknown>>;
    return rows.map(toRunRow);
  }

  getRun(runId: string): AgentRunRow | null {
    if (!hasAgentTables(this.db)) return null;
    const r = this.db.prepare('SELECT * FROM agent_runs WHERE run_id = ?').get(runId) as Record<string, unknown> | undefined;
    return r ? toRunRow(r) : null;
  }

  /** Creates the run, or checks that an existing one has the same harness and settings. */
  ensureRun(run: Omit<AgentRunRow, 'created_at'>): AgentRunRow {
    const existing = this.getRun(run.run_id);
    if (existing) {
      const a = JSON.stringify(existing.settings);
      const b = JSON.stringify(run.settings);
      if (existing.harness !== run.harness || existing.env !== run.env || a !== b) {
        throw new UserError(
          `agent run '${run.run_id}' was started with harness ${existing.harness} and settings ${a}; this session asks for ${run.harness} with ${b}. Resume with the same settings or choose another --run`,
        );
      }
      return existing;
    }
    const created_at = new Date().toISOString();
    this.db
      .prepare(
        'INSERT INTO agent_runs (run_id, env, harness, model_spec, model_label, simulated, settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        run.run_id,
        run.env,
        run.harness,
        run.model_spec,
        run.model_label,
        run.simulated ? 1 : 0,
        JSON.stringify(run.settings),
        created_at,
      );
    return { ...run, created_at };
  }

  doneTasks(runId: string): Set<string> {
    return new Set(
      (this.db.prepare('SELECT task_id FROM agent_rollouts WHERE run_id = ?').all(runId) as Array<{ task_id: string }>).map(
        (r) => r.task_id,
      ),
    );
  }

  insertRollout(runId: string, r: RolloutRecord): boolean {
    const info = this.db
      .prepare(
        `INSERT OR IGNORE INTO agent_rollouts (run_id, task_id, task_index, solved, stuck, stop_reason, n_steps, n_failed_actions, n_exact_repeats, n_canonical_repeats,
           exact_repeat_rate, canonical_repeat_rate, gen_tokens, prompt_tokens, n_banned_masked, seconds, record, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        runId,
        r.task_id,
        r.task_index,
        r.solved ? 1 : 0,
        r.stuck ? 1 : 0,
        r.stop_reason,
        r.n_steps,
        r.n_failed_actions,
        r.n_exact_repeats,
        r.n_canonical_repeats,
        r.exact_repeat_rate,
        r.canonical_repeat_rate,
        r.gen_tokens,
        r.prompt_tokens,
        r.n_banned_masked,
        r.seconds,
        JSON.stringify(r),
        new Date().toISOString(),
      );
    return info.changes === 1;
  }

  rollouts(runId: string): RolloutRecord[] {
    if (!hasAgentTables(this.db)) return [];
    return (
      this.db.prepare('SELECT record FROM agent_rollouts WHERE run_id = ? ORDER BY task_index, task_id').all(runId) as Array<{
        record: string;
      }>
    ).map((r) => JSON.parse(r.record) as RolloutRecord);
  }

  startSession(runId: string, modelSpec: string, nTasks: number, backend: Record<string, unknown>): number {
    const row = this.db.prepare('SELECT MAX(session) AS n FROM agent_sessions WHERE run_id = ?').get(runId) as { n: number | null };
    const session = (row.n ?? 0) + 1;
    this.db
      .prepare(
        'INSERT INTO agent_sessions (run_id, session, started_at, status, model_spec, n_tasks, backend) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(runId, session, new Date().toISOString(), 'running', modelSpec, nTasks, JSON.stringify(backend));
    return session;
  }

  endSession(runId: string, session: number, e: { status: string; nDone: number; nFailed: number; seconds: number }): void {
    this.db
      .prepare(
        'UPDATE agent_sessions SET finished_at = ?, status = ?, n_done = ?, n_failed = ?, seconds = ? WHERE run_id = ? AND session = ?',
      )
      .run(new Date().toISOString(), e.status, e.nDone, e.nFailed, e.seconds, runId, session);
  }
}

function toRunRow(r: Record<string, unknown>): AgentRunRow {
  return {
    run_id: r.run_id as string,
    env: r.env as string,
    harness: r.harness as HarnessName,
    model_spec: r.model_spec as string,
    model_label: r.model_label as string,
    simulated: r.simulated === 1,
    settings: JSON.parse(r.settings as string) as AgentRunSettings,
    created_at: r.created_at as string,
  };
}

/** `agent-<env>-<label>-<harness with + as ->-t<temp>-s<seed>` (the reference's file tag). */
export function defaultAgentRunId(env: string, modelLabel: string, harness: string, temperature: number, seed: number): string {
  const slug = modelLabelSlug(modelLabel);
  return `agent-${env}-${slug}-${harness.replace(/\+/g, '-')}-t${temperature}-s${seed}`;
}
