// PostgreSQL schema of a run store (docs/store.md "PostgreSQL"), one database schema per store
// (`revloop` unless the URL names another). The tables mirror the SQLite store's: `events` is the
// append-only log (triggers refuse UPDATE, DELETE and TRUNCATE), `runs`, `trajectories` and
// `rounds` are derived from it in the same transaction as each append; `leases` and `workers` are
// the operational state of many workers sharing runs (docs/workers.md) and `run_locks` says who
// holds a study run. Migrations are numbered and applied in order, each in the transaction that
// records its version in `meta`. `runs.updated_at` is the planning time: commits leave a run's row
// alone (one hot row fewer per commit) and summaries read a run's last event's time instead.
// Opening a store reads the schema's version here, refuses a schema that is not a store, and
// migrates (prepareSchema).
import type pg from 'pg';
import { StoreError } from '../../core/errors.ts';
import { newerSchema, notAStoreReason } from '../errors.ts';

export const SCHEMA_VERSION = 2;

/** meta key whose presence says "this schema is a revloop store". */
const STORE_MARKER = 'revloop_store';

/** Migration n (index n − 1) takes a store from version n − 1 to n. */
const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE events (
  id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id     TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  type       TEXT    NOT NULL,
  case_index INTEGER,
  revision   INTEGER,
  at         TEXT    NOT NULL,
  payload    TEXT    NOT NULL,
  prev_hash  TEXT    NOT NULL,
  hash       TEXT    NOT NULL,
  key        TEXT,
  UNIQUE (run_id, seq)
);
CREATE UNIQUE INDEX events_key ON events (run_id, key) WHERE key IS NOT NULL;
CREATE INDEX events_type ON events (run_id, type);
CREATE INDEX events_planned ON events (id) WHERE type = 'run_planned';
-- One trajectory's story (readEvents caseIndex) without a pass over the run's whole log.
CREATE INDEX events_case ON events (run_id, case_index) WHERE case_index IS NOT NULL;

CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are append-only (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER events_append_only_rows BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_append_only_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();

CREATE TABLE runs (
  run_id      TEXT PRIMARY KEY,
  position    BIGINT  NOT NULL,
  kind        TEXT    NOT NULL,
  controller  TEXT    NOT NULL,
  model_spec  TEXT    NOT NULL,
  simulated   BOOLEAN NOT NULL,
  budget      INTEGER NOT NULL,
  protocol    TEXT    NOT NULL,
  plan_sha256 TEXT    NOT NULL,
  n_cases     INTEGER NOT NULL,
  created_at  TEXT    NOT NULL,
  updated_at  TEXT    NOT NULL
);

CREATE TABLE trajectories (
  run_id            TEXT    NOT NULL,
  case_index        INTEGER NOT NULL,
  case_id           TEXT    NOT NULL,
  status            TEXT    NOT NULL,
  reason            TEXT,
  n_rounds          INTEGER NOT NULL,
  final_joint       BOOLEAN,
  attempts_started  INTEGER NOT NULL,
  attempts_finished INTEGER NOT NULL,
  attempts_failed   INTEGER NOT NULL,
  PRIMARY KEY (run_id, case_index)
);
CREATE INDEX trajectories_pending ON trajectories (run_id, case_index) WHERE status = 'pending';

CREATE TABLE rounds (
  run_id     TEXT    NOT NULL,
  case_index INTEGER NOT NULL,
  revision   INTEGER NOT NULL,
  text       TEXT    NOT NULL,
  state      TEXT    NOT NULL,
  energy     DOUBLE PRECISION NOT NULL,
  joint      BOOLEAN NOT NULL,
  feedback   TEXT,
  PRIMARY KEY (run_id, case_index, revision)
);

CREATE TABLE run_locks (
  run_id     TEXT PRIMARY KEY,
  pid        INTEGER NOT NULL,
  host       TEXT    NOT NULL,
  started_at TEXT    NOT NULL,
  lock_key   INTEGER NOT NULL
);

CREATE TABLE workers (
  worker          INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  host            TEXT        NOT NULL,
  pid             INTEGER     NOT NULL,
  concurrency     INTEGER     NOT NULL,
  lease_seconds   INTEGER     NOT NULL,
  started_at      TIMESTAMPTZ NOT NULL,
  heartbeat_at    TIMESTAMPTZ NOT NULL,
  stopped_at      TIMESTAMPTZ,
  rejected_writes INTEGER     NOT NULL DEFAULT 0
);

CREATE TABLE leases (
  run_id     TEXT    NOT NULL,
  case_index INTEGER NOT NULL,
  worker     INTEGER,
  epoch      INTEGER NOT NULL DEFAULT 0,
  claimed_at TIMESTAMPTZ,
  expires_at TIMESTAMPTZ,
  PRIMARY KEY (run_id, case_index)
);
CREATE INDEX leases_worker ON leases (worker) WHERE worker IS NOT NULL;
`,
  // 2: the derived tables are guarded like events. They change only inside revloop's own append
  // transactions, which set the transaction-local flag revloop.derive (SET LOCAL, gone at COMMIT);
  // any other INSERT, UPDATE, DELETE or TRUNCATE is refused. Statement-level, so an append pays
  // one check per statement, not per row. Readers also compare every column with the events.
  `
CREATE FUNCTION derived_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('revloop.derive', true) IS DISTINCT FROM 'on' THEN
    RAISE EXCEPTION '% is derived from events: only revloop''s appends change it (% refused)', TG_TABLE_NAME, TG_OP
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER runs_derived BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON runs FOR EACH STATEMENT EXECUTE FUNCTION derived_guard();
CREATE TRIGGER trajectories_derived BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON trajectories FOR EACH STATEMENT EXECUTE FUNCTION derived_guard();
CREATE TRIGGER rounds_derived BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON rounds FOR EACH STATEMENT EXECUTE FUNCTION derived_guard();
`,
];

/** The transaction-local setting that lets a revloop append change the derived tables (migration 2). */
export const DERIVE_FLAG = "SET LOCAL revloop.derive = 'on'";

/** Tables derived from events (emptied and refilled by a rebuild). */
export const DERIVED_TABLES = ['rounds', 'trajectories', 'runs'] as const;

/** Every table a revloop schema may hold (anything else means "not a store"). */
const KNOWN_TABLES = new Set(['meta', 'events', 'runs', 'trajectories', 'rounds', 'run_locks', 'workers', 'leases']);

/**
 * Makes `schema` ready for the store being opened: a read-only open needs a store there; a writing
 * open creates it or applies the missing migrations, in one transaction under an advisory lock of
 * the schema's namespace `ns` (racing openers wait, then find it done). Refuses a schema holding
 * something else, or a store newer than this revloop.
 */
export async function prepareSchema(client: pg.PoolClient, schema: string, display: string, ns: number, readonly: boolean): Promise<void> {
  const version = await storeVersion(client, schema, display);
  if (readonly) {
    if (version === null)
      throw new StoreError(`${display}: no revloop store in schema '${schema}' (run \`revloop run --store … --workers 0\` first)`, {
        location: display,
        reason: 'missing',
      });
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
    throw new StoreError(`${display}: schema '${schema}' is not a revloop store (${what}); name another with ?schema=<name> in the URL`, {
      location: display,
      reason: 'not_a_store',
    });
  }
  const version = Number(meta.get('schema_version'));
  if (version > SCHEMA_VERSION) throw newerSchema(display, version, SCHEMA_VERSION);
  return version;
}
