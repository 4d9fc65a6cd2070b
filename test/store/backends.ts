// The store backends tests run against: SQLite always, PostgreSQL when REVLOOP_TEST_PG names a
// server (`.ci/run` starts a throwaway cluster and sets it). Each PostgreSQL store lives in a fresh
// schema of that database, dropped when the test ends. Without REVLOOP_TEST_PG the PostgreSQL tests
// skip with a visible reason; with it set, an unreachable server fails them (never a silent skip).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';

export type BackendName = 'sqlite' | 'postgres';

export const PG_URL = process.env.REVLOOP_TEST_PG || null;

export const PG_SKIP: string | false = PG_URL
  ? false
  : 'REVLOOP_TEST_PG is not set: PostgreSQL tests skipped (set it to postgres://user@host:port/db, as .ci/run does)';

export interface TestStore {
  backend: BackendName;
  /** What `openStore` / `--store` takes. */
  location: string;
  /** Another location of the same backend (a second, empty store). */
  another(): string;
  /** Removes everything this store created (files, schemas). */
  cleanup(): Promise<void>;
}

/** A URL for a fresh schema in the test database. */
function schemaUrl(name: string): string {
  const url = new URL(PG_URL!);
  url.searchParams.set('schema', name);
  return url.toString();
}

/** Drops test schemas (best effort, but a server that went away is reported). */
export async function dropSchemas(names: readonly string[]): Promise<void> {
  if (!names.length) return;
  const url = new URL(PG_URL!);
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    for (const n of names) await client.query(`DROP SCHEMA IF EXISTS ${n} CASCADE`);
  } finally {
    await client.end();
  }
}

/** A fresh, empty store of the backend. */
export function testStore(backend: BackendName): TestStore {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-store-'));
    let n = 0;
    return {
      backend,
      location: join(dir, 'runs.db'),
      another: () => join(dir, `other-${++n}.db`),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!PG_URL) throw new Error(PG_SKIP as string);
  const base = `t_${randomBytes(6).toString('hex')}`;
  const schemas = [base];
  return {
    backend,
    location: schemaUrl(base),
    another: () => {
      const name = `${base}_${schemas.length}`;
      schemas.push(name);
      return schemaUrl(name);
    },
    cleanup: () => dropSchemas(schemas),
  };
}

/** Both backends, each with its skip reason (false = runs). */
export const BACKENDS: ReadonlyArray<{ name: BackendName; skip: string | false }> = [
  { name: 'sqlite', skip: false },
  { name: 'postgres', skip: PG_SKIP },
];

/**
 * Direct SQL on a store, bypassing revloop (tests of tamper detection): `?` placeholders on both
 * backends. `liftGuard()` removes the append-only triggers (SQLite) or disables them (PostgreSQL),
 * as someone editing the database by hand would.
 */
export interface RawDb {
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  run(sql: string, ...params: unknown[]): Promise<void>;
  liftGuard(): Promise<void>;
  close(): Promise<void>;
}

export async function rawDb(location: string): Promise<RawDb> {
  if (!/^postgres/.test(location)) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(location);
    return {
      all: async <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
      run: async (sql, ...params) => void db.prepare(sql).run(...params),
      liftGuard: async () =>
        void db.exec('DROP TRIGGER IF EXISTS events_append_only_update; DROP TRIGGER IF EXISTS events_append_only_delete;'),
      close: async () => void db.close(),
    };
  }
  const url = new URL(location);
  const schema = url.searchParams.get('schema') ?? 'revloop';
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
  await client.connect();
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    all: async <T>(sql: string, ...params: unknown[]) => (await client.query(numbered(sql), params)).rows as T[],
    run: async (sql, ...params) => void (await client.query(numbered(sql), params)),
    // The append-only triggers on events and the guards of the derived tables (schema 2).
    liftGuard: async () => {
      for (const t of ['events', 'runs', 'trajectories', 'rounds']) await client.query(`ALTER TABLE ${t} DISABLE TRIGGER USER`);
    },
    close: () => client.end(),
  };
}

/** One test per backend (`only` restricts it to one), each with a fresh store removed afterwards. */
export function eachBackend(name: string, body: (s: TestStore) => Promise<void>, only?: BackendName): void {
  for (const b of BACKENDS) {
    if (only && b.name !== only) continue;
    test(`[${b.name}] ${name}`, { skip: b.skip }, async () => {
      const s = testStore(b.name);
      try {
        await body(s);
      } finally {
        await s.cleanup();
      }
    });
  }
}
