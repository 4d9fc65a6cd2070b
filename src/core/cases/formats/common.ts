// Field checks shared by the row readers. A reader turns one parsed row into a ConstraintCase (or
// says the row is unsupported), collecting [field, problem] pairs instead of throwing.
import { sha256Hex } from '../../util/hash.ts';
import type { ConstraintCase } from '../../verify/types.ts';

export type RowResult =
  | { kind: 'case'; case: ConstraintCase; problems: Array<[string, string]>; structure: string }
  | { kind: 'unsupported'; id: string; structure: string }
  | { kind: 'invalid'; problems: Array<[string, string]> };

export type Row = Record<string, unknown>;

export function typeName(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'a list';
  return typeof x === 'object' ? 'an object' : typeof x;
}

/** A required non-empty string field. */
export function requireString(row: Row, field: string, problems: Array<[string, string]>): string | undefined {
  const v = row[field];
  if (v === undefined) problems.push([field, 'is required']);
  else if (typeof v !== 'string') problems.push([field, `must be a string, got ${typeName(v)}`]);
  else if (v.trim() === '') problems.push([field, 'must not be empty']);
  else return v;
  return undefined;
}

export function optionalString(row: Row, field: string, problems: Array<[string, string]>): string | undefined {
  const v = row[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    problems.push([field, `must be a string, got ${typeName(v)}`]);
    return undefined;
  }
  return v;
}

/** `<text field>_sha256` must be the SHA-256 of the text's UTF-8 bytes when both are present. */
export function checkSha(row: Row, textField: string, shaField: string, problems: Array<[string, string]>): void {
  const sha = row[shaField];
  const text = row[textField];
  if (sha === undefined || sha === null) return;
  if (typeof sha !== 'string' || !/^[0-9a-f]{64}$/.test(sha)) {
    problems.push([shaField, 'must be 64 lower-case hex digits']);
    return;
  }
  if (typeof text === 'string' && sha256Hex(text) !== sha)
    problems.push([shaField, `does not match the SHA-256 of ${textField} (${sha256Hex(text).slice(0, 12)}…)`]);
}
