// Shared test helpers: locating the reference data and skipping visibly when it is absent.
import { getDefaultPunkt } from '../src/core/text/index.ts';
import { sharedDataFile } from '../src/core/util/shared-data.ts';

/** Path of a shared data file, or a skip reason naming what is missing. */
export function requireShared(...parts: string[]): { path: string | null; skip: string | false } {
  const path = sharedDataFile(...parts);
  return path
    ? { path, skip: false }
    : { path: null, skip: `reference data ${parts.join('/')} not found at ../shared/data or $REVLOOP_SHARED/data` };
}

/**
 * Whether NLTK's Punkt parameters can be found (the structured families c05…c12 need them); the
 * skip reason if not. They come from ../shared/data, $REVLOOP_PUNKT or `revloop data fetch punkt`.
 */
export function requirePunkt(): { skip: string | false } {
  try {
    getDefaultPunkt();
    return { skip: false };
  } catch {
    return {
      skip: 'NLTK Punkt parameters not found (../shared/data/punkt, $REVLOOP_PUNKT or `revloop data fetch punkt`); the structured families need them',
    };
  }
}
