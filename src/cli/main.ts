// The revloop command line: a thin shell over the library. Each command lives in its own module
// under ./commands and registers itself; heavy dependencies are imported inside actions.
import { Command } from 'commander';
import { UsageError } from '../core/errors.ts';
import { REVLOOP_VERSION } from '../core/version.ts';
import { exitQuietlyOnClosedPipe, reportError } from './errors.ts';
import { COMMANDS } from './commands/index.ts';
import { configureHelpLayout } from './help.ts';
import { guardTerminalOutput } from './output.ts';
import { wideOption } from './options.ts';
import { setWide } from './terminal.ts';

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
 * the command named `only` (a command line naming one command loads only its module:
 * docs/performance.md#start-up).
 */
export async function buildProgram(only?: string): Promise<Command> {
  const program = configureHelpLayout(
    new Command('revloop')
      .description('Closed-loop revision by language models: draft, verify exactly, revise, within a fixed budget.')
      .version(REVLOOP_VERSION)
      .showHelpAfterError('(run with --help for usage)')
      .exitOverride(),
  );
  const wanted = only === undefined ? COMMANDS : COMMANDS.filter(([name]) => name === only);
  for (const register of await Promise.all(wanted.map(([, load]) => load()))) register(program);
  addWide(program);
  return program;
}

/** `--wide` on every command that does not declare its own: tables, help and progress lines at full width. */
function addWide(cmd: Command): void {
  for (const sub of cmd.commands) {
    if (!sub.options.some((o) => o.long === '--wide')) sub.addOption(wideOption());
    addWide(sub);
  }
}

/** `revloop help NAME` for a NAME that is no command: said, with the closest command, instead of the whole help. */
function checkHelpTopic(argv: readonly string[]): void {
  const [first, topic] = argv.slice(2);
  if (first !== 'help' || topic === undefined || topic.startsWith('-') || COMMANDS.some(([name]) => name === topic)) return;
  const near = COMMANDS.map(([name]) => name).find((name) => editDistance(name, topic) <= Math.max(1, Math.floor(name.length / 3)));
  throw new UsageError(`help: unknown command '${topic}'${near ? `; did you mean ${near}?` : ''} (\`revloop --help\` lists the commands)`);
}

/** Edit distance counting a swap of two neighbours as one edit (for the suggestion above). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
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
  guardTerminalOutput();
  try {
    setWide(argv.slice(2).includes('--wide'));
    checkHelpTopic(argv);
    const named = namedCommand(argv);
    // The registry is imported only then: with exact-length it brings a dozen modules help does not need.
    const families = needsAllFamilies(argv, named) ? import('../core/verify/registry.ts').then((r) => r.loadFamilies()) : null;
    const [program] = await Promise.all([buildProgram(named), families]);
    await program.parseAsync(argv);
  } catch (e) {
    process.exitCode = reportError(e);
  }
}
