// ToolShed error families and their three renderings (docs/harness.md §1.6). Every failure the runtime
// reports is a ToolError carrying terse, standard and verbose texts; which one the model sees, and
// whether the failed call is echoed back, is chosen when the observation is rendered.
import { getCloseMatches } from '../../core/py/difflib.ts';
import { pySorted } from '../../core/py/strings.ts';
import { pyStrip } from '../../core/py/format.ts';
import { pyReprValue, pyTypeName, type PyValue } from '../../core/py/values.ts';
import { TOOL_NAMES, toolSignature, type ArgSpec, type ToolSpec } from './tools.ts';
import { GENERIC_GLOSS, glossTable, type GlossLookup } from '../../remedy/failure-record.ts';
import { markErrorClass } from '../../core/errors.ts';

/** The three renderings of a ToolShed error (docs/harness.md §1). */
export type Verbosity = 'terse' | 'standard' | 'verbose';

/** How a ToolShed error is rendered: its verbosity (default `standard`) and whether the failed call is echoed. */
export interface RenderOptions {
  verbosity?: Verbosity;
  /** Append "\n  while calling: <stripped action>" (the probe's fail_echo condition). */
  echoAction?: boolean;
}

/**
 * One failed tool call, rendered three ways: `message` is the standard text, `kind` the error family
 * used in every breakdown. It is what the environment answers the model (an observation), not a
 * failure of revloop, so it is no RevloopError: nothing reports it to a person, and a catch-all for
 * revloop's errors never takes it for one. `ToolError.isInstance(e)` recognises it across copies.
 */
export class ToolError extends Error {
  /** Whether `e` is a ToolError, from any copy of revloop. */
  static readonly isInstance = markErrorClass<ToolError>(this, 'revloop.error.ToolError');
  readonly kind: string;
  readonly terse: string;
  readonly standard: string;
  readonly verbose: string;

  /** `verbose` defaults to the standard text (`message`). */
  constructor(message: string, options: { kind: string; terse: string; verbose?: string; cause?: unknown }) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'ToolError';
    this.kind = options.kind;
    this.terse = options.terse;
    this.standard = message;
    this.verbose = options.verbose || message;
  }

  text(verbosity: Verbosity = 'standard'): string {
    return verbosity === 'terse' ? this.terse : verbosity === 'verbose' ? this.verbose : this.standard;
  }
}

/** `difflib.get_close_matches(name, candidates, n=1, cutoff=0.0)[0]`, else the first candidate. */
function closest(name: string, candidates: readonly string[]): string {
  const match = getCloseMatches(name, candidates, 1, 0.0);
  return match.length ? match[0] : candidates[0];
}

// ---- parse errors ------------------------------------------------------------------------------

export function parseEmptyError(): ToolError {
  return new ToolError('Error: empty action. Emit exactly one tool call.', {
    kind: 'parse_error',
    terse: 'Error: empty action.',
    verbose: 'Error: empty action. Emit exactly one tool call of the form tool_name(arg=value).',
  });
}

/** `msg` is CPython's SyntaxError.msg. */
export function parseSyntaxError(msg: string): ToolError {
  return new ToolError(`SyntaxError: could not parse the call (${msg}).`, {
    kind: 'parse_error',
    terse: 'Error: syntax error.',
    verbose: `SyntaxError: could not parse the call (${msg}). Expected a single call of the form tool_name(arg=value).`,
  });
}

export function parseNotCallError(): ToolError {
  return new ToolError("Error: the action must be a single tool call, e.g. read_file(path='notes/todo.md').", {
    kind: 'parse_error',
    terse: 'Error: not a tool call.',
    verbose:
      "Error: the action must be a single tool call, e.g. read_file(path='notes/todo.md'). Expressions, assignments and multiple statements are not accepted.",
  });
}

export function parseKwargsError(): ToolError {
  return new ToolError('Error: argument unpacking (**) is not supported.', {
    kind: 'parse_error',
    terse: 'Error: **kwargs not supported.',
    verbose: 'Error: argument unpacking (**) is not supported; pass each argument explicitly.',
  });
}

