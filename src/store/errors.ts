// The store's errors people see, worded once for every backend: each names the store (a file path
// or a redacted URL) and says what to do.
import { NotFoundError, StoreError, UserError } from '../core/errors.ts';

/** A write to a store opened read-only (a programming error of the caller, said plainly). */
export function openedReadOnly(location: string): StoreError {
  return new StoreError(`${location}: store opened read-only`, { location, reason: 'readonly' });
}

/** The database refused a write: the user may not write to this store. */
export function readOnlyForYou(location: string, message: string | undefined, cause?: unknown): StoreError {
  const text = `${location}: the store is read-only for you (${message})`;
  return cause === undefined
    ? new StoreError(text, { location, reason: 'readonly' })
    : new StoreError(text, { location, reason: 'readonly', cause });
}

/** A unique event key was written twice (a study record or round stored again); the commit stored nothing. */
export function writtenTwice(location: string, message: string | undefined, cause: unknown): UserError {
  return new UserError(`${location}: a result was written twice under the same key (${message}); nothing was stored`, { cause });
}

/** A store written by a newer revloop. */
export function newerSchema(location: string, version: number, understood: number): StoreError {
  return new StoreError(
    `${location}: store schema version ${version} is newer than this revloop understands (${understood}); upgrade revloop`,
    { location, reason: 'newer_schema' },
  );
}

/** Why a file or schema is not a revloop store: tables of its own, or no marker. */
export function notAStoreReason(foreign: readonly string[]): string {
  return foreign.length ? `it has tables revloop does not know (${foreign.slice(0, 5).join(', ')})` : 'it has no revloop marker';
}

export function runNotFound(runId: string, location: string): NotFoundError {
  return new NotFoundError(`run '${runId}' not found in ${location} (see \`revloop runs --store ${location}\`)`, {
    kind: 'run',
    target: runId,
  });
}
