// Errors meant for people: the CLI prints `message` (no stack trace) and exits non-zero.

export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'UserError';
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
    super(formatLocation(file, line, field, problem));
    this.name = 'InputError';
  }
}

export function formatLocation(file: string, line: number | null, field: string | null, problem: string): string {
  return `${file}${line != null ? ':' + line : ''}: ${field ? field + ': ' : ''}${problem}`;
}

/** A capability the chosen backend lacks (e.g. scoring, bans): the experiment refuses cleanly. */
export class CapabilityError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'CapabilityError';
  }
}
