// Where revloop finds the Punkt parameters when the caller does not pass them: an explicit path
// (`--punkt PATH`), `$REVLOOP_PUNKT`, a copy fetched by `revloop data fetch punkt` under the user data
// dir, then the shared reference data (`../shared/data/punkt/english.json`).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DataMissingError, namingOption } from '../errors.ts';
import { sharedDataFile } from '../util/shared-data.ts';
import { loadPunktParams, type PunktParams } from './punkt-params.ts';

/** What the resolution chain looks at (defaults: this process's environment and ../shared/data). */
export interface PunktEnvironment {
  env?: NodeJS.ProcessEnv;
  /** The shared english.json, or null when absent. */
  sharedFile?: string | null;
}

/** revloop's per-user data folder: `$REVLOOP_DATA_DIR`, else `~/.revloop/data`. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REVLOOP_DATA_DIR || join(homedir(), '.revloop', 'data');
}

/** Where `revloop data fetch punkt` puts NLTK's English punkt_tab folder by default. */
export function fetchedPunktDir(dataDir = userDataDir()): string {
  return join(dataDir, 'punkt_tab', 'english');
}

export interface PunktCandidate {
  /** How the location was chosen. */
  origin: 'explicit' | 'REVLOOP_PUNKT' | 'fetched' | 'shared';
  path: string;
}

/** The resolution chain, in order, with the locations that exist. */
export function punktCandidates(explicit?: string | null, where: PunktEnvironment = {}): PunktCandidate[] {
  if (explicit) return [{ origin: 'explicit', path: explicit }];
  const env = where.env ?? process.env;
  const out: PunktCandidate[] = [];
  if (env.REVLOOP_PUNKT) out.push({ origin: 'REVLOOP_PUNKT', path: env.REVLOOP_PUNKT });
  const fetched = fetchedPunktDir(userDataDir(env));
  if (existsSync(join(fetched, 'abbrev_types.txt'))) out.push({ origin: 'fetched', path: fetched });
  const shared = where.sharedFile !== undefined ? where.sharedFile : sharedDataFile('punkt', 'english.json');
  if (shared) out.push({ origin: 'shared', path: shared });
  return out;
}

/** Why no Punkt parameters were found and what to do, naming the option that gives them (`punkt`; see namingOption). */
function noPunktMessage(option: string): string {
  return (
    'no Punkt sentence-splitter parameters found. Run `revloop data fetch punkt` (downloads NLTK punkt_tab), ' +
    `or name them with ${option} (an english.json file or a punkt_tab/english folder), or set REVLOOP_PUNKT.`
  );
}

export const NO_PUNKT_MESSAGE = noPunktMessage('punkt');

/** Resolves and loads Punkt parameters; `explicit` wins and is never silently replaced. */
export function resolvePunkt(explicit?: string | null, where: PunktEnvironment = {}): PunktParams {
  const first = punktCandidates(explicit, where)[0];
  if (!first) throw namingOption('punkt', (n) => new DataMissingError(noPunktMessage(n), { what: 'punkt' }));
  if (!existsSync(first.path)) {
    const notFound = (via: string) =>
      new DataMissingError(
        `Punkt parameters not found at ${first.path} (from ${via}). Give an existing english.json file or ` +
          'punkt_tab/english folder, or run `revloop data fetch punkt`.',
        { what: 'punkt' },
      );
    throw first.origin === 'explicit' ? namingOption('punkt', notFound) : notFound('$REVLOOP_PUNKT');
  }
  return loadPunktParams(first.path);
}

let cached: PunktParams | null = null;

/** The default English Punkt parameters, resolved once per process (see punktCandidates). */
export function getDefaultPunkt(): PunktParams {
  if (!cached) cached = resolvePunkt();
  return cached;
}

/** Forgets the cached default (tests; after `revloop data fetch punkt`). */
export function resetDefaultPunkt(): void {
  cached = null;
}
