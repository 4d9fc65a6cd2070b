// Writing a file without ever leaving a partial one: a temporary file in the same folder, renamed.
import { existsSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../util/errors.ts';

export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`cannot write ${path}: folder ${dir} does not exist`);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text, 'utf8');
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw new UserError(`cannot write ${path}: ${(e as Error).message}`);
  }
}
