// Typed errors of the library. Every error a person can act on is a RevloopError: it carries a
// stable `code` and structured fields (file, line, field, run id, HTTP status, …) so programs can
// react to it without parsing messages, and a `message` written for people. The library never
// decides exit codes: the CLI maps codes to them (src/cli/errors.ts).
//
// Errors are recognised by a brand registered with Symbol.for, not by `instanceof` alone, so two
// copies of revloop in one process (a plugin importing its own copy, say) still recognise each
// other's errors: use `isRevloopError(e)` or `RevloopError.is(e)`.

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
  | 'E_INTEGRITY';

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
 * user-fixable error; the subclasses below add structure where there is some to add).
 */
export class UserError extends RevloopError {
  constructor(message: string, options?: { cause?: unknown; code?: ErrorCode }) {
    super(options?.code ?? 'E_INVALID', message, options);
    this.name = 'UserError';
  }
}

/** A bad option or argument value: `option` names it as the user typed it (e.g. `--budget`). */
export class UsageError extends UserError {
  constructor(
    readonly option: string | null,
    message: string,
  ) {
    super(message, { code: 'E_USAGE' });
    this.name = 'UsageError';
  }
}

/** A problem in one input row: rendered as `file:line: field: problem`. */
export class InputError extends UserError {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly field: string | null,
    readonly problem: string,
  ) {
    super(formatLocation(file, line, field, problem), { code: 'E_INPUT' });
    this.name = 'InputError';
  }
}

/** `file:line: field: problem`, leaving out the parts that are unknown; input text shown escaped (see printable). */
export function formatLocation(file: string, line: number | null, field: string | null, problem: string): string {
  return printable(`${file}${line != null ? ':' + line : ''}: ${field ? field + ': ' : ''}${problem}`);
}

/**
 * Characters a terminal would act on or hide, as error lines must never carry them raw: controls
 * (C0 but none of the line's own, DEL, C1), format characters (bidi overrides, zero-width), line and
 * paragraph separators, surrogates, private use, unassigned code points, and U+FFFD, which stands
 * for bytes that were not UTF-8 (binary input).
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\ufffd]/gu;
const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Text from input, safe to print in a message: what a terminal would act on is shown as \xHH / \uHHHH. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (ch) => {
    const cp = ch.codePointAt(0)!;
    if (NAMED[ch]) return NAMED[ch];
    if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, '0')}`;
    if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
    return `\\U${cp.toString(16).padStart(8, '0')}`;
  });
}

/** Something named does not exist (`target`): a run in a store, a file, a family, a profile. */
export class NotFoundError extends UserError {
  constructor(
    readonly kind: 'run' | 'file' | 'folder' | 'store' | 'family' | 'case' | 'profile' | 'item' | 'other',
    readonly target: string,
    message: string,
  ) {
    super(message, { code: 'E_NOT_FOUND' });
    this.name = 'NotFoundError';
  }
}

/** A run id already bound to a different plan: `differences` lists what differs, path by path. */
export class PlanMismatchError extends UserError {
  constructor(
    readonly runId: string,
    readonly differences: readonly string[],
    message: string,
  ) {
    super(message, { code: 'E_PLAN_MISMATCH' });
    this.name = 'PlanMismatchError';
  }
}

/** A run being written by another live process (`pid` on `host`). */
export class RunLockedError extends UserError {
  constructor(
    readonly runId: string,
    readonly pid: number,
    readonly host: string,
    message: string,
  ) {
    super(message, { code: 'E_RUN_LOCKED' });
    this.name = 'RunLockedError';
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

/** A store that cannot be used as asked (`location` is its path or redacted URL). */
export class StoreError extends UserError {
  constructor(
    readonly location: string,
    readonly reason: 'missing' | 'readonly' | 'not_a_store' | 'newer_schema' | 'unreachable' | 'other',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, { ...options, code: 'E_STORE' });
    this.name = 'StoreError';
  }
}

/** A model provider refused or failed in a way retrying will not fix (`status`: HTTP status, if any). */
export class ProviderError extends UserError {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly url: string | null = null,
  ) {
    super(message, { code: 'E_PROVIDER' });
    this.name = 'ProviderError';
  }
}

/** Reference data the library needs (Punkt parameters, a case file) is not where it looked. */
export class DataMissingError extends UserError {
  constructor(
    readonly what: string,
    message: string,
  ) {
    super(message, { code: 'E_DATA_MISSING' });
    this.name = 'DataMissingError';
  }
}
