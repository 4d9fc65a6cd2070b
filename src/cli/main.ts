// The revloop command line: a thin shell over the library. Each command lives in its own module
// under ./commands and registers itself; heavy dependencies are imported inside actions.
import { Command, CommanderError } from 'commander';
import { UserError } from '../core/errors.ts';
import { COMMANDS } from './commands/index.ts';

export function buildProgram(): Command {
  const program = new Command('revloop')
    .description('Closed-loop revision by language models: draft, verify exactly, revise, within a fixed budget.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    process.exitCode = reportError(e);
  }
}

/** Prints an error for people (no stack trace unless REVLOOP_DEBUG is set); returns the exit code. */
export function reportError(e: unknown): number {
  if (e instanceof CommanderError) return e.exitCode;
  if (e instanceof UserError) {
    process.stderr.write(`revloop: ${e.message}\n`);
    return e.exitCode;
  }
  const err = e as Error;
  process.stderr.write(`revloop: unexpected error: ${err?.message ?? String(e)}\n`);
  if (process.env.REVLOOP_DEBUG) process.stderr.write(`${err?.stack ?? ''}\n`);
  else process.stderr.write('(set REVLOOP_DEBUG=1 for a stack trace)\n');
  return 1;
}
