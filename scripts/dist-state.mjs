// The launcher's quick question (bin/revloop.mjs): is dist/ the build of the sources as they are now,
// judged by the mtimes and sizes recorded when it was built? It needs node:fs and node:path only, so
// a start in a checkout pays about 400 stat calls and nothing else; when an input changed (or no
// stats were recorded), build.mjs's distState() decides by content. build.mjs owns the build and
// imports the build record's helpers from here.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
export const INFO = '.build-info.json';

/** dist/'s build record ({sources, typescript, inputs}), or null. */
export function buildInfo() {
  try {
    return JSON.parse(readFileSync(join(DIST, INFO), 'utf8'));
  } catch {
    return null;
  }
}

/** True when every recorded input still has its recorded mtime (and size): about 400 stat calls, no reads. */
export function unchangedSince(stats) {
  if (!stats || typeof stats !== 'object') return false;
  for (const [path, want] of Object.entries(stats)) {
    const st = statSync(join(ROOT, path), { throwIfNoEntry: false });
    if (!st) return false;
    if (path.endsWith('/') ? st.mtimeMs !== want : st.mtimeMs !== want[0] || st.size !== want[1]) return false;
  }
  return true;
}

/** 'current' when dist/ holds a build and no recorded input changed since; null when build.mjs's distState() must look closer. */
export function currentByStats() {
  if (statSync(join(DIST, 'cli', 'main.js'), { throwIfNoEntry: false }) === undefined) return null;
  const info = buildInfo();
  return info && typeof info.sources === 'string' && unchangedSince(info.inputs) ? 'current' : null;
}
