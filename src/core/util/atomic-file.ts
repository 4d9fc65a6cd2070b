// Writing output files without ever leaving a partial one: the data goes to a temporary file in the
// target's folder (same file system), which is renamed over the target only when it is complete.
// Every command that writes a file (export, verify -o, report, probe items, case sets) goes
// through here, so all of them refuse a missing folder with the same message for people.
//
// Where a rename would replace the wrong thing, outputTarget says so: a device, pipe or socket
// (/dev/null, a named pipe) and any name in /dev itself or under /proc (/dev/stdout, /dev/fd/3) are
// written in place (/dev/shm is an ordinary file system and keeps atomic writes) (run as root, renaming over `-o /dev/null` turned /dev/null into a regular file,
// and over `-o /dev/stdout` the /dev/stdout link); a symbolic link to a regular file has its target
// replaced, so the link stays.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UserError, NotFoundError } from '../errors.ts';

/**
 * Temporary files being written now. A SIGINT or SIGTERM that would end the process (no command
 * handles it) first removes them: Node's default action killed the process mid-write and left a
 * hidden temp file next to the target (`report` under SIGTERM, issue 36). Where a command handles
 * the signal itself, the temp files go when the process exits or the write ends.
 */
const live = new Set<string>();

function removeLive(): void {
  for (const tmp of live) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // best effort: the process is ending
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else decides what this signal does; the exit handler cleans up if it ends the process.
  if (process.listenerCount(signal) > 1) return;
  listening = false;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('exit', removeLive);
  removeLive();
  process.kill(process.pid, signal); // the default action, now that nothing listens
}

let listening = false;

/** Marks a temporary file as being written: a signal that ends the process removes it first. */
export function trackTempFile(tmp: string): void {
  if (!listening) {
    listening = true;
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('exit', removeLive);
  }
  live.add(tmp);
}

/**
 * The temporary file was renamed or removed. The listeners stay until the event loop has had its
 * turn: a signal caught during a synchronous write is delivered then, and still ends the process.
 */
export function releaseTempFile(tmp: string): void {
  live.delete(tmp);
  if (!live.size)
    setImmediate(() => {
      if (live.size || !listening) return;
      listening = false;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('exit', removeLive);
    });
}

/** A fresh temporary path next to `path` (hidden, unique per process and call). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Where output for `path` goes: the file to replace atomically, or (`inPlace`) a target written directly. */
export function outputTarget(path: string): { path: string; inPlace: boolean } {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    // Nothing there yet (or a descriptor's pipe, which has no path): a new file, unless the folder is /dev or in /proc.
    return { path, inPlace: statSafe(path) !== null || isVirtualFolder(dirname(path)) };
  }
  const st = statSafe(real);
  if (st?.isDirectory()) return { path, inPlace: false }; // the rename fails with a message naming it
  if (!st?.isFile() || isVirtualFolder(dirname(path)) || isVirtualFolder(dirname(real))) return { path, inPlace: true };
  return { path: real, inPlace: false };
}

function statSafe(path: string): ReturnType<typeof statSync> | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function isVirtualFolder(dir: string): boolean {
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // a missing folder: requireOutputFolder reports it
  }
  // /dev itself (devtmpfs: device nodes and links such as /dev/stdout) and /proc; not /dev/shm.
  return real === '/dev' || /^\/proc(\/|$)/.test(real);
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
  if (!isDir)
    throw new NotFoundError(`cannot write ${path}: folder ${dir} does not exist (create it first)`, { kind: 'folder', target: dir });
}

/** Writes `target` atomically (optionally fsynced before the rename). */
export function writeFileAtomicSync(target: string, data: string, options: { fsync?: boolean } = {}): void {
  requireOutputFolder(target);
  const { path, inPlace } = outputTarget(target);
  if (inPlace) return writeInPlace(path, data);
  const tmp = tempPathFor(path);
  let fd: number | null = null;
  trackTempFile(tmp);
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
    throw new UserError(`cannot write ${target}: ${(e as Error).message}`);
  } finally {
    releaseTempFile(tmp);
  }
}

/** Writes `target` atomically: either the complete file appears or nothing does. */
export async function writeFileAtomic(target: string, data: string): Promise<void> {
  requireOutputFolder(target);
  const { path, inPlace } = outputTarget(target);
  if (inPlace) return writeInPlace(path, data);
  const tmp = tempPathFor(path);
  trackTempFile(tmp);
  try {
    await writeFile(tmp, data, { encoding: 'utf8', flag: 'wx' });
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw new UserError(`cannot write ${target}: ${(e as Error).message}`);
  } finally {
    releaseTempFile(tmp);
  }
}

/** Writes a target outputTarget says is written in place. */
function writeInPlace(path: string, data: string): void {
  try {
    writeFileSync(path, data, 'utf8');
  } catch (e) {
    throw new UserError(`cannot write ${path}: ${(e as Error).message}`);
  }
}
