// Field checks shared by the families' validateCase: each returns a problem string or null.
import { MAX_CASE_COUNT } from './limits.ts';

export function isInt(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x);
}

export function describe(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'a list';
  if (typeof x === 'object') return 'an object';
  if (typeof x === 'string') return `the string ${JSON.stringify(x.length > 40 ? x.slice(0, 40) + '…' : x)}`;
  return `${typeof x} ${String(x)}`;
}

/** An integer from `min` to `max` (default MAX_CASE_COUNT: a case's counts have an upper bound too). */
export function intProblem(x: unknown, min: number, max = MAX_CASE_COUNT): string | null {
  if (!isInt(x)) return `must be an integer, got ${describe(x)}`;
  if (x < min) return `must be at least ${min}, got ${x}`;
  if (x > max) return `must be at most ${max}, got ${x}`;
  return null;
}

export function textProblem(x: unknown, what: string): string | null {
  if (typeof x !== 'string') return `must be a string (${what}), got ${x === undefined ? 'nothing' : describe(x)}`;
  if (x.trim() === '') return `must not be empty (${what})`;
  return null;
}

export function stringListProblem(x: unknown, opts: { min?: number; exact?: number } = {}): string | null {
  if (!Array.isArray(x)) return `must be a list of strings, got ${x === undefined ? 'nothing' : describe(x)}`;
  if (opts.exact !== undefined && x.length !== opts.exact) return `must have exactly ${opts.exact} entries, got ${x.length}`;
  if (opts.min !== undefined && x.length < opts.min) return `must have at least ${opts.min} entries, got ${x.length}`;
  const bad = x.findIndex((v) => typeof v !== 'string');
  if (bad >= 0) return `entry ${bad} must be a string, got ${describe(x[bad])}`;
  return null;
}

/** Collects [field, problem] pairs, skipping nulls. */
export function problems(...pairs: Array<[string, string | null]>): Array<[string, string]> {
  return pairs.filter((p): p is [string, string] => p[1] !== null);
}
