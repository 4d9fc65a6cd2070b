// `-` on the command line: standard input for every option or argument that names a file to read,
// standard output for every `-o`/`--out`/`--output` (docs/running.md). Stores and folders are not
// streams and take no `-`.
import { fstatSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../core/errors.ts';

export const STDIO = '-';

/** Whether a file argument means standard input or output. */
export const isStdio = (arg: string | undefined): boolean => arg === STDIO;

/**
 * Whether an output argument means standard output: `-`, or a path that is this process's standard
 * output (/dev/stdout, /dev/fd/1, or the file the shell redirected it to). Such output is written
 * through standard output, and notes go to standard error, as for `-`.
 */
export function isStdout(arg: string | undefined): boolean {
  if (arg === undefined) return false;
  if (isStdio(arg)) return true;
  try {
    const target = statSync(arg);
    const stdout = fstatSync(1);
    return target.dev === stdout.dev && target.ino === stdout.ino;
  } catch {
    return false;
  }
}

/** Temporary copies of standard input, shown to people as "standard input" (see forPeople). */
const copies = new Map<string, string>();
let stdinTaken: string | null = null;

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The text of an input: the file's, or standard input's for `-`. `flag` names the option in the
 * message when standard input is a terminal (nothing piped in) or was already read by another one.
 */
export async function readInputText(arg: string, flag: string, read: (path: string) => Promise<string>): Promise<string> {
  if (!isStdio(arg)) return read(arg);
  return (await takeStdin(flag)).toString('utf8');
}

async function takeStdin(flag: string): Promise<Buffer> {
  if (stdinTaken !== null)
    throw new UsageError(`${flag} -: standard input is already read by ${stdinTaken}; give a file`, { option: flag });
  if (process.stdin.isTTY)
    throw new UsageError(`${flag} -: nothing on standard input (pipe the data in, or give a file)`, { option: flag });
  stdinTaken = flag;
  return readStdin();
}

/**
 * A path to read an input from: the file itself, or for `-` a temporary copy of standard input
 * (for readers that need a file: they hash it, read it twice, or reopen it), removed at exit.
 * `name` is the copy's file name, which default run ids and the like are derived from.
 */
export async function inputPath(arg: string, flag: string, name = 'stdin.jsonl'): Promise<string> {
  if (!isStdio(arg)) return arg;
  const data = await takeStdin(flag);
  const dir = mkdtempSync(join(tmpdir(), 'revloop-stdin-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, data);
  copies.set(path, 'standard input');
  return path;
}

/** A message with any temporary copy of standard input named as such, not by its path. */
export function forPeople(text: string): string {
  let out = text;
  for (const [path, label] of copies) out = out.split(path).join(label);
  return out;
}
