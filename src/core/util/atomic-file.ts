// Writing output files without ever leaving a partial one: the data goes to a temporary file in the
// target's folder (same file system), which is renamed over the target only when it is complete.
// Every command that writes a file (export, verify -o, report, probe items, case sets) goes
// through here, so all of them refuse a missing folder with the same message for people.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors.ts';

/** A fresh temporary path next to `path` (hidden, unique per process and call). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Throws a UserError unless the folder `path` would be written into exists. */
export function requireOutputFolder(path: string): void {
  const dir = dirname(path);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // missing: reported below
  }
  if (!isDir) throw new UserError(`cannot write ${path}: folder ${dir} does not exist (create it first)`);
}

/** Writes `path` atomically (optionally fsynced before the rename). */
export function writeFileAtomicSync(path: string, data: string, options: { fsync?: boolean } = {}): void {
  requireOutputFolder(path);
  const tmp = tempPathFor(path);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, 'wx');
    writeSync(fd, data, null, 'utf8');
    if (options.fsync) fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== null) closeSync(fd);
    rmSync(tmp, { force: true });
    throw new UserError(`cannot write ${path}: ${(e as Error).message}`);
  }
}

/** Writes `path` atomically: either the complete file appears or nothing does. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  requireOutputFolder(path);
  const tmp = tempPathFor(path);
  try {
    await writeFile(tmp, data, { encoding: 'utf8', flag: 'wx' });
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw new UserError(`cannot write ${path}: ${(e as Error).message}`);
  }
}
