// The base of revloop's error hierarchy, owned here so that the light package and revloop throw
// the same classes (revloop's src/core/errors.ts re-exports them and adds its own). Every error a
// person can act on is a RevloopError: a stable `code`, a message written for people, structured
// fields. Errors are recognised by a brand registered with Symbol.for, not by `instanceof` alone, so
// two copies in one process (an ESM and a CommonJS one, or two versions) still recognise each
// other's errors: use `isRevloopError(e)` or `RevloopError.is(e)`.

import type { ReviseResult } from './revise/revise-types.ts';

const BRAND = Symbol.for('revloop.error');

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
  | 'E_REVISION_FAILED';

/** The base of every revloop error: a stable `code`, a message for people, structured details. */
export class RevloopError extends Error {
  readonly [BRAND] = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RevloopError';
  }

  /** Whether `e` is a revloop error, from this copy of revloop or any other. */
  static is(e: unknown): e is RevloopError {
    return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Whether `e` is a revloop error (see RevloopError.is). */
export function isRevloopError(e: unknown): e is RevloopError {
  return RevloopError.is(e);
}

/**
 * A request that cannot be carried out as asked, for a reason the message explains (a general
 * user-fixable error; the subclasses add structure where there is some to add).
 */
export class UserError extends RevloopError {
  constructor(message: string, options?: { cause?: unknown; code?: ErrorCode }) {
    super(options?.code ?? 'E_INVALID', message, options);
    this.name = 'UserError';
  }
}

/** A bad option or argument value: `option` names it as the user typed it (e.g. `--budget`, `budget.tokens`). */
export class UsageError extends UserError {
  constructor(
    readonly option: string | null,
    message: string,
  ) {
    super(message, { code: 'E_USAGE' });
    this.name = 'UsageError';
  }
}

/** A capability the chosen backend lacks (scoring, bans, token counting): the work refuses cleanly. */
export class CapabilityError extends UserError {
  constructor(
    message: string,
    readonly capability: string | null = null,
    readonly model: string | null = null,
  ) {
    super(message, { code: 'E_CAPABILITY' });
    this.name = 'CapabilityError';
  }
}

/**
 * No draft passed verification and the caller asked for an error rather than the best draft
 * (`reviseMiddleware({ onFailure: 'throw' })`, or a middleware call that produced no draft at all).
 * `result` is the whole revision: every attempt, its usage, why it stopped.
 */
export class RevisionFailedError extends RevloopError {
  constructor(readonly result: ReviseResult) {
    super('E_REVISION_FAILED', `revloop: no draft passed verification (${result.status}: ${result.reason})`);
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
