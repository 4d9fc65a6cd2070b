// The one place where errors become exit codes and stderr lines. Library errors carry a stable
// code (src/core/errors.ts); people see their message, with the options it names worded as flags
// (option-flags.ts), never a stack trace, unless REVLOOP_DEBUG is set for an unexpected error.
import { CommanderError } from 'commander';
import { RevloopError, messageNaming, type ErrorCode } from '../core/errors.ts';
import { databaseTrouble } from '../store/connection-loss.ts';
import { invokedAs } from './invocation.ts';
import { flagFor } from './option-flags.ts';
import { forPeople } from './stdio.ts';
import { maskUrlCredentials } from '../core/util/secrets.ts';

/**
 * Exit codes: 2 for anything the user can fix (docs/running.md); 1 for provider failures, bugs, a
 * store that disagrees with its events (as a failed audit), a model's broken numerics and a lost
 * worker lease (faults, not mistakes: before they were RevloopErrors they ended as unexpected
 * errors, exit 1).
 */
const EXIT_CODES: Partial<Record<ErrorCode, number>> = { E_PROVIDER: 1, E_INTEGRITY: 1, E_NUMERIC: 1, E_LEASE_LOST: 1 };

/** The exit code of a usage mistake commander caught (unknown command or option, missing value). */
export const USAGE_EXIT = 2;

const isClosedPipe = (e: unknown): boolean => (e as NodeJS.ErrnoException | null)?.code === 'EPIPE';

/**
 * Prints an error for people and returns the exit code. An error that names a library option
 * (`runId`) is worded with the flag the user typed on `argv` (`--run`; option-flags.ts).
 */
export function reportError(
  e: unknown,
  stderr: { write(s: string): unknown } = process.stderr,
  argv: readonly string[] = process.argv,
): number {
  // Help and --version end in a CommanderError with exit code 0; every other one is a usage mistake.
  if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : USAGE_EXIT;
  if (isClosedPipe(e)) return 0;
  if (RevloopError.isInstance(e)) {
    // Commands the library suggests (`revloop runs --store …`) are printed as the user invoked revloop.
    // No message prints a URL's password (a model URL, a store URL), whoever wrote it.
    const worded = messageNaming(e, (option) => flagFor(option, argv) ?? option);
    const message = maskUrlCredentials(forPeople(worded)).replace(/`revloop /g, `\`${invokedAs()} `);
    stderr.write(`revloop: ${message}\n`);
    return EXIT_CODES[e.code] ?? 2;
  }
  // The database failing under a command (a lost connection, a server out of connections) is no bug.
  const trouble = databaseTrouble(e);
  if (trouble) {
    stderr.write(`revloop: ${trouble}\n`);
    return 2;
  }
  const err = e as Error;
  stderr.write(`revloop: unexpected error: ${maskUrlCredentials(err?.message ?? String(e))}\n`);
  if (process.env.REVLOOP_DEBUG) stderr.write(`${err?.stack ?? ''}\n`);
  else stderr.write('(set REVLOOP_DEBUG=1 for a stack trace)\n');
  return 1;
}

/**
 * Whoever reads revloop's output may stop early (`revloop … | head -1`): a closed standard output
 * or error (EPIPE) then ends the command quietly with exit 0, whatever it was doing (a run's store
 * is consistent at every moment). Any other write error on them is reported once, exit 1.
 */
export function exitQuietlyOnClosedPipe(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (isClosedPipe(e)) process.exit(0);
      if (stream !== process.stderr) process.stderr.write(`revloop: cannot write the output: ${e.message}\n`);
      process.exit(1);
    });
  }
}