/** `src` is `ast.unparse` of the offending argument; it is shown through repr. */
export function parseNonLiteralError(tool: string, src: string): ToolError {
  const shown = pyReprValue(src);
  return new ToolError(`Error: ${tool}: argument value ${shown} is not a literal.`, {
    kind: 'parse_error',
    terse: 'Error: bad argument value.',
    verbose: `Error: ${tool}: argument value ${shown} is not a literal. Arguments must be plain strings, numbers or lists of strings.`,
  });
}

// ---- binding errors ----------------------------------------------------------------------------

export function unknownToolError(name: string): ToolError {
  const near = closest(name, TOOL_NAMES);
  return new ToolError(`NameError: unknown tool '${name}'. Did you mean '${near}'?`, {
    kind: 'unknown_tool',
    terse: `Error: unknown tool '${name}'.`,
    verbose: `NameError: unknown tool '${name}'. Did you mean '${near}'? The available tools are: ${TOOL_NAMES.join(', ')}.`,
  });
}

export function arityTooManyError(spec: ToolSpec, given: number): ToolError {
  const n = spec.args.length;
  return new ToolError(`TypeError: ${spec.name}() takes ${n} arguments but ${given} positional were given.`, {
    kind: 'arity_error',
    terse: `Error: ${spec.name} takes ${n} arguments.`,
    verbose: `TypeError: ${spec.name}() takes ${n} arguments but ${given} positional were given. Signature: ${toolSignature(spec)}.`,
  });
}

export function arityDuplicateError(spec: ToolSpec, name: string): ToolError {
  return new ToolError(`TypeError: ${spec.name}() got multiple values for '${name}'.`, {
    kind: 'arity_error',
    terse: `Error: duplicate argument '${name}'.`,
    verbose: `TypeError: ${spec.name}() got multiple values for '${name}'. Signature: ${toolSignature(spec)}.`,
  });
}

export function unexpectedArgumentError(spec: ToolSpec, key: string): ToolError {
  const near = closest(key, pySorted(spec.args.map((a) => a.name)));
  return new ToolError(`TypeError: ${spec.name}() got an unexpected keyword argument '${key}'. Did you mean '${near}'?`, {
    kind: 'unexpected_argument',
    terse: `Error: unexpected argument '${key}'.`,
    verbose: `TypeError: ${spec.name}() got an unexpected keyword argument '${key}'. Did you mean '${near}'? Signature: ${toolSignature(spec)}.`,
  });
}

export function missingArgumentError(spec: ToolSpec, a: ArgSpec): ToolError {
  return new ToolError(`TypeError: ${spec.name}() missing required argument '${a.name}'.`, {
    kind: 'missing_argument',
    terse: `Error: missing argument '${a.name}'.`,
    verbose: `TypeError: ${spec.name}() missing required argument '${a.name}' (${a.description}). Signature: ${toolSignature(spec)}.`,
  });
}

type WantedType = 'string' | 'number' | 'list of strings';

export function typeErrorFor(spec: ToolSpec, a: ArgSpec, value: PyValue, want: WantedType): ToolError {
  const got = pyTypeName(value);
  return new ToolError(`TypeError: ${spec.name}(): argument '${a.name}' must be a ${want}, got ${got}.`, {
    kind: 'type_error',
    terse: `Error: '${a.name}' must be a ${want}.`,
    verbose: `TypeError: ${spec.name}(): argument '${a.name}' must be a ${want}, got ${got} (${pyReprValue(value)}). Signature: ${toolSignature(spec)}.`,
  });
}

// ---- tool errors -------------------------------------------------------------------------------

type NotFoundKind = 'folder' | 'file' | 'contact' | 'team' | 'event' | 'attendee' | 'recipient';

/** `{kind}_not_found`; the closest-match and known-options clauses appear only when there are options. */
export function notFoundError(kind: NotFoundKind, key: string, options: readonly string[]): ToolError {
  const near = options.length ? closest(key, options) : '';
  const shown = options.slice(0, 6).join(', ');
  const standard = `LookupError: no ${kind} matching '${key}'.` + (near ? ` Closest match: '${near}'.` : '');
  return new ToolError(standard, {
    kind: `${kind}_not_found`,
    terse: `Error: no ${kind} '${key}'.`,
    verbose: standard + (shown ? ` Known ${kind}s include: ${shown}.` : ''),
  });
}

