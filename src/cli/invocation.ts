// How the user started revloop, so that every printed "next:" line and resume command can be
// pasted back as is: `npx revloop …` when npx ran it (a checkout), `revloop …` otherwise.
export function invokedAs(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REVLOOP_INVOKED_AS) return env.REVLOOP_INVOKED_AS;
  return env.npm_command === 'exec' ? 'npx revloop' : 'revloop';
}

/** A word as a POSIX shell reads it back: quoted unless it holds only characters that need none. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A revloop command line, quoted, as the user would type it. */
export function commandLine(args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return [invokedAs(env), ...args.map(shellQuote)].join(' ');
}
