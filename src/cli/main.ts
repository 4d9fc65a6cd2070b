// The revloop command line: a thin shell over the library. Each command lives in its own module
// under ./commands and registers itself; heavy dependencies are imported inside actions.
import { Command } from 'commander';
import { exitQuietlyOnClosedPipe, reportError } from './errors.ts';
import { COMMANDS } from './commands/index.ts';

/**
 * Commands that load the built-in families they need themselves (a run: its case file's, while it
 * reads it). Every other command gets all of them before it starts (core/verify/registry.ts), except
 * when it is only asked for its help.
 */
const FAMILIES_ON_DEMAND = new Set(['run']);

function needsAllFamilies(argv: readonly string[], named: string | undefined): boolean {
  if (named === undefined || FAMILIES_ON_DEMAND.has(named)) return false; // no command, help, or a misspelt one: help
  return !argv.slice(3).some((a) => a === '--help' || a === '-h');
}

/**
 * The command line with every command registered (the docs-flags test reads it too), or with only
 * the command named `only`. Registering all twenty commands loads all their modules, about 30 ms of
 * a process's start-up, which a command line naming one of them does not need.
 */
export async function buildProgram(only?: string): Promise<Command> {
  const program = new Command('revloop')
    .description('Closed-loop revision by language models: draft, verify exactly, revise, within a fixed budget.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const wanted = only === undefined ? COMMANDS : COMMANDS.filter(([name]) => name === only);
  for (const register of await Promise.all(wanted.map(([, load]) => load()))) register(program);
  return program;
}

/**
 * The command a command line names, when it is one of ours: its first argument, unless that is an
 * option. Anything else (no command, `--help`, `help`, a misspelt name) gets every command, for the
 * full help and commander's "did you mean".
 */
export function namedCommand(argv: readonly string[]): string | undefined {
  const first = argv[2];
  return first !== undefined && COMMANDS.some(([name]) => name === first) ? first : undefined;
}

export async function main(argv: string[]): Promise<void> {
  exitQuietlyOnClosedPipe();
  try {
    const named = namedCommand(argv);
    // The registry is imported only then: with exact-length it brings a dozen modules help does not need.
    const families = needsAllFamilies(argv, named) ? import('../core/verify/registry.ts').then((r) => r.loadFamilies()) : null;
    const [program] = await Promise.all([buildProgram(named), families]);
    await program.parseAsync(argv);
  } catch (e) {
    process.exitCode = reportError(e);
  }
}
