// The one place where errors become exit codes and stderr lines. Library errors carry a stable
// code (src/core/errors.ts); people see their message, never a stack trace, unless REVLOOP_DEBUG
// is set for an unexpected error.
import { CommanderError } from 'commander';
import { isRevloopError, type ErrorCode } from '../core/errors.ts';

/** Exit codes: 2 for anything the user can fix (docs/running.md), 1 for provider failures and bugs. */
const EXIT_CODES: Partial<Record<ErrorCode, number>> = { E_PROVIDER: 1 };

/** Prints an error for people and returns the exit code. */
export function reportError(e: unknown, stderr: { write(s: string): unknown } = process.stderr): number {
  if (e instanceof CommanderError) return e.exitCode;
  if (isRevloopError(e)) {
    stderr.write(`revloop: ${e.message}\n`);
    return EXIT_CODES[e.code] ?? 2;
  }
  const err = e as Error;
  stderr.write(`revloop: unexpected error: ${err?.message ?? String(e)}\n`);
  if (process.env.REVLOOP_DEBUG) stderr.write(`${err?.stack ?? ''}\n`);
  else stderr.write('(set REVLOOP_DEBUG=1 for a stack trace)\n');
  return 1;
}
