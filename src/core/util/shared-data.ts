// Locates the reference data (`../shared/data` next to the project, or `$REVLOOP_SHARED/data`).
// The project never copies these files; tests and commands read them from here at run time.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The shared data folder, or null when neither location exists. */
function sharedDataDir(): string | null {
  const candidates = [
    process.env.REVLOOP_SHARED ? join(process.env.REVLOOP_SHARED, 'data') : null,
    join(PROJECT_ROOT, '..', 'shared', 'data'),
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  return null;
}

/** Path of one shared data file, or null when the shared data is absent. */
export function sharedDataFile(...parts: string[]): string | null {
  const dir = sharedDataDir();
  if (!dir) return null;
  const p = join(dir, ...parts);
  return existsSync(p) ? p : null;
}
