// Typed errors of the library. Every error a person can act on is a RevloopError: it carries a
// stable `code` and structured fields (file, line, field, run id, HTTP status, …) so programs can
// react to it without parsing messages, and a `message` written for people. The library never
// decides exit codes: the CLI maps codes to them (src/cli/errors.ts).
//
// Every class is built the same way, `new XError(message, { ...fields, cause })`, and recognised
// by its `isInstance` (`StoreError.isInstance(e)`), which also knows the errors of another copy of
// revloop in the same process (a plugin importing its own copy, say), where `instanceof` does not.

import { markErrorClass, UserError } from '@revloop/revise';

// The base classes (RevloopError, UserError, UsageError, CapabilityError, RevisionFailedError) and
// the codes are the revise package's, so that its errors and revloop's are one hierarchy.
export {
  RevloopError,
  UserError,
  UsageError,
  CapabilityError,
  RevisionFailedError,
  markErrorClass,
  namingOption,
  namedOptions,
  messageNaming,
  type ErrorCode,
} from '@revloop/revise';

/**
 * A problem in one input row: `message` is the problem, and the error's `message` is it rendered
 * `file:line: field: problem` (the line and the field left out when unknown).
 */
export class InputError extends UserError {
  /** Whether `e` is an InputError (or a CaseSetError), from any copy of revloop. */
  static override readonly isInstance = markErrorClass<InputError>(this, 'revloop.error.InputError');
  readonly file: string;
  readonly line: number | null;
  readonly field: string | null;
  /** The problem alone, without its place. */
  readonly problem: string;

  constructor(message: string, options: { file: string; line?: number | null; field?: string | null; cause?: unknown }) {
    const { file, line = null, field = null } = options;
    super(formatLocation(file, line, field, message), { ...options, code: 'E_INPUT' });
    this.file = file;
    this.line = line;
    this.field = field;
    this.problem = message;
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
  /** Whether `e` is a NotFoundError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<NotFoundError>(this, 'revloop.error.NotFoundError');
  readonly kind: 'run' | 'file' | 'folder' | 'store' | 'family' | 'case' | 'profile' | 'item' | 'other';
  readonly target: string;

  constructor(message: string, options: { kind: NotFoundError['kind']; target: string; cause?: unknown }) {
    super(message, { ...options, code: 'E_NOT_FOUND' });
    this.kind = options.kind;
    this.target = options.target;
    this.name = 'NotFoundError';
  }
}

/** A run id already bound to a different plan: `differences` lists what differs, path by path. */
export class PlanMismatchError extends UserError {
  /** Whether `e` is a PlanMismatchError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<PlanMismatchError>(this, 'revloop.error.PlanMismatchError');
  readonly runId: string;
  readonly differences: readonly string[];

  constructor(message: string, options: { runId: string; differences: readonly string[]; cause?: unknown }) {
    super(message, { ...options, code: 'E_PLAN_MISMATCH' });
    this.runId = options.runId;
    this.differences = options.differences;
    this.name = 'PlanMismatchError';
  }
}

/** A run being written by another live process (`pid` on `host`). */
export class RunLockedError extends UserError {
  /** Whether `e` is a RunLockedError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<RunLockedError>(this, 'revloop.error.RunLockedError');
  readonly runId: string;
  readonly pid: number;
  readonly host: string;

  constructor(message: string, options: { runId: string; pid: number; host: string; cause?: unknown }) {
    super(message, { ...options, code: 'E_RUN_LOCKED' });
    this.runId = options.runId;
    this.pid = options.pid;
    this.host = options.host;
    this.name = 'RunLockedError';
  }
}

/** A store that cannot be used as asked (`location` is its path or redacted URL). */
export class StoreError extends UserError {
  /** Whether `e` is a StoreError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<StoreError>(this, 'revloop.error.StoreError');
  readonly location: string;
  readonly reason: 'missing' | 'readonly' | 'not_a_store' | 'newer_schema' | 'unreachable' | 'other';

  constructor(message: string, options: { location: string; reason: StoreError['reason']; cause?: unknown }) {
    super(message, { ...options, code: 'E_STORE' });
    this.location = options.location;
    this.reason = options.reason;
    this.name = 'StoreError';
  }
}

/** A model provider refused or failed in a way retrying will not fix (`status`: HTTP status, if any). */
export class ProviderError extends UserError {
  /** Whether `e` is a ProviderError (or a subclass), from any copy of revloop. */
  static override readonly isInstance = markErrorClass<ProviderError>(this, 'revloop.error.ProviderError');
  readonly status: number | null;
  readonly url: string | null;

  constructor(message: string, options: { status?: number | null; url?: string | null; cause?: unknown } = {}) {
    super(message, { ...options, code: 'E_PROVIDER' });
    this.status = options.status ?? null;
    this.url = options.url ?? null;
    this.name = 'ProviderError';
  }
}

/** Reference data the library needs (Punkt parameters, a case file) is not where it looked. */
export class DataMissingError extends UserError {
  /** Whether `e` is a DataMissingError, from any copy of revloop. */
  static override readonly isInstance = markErrorClass<DataMissingError>(this, 'revloop.error.DataMissingError');
  readonly what: string;

  constructor(message: string, options: { what: string; cause?: unknown }) {
    super(message, { ...options, code: 'E_DATA_MISSING' });
    this.what = options.what;
    this.name = 'DataMissingError';
  }
}