export function permissionError(path: string, action: 'written' | 'deleted'): ToolError {
  return new ToolError(`PermissionError: '${path}' is read-only and cannot be ${action}.`, {
    kind: 'permission_error',
    terse: `Error: '${path}' is read-only.`,
    verbose: `PermissionError: '${path}' is read-only and cannot be ${action}. Files under system/ are managed by the workspace.`,
  });
}

export function dateFormatError(value: string, field: string, tool: string): ToolError {
  return new ToolError(`ValueError: ${tool}(): '${field}' must be YYYY-MM-DD, got '${value}'.`, {
    kind: 'format_error',
    terse: `Error: bad ${field} '${value}'.`,
    verbose: `ValueError: ${tool}(): '${field}' must be YYYY-MM-DD, got '${value}'. Example: 2026-09-14.`,
  });
}

export function timeFormatError(time: string): ToolError {
  return new ToolError(`ValueError: create_event(): 'time' must be HH:MM, got '${time}'.`, {
    kind: 'format_error',
    terse: `Error: bad time '${time}'.`,
    verbose: `ValueError: create_event(): 'time' must be HH:MM, got '${time}'. Example: 14:30.`,
  });
}

export function emailFormatError(to: string): ToolError {
  return new ToolError(`ValueError: send_message(): 'to' must be an email address, got '${to}'.`, {
    kind: 'format_error',
    terse: `Error: '${to}' is not an email address.`,
    verbose: `ValueError: send_message(): 'to' must be an email address, got '${to}'. Use find_contact() to resolve a name to an address.`,
  });
}

export function stateError(eid: string): ToolError {
  return new ToolError(`StateError: event '${eid}' is already cancelled.`, {
    kind: 'state_error',
    terse: `Error: '${eid}' already cancelled.`,
    verbose: `StateError: event '${eid}' is already cancelled; cancelling it again has no effect.`,
  });
}

export function unsupportedConversionError(src: string, dst: string, pairs: string): ToolError {
  return new ToolError(`ValueError: convert_units(): no conversion from '${src}' to '${dst}'.`, {
    kind: 'unsupported_conversion',
    terse: `Error: cannot convert ${src} to ${dst}.`,
    verbose: `ValueError: convert_units(): no conversion from '${src}' to '${dst}'. Supported pairs include: ${pairs}.`,
  });
}

// ---- rendering ---------------------------------------------------------------------------------

/** The observation text of a failure: the chosen verbosity, plus the echo clause when asked. */
export function renderError(action: string, err: ToolError, options: RenderOptions = {}): string {
  const body = err.text(options.verbosity ?? 'standard');
  return options.echoAction ? `${body}\n  while calling: ${pyStrip(action)}` : body;
}

/** Error families seen in the probe item pool (12). */
export const PROBE_ERROR_FAMILIES: readonly string[] = [
  'attendee_not_found',
  'contact_not_found',
  'event_not_found',
  'file_not_found',
  'format_error',
  'missing_argument',
  'permission_error',
  'team_not_found',
  'type_error',
  'unexpected_argument',
  'unknown_tool',
  'unsupported_conversion',
];

/**
 * Short glosses per family, used by the `abstract` failure note (docs/harness.md §3.3): the generic
 * tool-call families (remedy's GENERIC_GLOSS), ToolShed's own, and CodeRepair's, as the reference
 * harness had them in one table; unknown families read "the call failed".
 */
export const ERROR_GLOSS: Readonly<Record<string, string>> = {
  ...GENERIC_GLOSS,
  unsupported_conversion: 'that conversion is not supported',
  contact_not_found: 'no such contact',
  file_not_found: 'no such file',
  folder_not_found: 'no such folder',
  team_not_found: 'no such team',
  event_not_found: 'no such event',
  attendee_not_found: 'no such attendee',
  recipient_not_found: 'no such recipient',
  test_failure: 'the code did not pass the tests',
  runtime_error: 'the code raised an exception',
  syntax_error: 'the code did not compile',
};

/** The gloss of a family under ERROR_GLOSS: what the studies pass to the remedy's notes. */
export const errorGloss: GlossLookup = glossTable(ERROR_GLOSS);
