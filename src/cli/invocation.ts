// How to write a revloop command line the user can paste back: every printed "next:" line, resume
// command and hint in a message starts the way revloop can be started from the user's shell, and is
// quoted and laid out (one command per line, long ones continued with a backslash) to work as it is.
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { outputWidth } from './terminal.ts';

let onPath: boolean | undefined;

/** Whether a `revloop` executable is on $PATH (looked up once). */
function revloopOnPath(env: NodeJS.ProcessEnv): boolean {
  if (env !== process.env) return lookUp(env);
  return (onPath ??= lookUp(env));
}

function lookUp(env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'revloop'), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/**
 * How the user can start revloop again: $REVLOOP_INVOKED_AS when set; `npx revloop` when npx ran it
 * (`npm exec --prefix DIR revloop --` when it ran from outside the package);
 * `revloop` when a `revloop` is on $PATH; otherwise as this process was started (`node
 * bin/revloop.mjs`, the script's path relative to the current folder when it is inside it).
 */
export function invokedAs(env: NodeJS.ProcessEnv = process.env, script: string | undefined = process.argv[1]): string {
  if (env.REVLOOP_INVOKED_AS) return env.REVLOOP_INVOKED_AS;
  if (env.npm_command === 'exec') {
    // `npx revloop` finds this revloop only inside its package; `npm exec --prefix DIR revloop -- …` from elsewhere.
    const prefix = env.npm_config_local_prefix;
    const from = relative(prefix ?? '', env.INIT_CWD ?? process.cwd());
    if (!prefix || (!from.startsWith('..') && !isAbsolute(from))) return 'npx revloop';
    return `npm exec --prefix ${shellQuote(prefix)} revloop --`;
  }
  if (revloopOnPath(env) || !script) return 'revloop';
  const rel = relative(process.cwd(), script);
  const shown = !rel.startsWith('..') && !isAbsolute(rel) ? rel : script;
  return `node ${shellQuote(shown)}`;
}

/** A word as a POSIX shell reads it back: quoted unless it holds only characters that need none. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A revloop command line, quoted, as the user would type it. */
export function commandLine(args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return [invokedAs(env), ...args.map(shellQuote)].join(' ');
}

/**
 * A command line laid out to paste: on one line when it fits `width` after `indent` spaces, else
 * continued on indented lines, each but the last ending in ` \` (words are never broken).
 */
export function layOutCommand(line: string, indent = 2, width: number | undefined = outputWidth()): string {
  const pad = ' '.repeat(indent);
  if (width === undefined || indent + Array.from(line).length <= width) return pad + line;
  const words = line.match(/'[^']*'(?:\\''[^']*')*|\S+/g) ?? [line];
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    const lead = lines.length ? indent + 4 : indent;
    if (current && lead + Array.from(`${current} ${word}`).length + 2 > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  lines.push(current);
  return lines.map((l, i) => `${' '.repeat(i ? indent + 4 : indent)}${l}`).join(' \\\n');
}

/**
 * Commands for the user to run next, one to a line under a heading (`next:`), each pasteable as it
 * is. A string item is a line of words for people (what the next commands are for), never pasted.
 */
export function nextCommands(items: ReadonlyArray<readonly string[] | string>, heading = 'next:'): string {
  const lines = [heading];
  for (const item of items) lines.push(typeof item === 'string' ? item : layOutCommand(commandLine(item)));
  return lines.join('\n') + '\n';
}
