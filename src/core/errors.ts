// Typed errors of the library. Every error a person can act on is a RevloopError: it carries a
// stable `code` and structured fields (file, line, field, run id, HTTP status, …) so programs can
// react to it without parsing messages, and a `message` written for people. The library never
// decides exit codes: the CLI maps codes to them (src/cli/errors.ts).
//
// Errors are recognised by a brand registered with Symbol.for, not by `instanceof` alone, so two
// copies of revloop in one process (a plugin importing its own copy, say) still recognise each
// other's errors: use `isRevloopError(e)` or `RevloopError.is(e)`.

import { UserError } from '@revloop/revise';

// The base classes (RevloopError, UserError, UsageError, CapabilityError, RevisionFailedError) and
// the codes are the revise package's, so that its errors and revloop's are one hierarchy.
export {
  RevloopError,
  isRevloopError,
  UserError,
  UsageError,
  CapabilityError,
  RevisionFailedError,
  namingOption,
  namedOptions,
  messageNaming,
  type ErrorCode,
} from '@revloop/revise';

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
