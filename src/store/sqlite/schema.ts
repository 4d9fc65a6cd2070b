// SQLite schema of a run store and its migrations. `events` is the append-only log (triggers refuse
// UPDATE and DELETE; `key` makes a round or a study record unique within its run); `runs`,
// `trajectories` and `rounds` are derived from it and can be dropped and rebuilt at any time;
// `run_locks` says which live process is writing a run; `meta` carries the marker that makes a
// file a revloop store and the schema version.
export const SCHEMA_VERSION = 3;

/** meta key whose presence says "this file is a revloop store". */
export const STORE_MARKER = 'revloop_store';

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS events (
  id         INTEGER PRIMARY KEY,
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
CREATE UNIQUE INDEX IF NOT EXISTS events_key ON events (run_id, key) WHERE key IS NOT NULL;
-- One trajectory's events (its story, every attempt) without a pass over the run's log.
CREATE INDEX IF NOT EXISTS events_case ON events (run_id, case_index) WHERE case_index IS NOT NULL;

CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

CREATE TABLE IF NOT EXISTS runs (
  run_id      TEXT PRIMARY KEY,
  kind        TEXT NOT NULL,
  controller  TEXT NOT NULL,
  model_spec  TEXT NOT NULL,
  simulated   INTEGER NOT NULL,
  budget      INTEGER NOT NULL,
  protocol    TEXT NOT NULL,
  plan_sha256 TEXT NOT NULL,
  n_cases     INTEGER NOT NULL,
  created_at  TEXT NOT NULL,
  -- Schema 3 no longer touches this on every commit: summaries read the run's last event's time.
  updated_at  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS trajectories (
  run_id            TEXT    NOT NULL,
  case_index        INTEGER NOT NULL,
  case_id           TEXT    NOT NULL,
  status            TEXT    NOT NULL,
  reason            TEXT,
  n_rounds          INTEGER NOT NULL,
  final_joint       INTEGER,
  attempts_started  INTEGER NOT NULL,
  attempts_finished INTEGER NOT NULL,
  attempts_failed   INTEGER NOT NULL,
  PRIMARY KEY (run_id, case_index)
) WITHOUT ROWID;

-- A rowid table: rows are appended as rounds are accepted (a clustered key would split a random
-- leaf of ~2 KB rows on nearly every commit); the unique index keeps case order for readers.
CREATE TABLE IF NOT EXISTS rounds (
  run_id     TEXT    NOT NULL,
  case_index INTEGER NOT NULL,
  revision   INTEGER NOT NULL,
  text       TEXT    NOT NULL,
  state      TEXT    NOT NULL,
  energy     REAL    NOT NULL,
  joint      INTEGER NOT NULL,
  feedback   TEXT,
  UNIQUE (run_id, case_index, revision)
);

CREATE TABLE IF NOT EXISTS run_locks (
  run_id     TEXT PRIMARY KEY,
  pid        INTEGER NOT NULL,
  host       TEXT    NOT NULL,
  started_at TEXT    NOT NULL
);
`;

/** Tables derived from events (dropped and refilled by a rebuild). */
export const DERIVED_TABLES = ['runs', 'trajectories', 'rounds'] as const;

/**
 * Every table a revloop store may hold (anything else means "not a store"). Development builds
 * before 0.1.0 kept two studies' results in tables of their own; no released store has them, and a
 * file that does is refused untouched.
 */
export const KNOWN_TABLES = new Set(['meta', 'events', 'runs', 'trajectories', 'rounds', 'run_locks']);

/**
 * Migration 1 → 2: the `key` column of events and its unique index.
 * Existing rounds and completions get their keys in the same transaction (the append-only
 * triggers are lifted for exactly that statement and restored).
 */
export const MIGRATE_1_TO_2_SQL = `
ALTER TABLE events ADD COLUMN key TEXT;
DROP TRIGGER IF EXISTS events_append_only_update;
UPDATE events SET key = 'draft:' || case_index || ':' || revision WHERE type = 'draft_accepted';
UPDATE events SET key = 'completed:' || case_index WHERE type = 'trajectory_completed';
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
`;

/**
 * Migration 2 → 3: fewer pages written per commit. The `(run_id, type)` index goes (it took three
 * leaf pages per generation; the plan is found as seq 1, and type-filtered reads scan one run), and
 * `rounds` becomes a rowid table with a unique index (derived rows, copied over as they are). The
 * layout is written out here rather than taken from SCHEMA_SQL: a migration stays as it shipped.
 */
export const MIGRATE_2_TO_3_SQL = `
DROP INDEX IF EXISTS events_type;
CREATE TABLE rounds_v3 (
  run_id     TEXT    NOT NULL,
  case_index INTEGER NOT NULL,
  revision   INTEGER NOT NULL,
  text       TEXT    NOT NULL,
  state      TEXT    NOT NULL,
  energy     REAL    NOT NULL,
  joint      INTEGER NOT NULL,
  feedback   TEXT,
  UNIQUE (run_id, case_index, revision)
);
INSERT INTO rounds_v3 (run_id, case_index, revision, text, state, energy, joint, feedback)
  SELECT run_id, case_index, revision, text, state, energy, joint, feedback FROM rounds ORDER BY run_id, case_index, revision;
DROP TABLE rounds;
ALTER TABLE rounds_v3 RENAME TO rounds;
`;
