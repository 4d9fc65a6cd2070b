// The revloop command line: a thin shell over the library. Each command lives in its own module
// under ./commands and registers itself; heavy dependencies are imported inside actions.
import { Command } from 'commander';
import { exitQuietlyOnClosedPipe, reportError } from './errors.ts';
import { COMMANDS } from './commands/index.ts';

/** The whole command line, every command registered (the docs-flags test reads it too). */
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
  exitQuietlyOnClosedPipe();
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    process.exitCode = reportError(e);
  }
}
