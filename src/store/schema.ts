// SQLite schema of a run store. `events` is the append-only log (triggers refuse UPDATE and
// DELETE); `runs`, `trajectories` and `rounds` are derived from it and can be dropped and rebuilt
// at any time; `run_locks` says which live process is writing a run.
export const SCHEMA_VERSION = 1;

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
  UNIQUE (run_id, seq)
);

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

CREATE TABLE IF NOT EXISTS rounds (
  run_id     TEXT    NOT NULL,
  case_index INTEGER NOT NULL,
  revision   INTEGER NOT NULL,
  text       TEXT    NOT NULL,
  state      TEXT    NOT NULL,
  energy     REAL    NOT NULL,
  joint      INTEGER NOT NULL,
  feedback   TEXT,
  PRIMARY KEY (run_id, case_index, revision)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS run_locks (
  run_id     TEXT PRIMARY KEY,
  pid        INTEGER NOT NULL,
  host       TEXT    NOT NULL,
  started_at TEXT    NOT NULL
);
`;

/** Tables derived from events (dropped and refilled by a rebuild). */
export const DERIVED_TABLES = ['runs', 'trajectories', 'rounds'] as const;
