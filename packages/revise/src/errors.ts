// The base of revloop's error hierarchy, owned here so that the light package and revloop throw
// the same classes (revloop's src/core/errors.ts re-exports them and adds its own). Every error a
// person or a program can act on is a RevloopError: a stable `code`, a message written for people,
// structured fields. Every class is built the same way, `new XError(message, { ...fields, cause })`.
//
// Errors are recognised by marks registered with Symbol.for, not by `instanceof` alone: two copies
// of revloop in one process (an ESM and a CommonJS one, a plugin with its own copy, two versions)
// have two StoreError classes, and `instanceof` says no across them. Each class's `isInstance(e)`
// says yes for an instance of it or of a subclass from any copy (`StoreError.isInstance(e)`), and no
// for any other error.

import type { ReviseResult } from './revise/revise-types.ts';

/** Stable error codes. New codes may be added; existing ones never change meaning. */
export type ErrorCode =
  | 'E_INVALID'
  | 'E_USAGE'
  | 'E_INPUT'
  | 'E_NOT_FOUND'
  | 'E_PLAN_MISMATCH'
  | 'E_RUN_LOCKED'
  | 'E_CAPABILITY'
  | 'E_STORE'
  | 'E_PROVIDER'
  | 'E_DATA_MISSING'
  /** A store disagrees with its own events (a reader refused what it would have shown). */
  | 'E_INTEGRITY'
  | 'E_REVISION_FAILED'
  /** A worker's write refused: its lease on the trajectory was taken over (the work is another worker's now). */
  | 'E_LEASE_LOST'
  /** A model returned a number no scorer may record (NaN, ±Infinity, a log-probability above 0). */
  | 'E_NUMERIC';

/** A class whose instances are errors (any constructor signature). */
type ErrorClass<E extends Error> = abstract new (...args: never) => E;

/**
 * Marks an error class for `isInstance` checks and returns the check: the class's prototype, and so
 * every instance of it and of its subclasses, carries `Symbol.for(key)`, the same symbol in every
 * copy of revloop. `key` names the class once and for all (`revloop.error.StoreError`; a plugin's
 * classes use their own prefix). Use it as `static readonly isInstance = markErrorClass(this, key)`
 * (with `override` in a subclass).
 */
export function markErrorClass<E extends Error>(cls: ErrorClass<E>, key: string): (e: unknown) => e is E {
  const mark = Symbol.for(key);
  Object.defineProperty(cls.prototype, mark, { value: true });
  return (e: unknown): e is E => typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[mark] === true;
}

/** The base of every revloop error: a stable `code`, a message for people, structured details. */
export class RevloopError extends Error {
  /**
   * Whether `e` is a revloop error, from this copy of revloop or any other. (The mark is the one
   * revloop 0.1.0 set on every error, so errors of that release are recognised too.)
   */
  static readonly isInstance = markErrorClass<RevloopError>(this, 'revloop.error');
  readonly code: ErrorCode;

  constructor(message: string, options: { code: ErrorCode; cause?: unknown }) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = options.code;
    this.name = 'RevloopError';
  }
}

/**
 * A request that cannot be carried out as asked, for a reason the message explains (a general
 * user-fixable error; the subclasses add structure where there is some to add).
 */
export class UserError extends RevloopError {
  /** Whether `e` is a UserError (or a subclass), from any copy of revloop. */
  static override readonly isInstance = markErrorClass<UserError>(this, 'revloop.error.UserError');

  constructor(message: string, options: { code?: ErrorCode; cause?: unknown } = {}) {
    super(message, { ...options, code: options.code ?? 'E_INVALID' });
    this.name = 'UserError';
  }
}

/** A bad option or argument value: `option` names it as the user typed it (e.g. `--budget`, `budget.tokens`). */
export class UsageError extends UserError {
  /** Whether `e` is a UsageError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<UsageError>(this, 'revloop.error.UsageError');
  readonly option: string | null;

  constructor(message: string, options: { option?: string | null; cause?: unknown } = {}) {
    super(message, { ...options, code: 'E_USAGE' });
    this.option = options.option ?? null;
    this.name = 'UsageError';
  }
}

/** A capability the chosen backend lacks (scoring, bans, token counting): the work refuses cleanly. */
export class CapabilityError extends UserError {
  /** Whether `e` is a CapabilityError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<CapabilityError>(this, 'revloop.error.CapabilityError');
  readonly capability: string | null;
  readonly model: string | null;

  constructor(message: string, options: { capability?: string | null; model?: string | null; cause?: unknown } = {}) {
    super(message, { ...options, code: 'E_CAPABILITY' });
    this.capability = options.capability ?? null;
    this.model = options.model ?? null;
    this.name = 'CapabilityError';
  }
}

/**
 * No draft passed verification and the caller asked for an error rather than the best draft
 * (`reviseMiddleware({ onFailure: 'throw' })`, or a middleware call that produced no draft at all).
 * `result` is the whole revision: every attempt, its usage, why it stopped.
 */
export class RevisionFailedError extends RevloopError {
  /** Whether `e` is a RevisionFailedError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<RevisionFailedError>(this, 'revloop.error.RevisionFailedError');
  readonly result: ReviseResult;

  constructor(message: string, options: { result: ReviseResult; cause?: unknown }) {
    super(message, { ...options, code: 'E_REVISION_FAILED' });
    this.result = options.result;
    this.name = 'RevisionFailedError';
  }
}

const NAMED_OPTION = Symbol.for('revloop.error.namedOption');

/** What `namingOption` keeps on an error: the options' names, and how to build the error naming them otherwise. */
interface OptionNaming {
  options: readonly string[];
  wording: (...names: string[]) => RevloopError;
}

/**
 * An error whose message names options of the call that failed, by their names there (`budget`,
 * `runId`, `plugins`): `wording(...names)` builds the error with the options called `names` (in the
 * order of `options`), and what comes back is `wording(...options)`. A front end that calls the
 * options otherwise words the same error its own way with `messageNaming(error, rename)` (revloop's
 * command line: the flags the user typed), so the library speaks of options and the command line of
 * flags. Two copies of revloop recognise each other's (the mark is registered with Symbol.for).
 */
export function namingOption<E extends RevloopError>(options: string | readonly string[], wording: (...names: string[]) => E): E {
  const names = typeof options === 'string' ? [options] : [...options];
  const error = wording(...names);
  const naming: OptionNaming = { options: names, wording };
  Object.defineProperty(error, NAMED_OPTION, { value: naming, enumerable: false });
  return error;
}

function namingOf(e: unknown): OptionNaming | null {
  const naming = typeof e === 'object' && e !== null ? (e as Record<symbol, unknown>)[NAMED_OPTION] : undefined;
  return naming && typeof (naming as OptionNaming).wording === 'function' ? (naming as OptionNaming) : null;
}

/** The options an error's message names (see `namingOption`), in order; empty when it names none so. */
export function namedOptions(e: unknown): readonly string[] {
  return namingOf(e)?.options ?? [];
}

/**
 * The message of `e` with each option it names called `rename(option)` (see `namingOption`); its own
 * message when it names none so.
 */
export function messageNaming(e: unknown, rename: (option: string) => string): string {
  const naming = namingOf(e);
  if (naming) return naming.wording(...naming.options.map(rename)).message;
  return e instanceof Error ? e.message : String(e);
}
