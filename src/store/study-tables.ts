// Tables that other studies keep in the same store file (probe scores, agent rollouts). Each
// extension creates its tables idempotently and records its schema version in the store's meta
// table, so an older revloop refuses a newer store instead of misreading it.
import type Database from 'better-sqlite3';
import { UserError } from '../core/errors.ts';

/** Creates an extension's tables (idempotent SQL) and checks or records `<name>_schema_version`. */
export function ensureExtensionSchema(db: Database.Database, name: string, sql: string, version: number): void {
  db.exec(sql);
  const key = `${name}_schema_version`;
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  if (!row) db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, String(version));
  else if (Number(row.value) > version) {
    throw new UserError(`store ${name} schema version ${row.value} is newer than this revloop understands (${version}); upgrade revloop`);
  }
}

/** Whether the store has a table of this name (an extension that was never used has none). */
export function hasTable(db: Database.Database, table: string): boolean {
  return !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
}
