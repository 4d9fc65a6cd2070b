// Shared test helpers: locating the reference data and skipping visibly when it is absent.
import { sharedDataFile } from '../src/util/shared-data.ts';

/** Path of a shared data file, or a skip reason naming what is missing. */
export function requireShared(...parts: string[]): { path: string | null; skip: string | false } {
  const path = sharedDataFile(...parts);
  return path
    ? { path, skip: false }
    : { path: null, skip: `reference data ${parts.join('/')} not found at ../shared/data or $REVLOOP_SHARED/data` };
}
