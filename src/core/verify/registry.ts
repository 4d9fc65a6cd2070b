// The family registry: the built-in families plus any the user registers. Everything that
// takes a family name (case readers, `revloop verify`, the run engine) resolves it here.
//
// Built-ins other than exact-length are loaded on demand (`loadFamilies`): their modules (COLLIE's
// and the structured verifiers, IFEval's instructions and language detector, NLTK's tokenisers)
// are a fifth of what a `revloop run` of the paper's exact-length cases would otherwise import
// (docs/performance.md#start-up). The library's entry points import
// builtin-families.ts, which registers them all; every CLI command but `run` loads them all before
// it starts; a run loads its case file's families before it validates them. `getFamily` stays
// synchronous, so a built-in that was not loaded is a programming error, which says so.
import { UserError, NotFoundError } from '../errors.ts';
import { COLLIE_CODES } from './collie/types.ts';
import { exactLengthFamily } from './exact-length.ts';
import { BUILTIN_FAMILIES, type Family, type VerifierState } from './types.ts';

/** Loads the built-in families other than exact-length, by module (each module once). */
const LOADERS: Record<'structured' | 'collie' | 'ifeval', () => Promise<Family<any>[]>> = {
  structured: async () => {
    const m = await import('./structured/families.ts');
    return [m.c05Family, m.c07Family, m.c09Family, m.c10Family, m.c12Family];
  },
  collie: async () => [...(await import('./collie/families.ts')).COLLIE_FAMILIES],
  ifeval: async () => [(await import('./ifeval/family.ts')).ifevalFamily],
};
const BUILTIN_NAMES = new Set<string>(BUILTIN_FAMILIES);

function loaderOf(name: string): keyof typeof LOADERS | null {
  if (!BUILTIN_NAMES.has(name) || name === exactLengthFamily.name) return null;
  if (name === 'ifeval') return 'ifeval';
  // The rest are the paper's structured families or COLLIE's other structures.
  return (COLLIE_CODES as readonly string[]).includes(name) ? 'collie' : 'structured';
}

/** Built-ins loaded so far (exact-length at once), then user families in registration order. */
const families = new Map<string, Family<any>>([[exactLengthFamily.name, exactLengthFamily]]);
const loading = new Map<keyof typeof LOADERS, Promise<void>>();

/**
 * Loads the named built-in families (every built-in without `names`) so that `getFamily` can return
 * them; names that are not built-ins are ignored (user families are registered, not loaded). The
 * registry's order stays the built-ins' order whatever was loaded first.
 */
export async function loadFamilies(names?: Iterable<string>): Promise<void> {
  const wanted = new Set<keyof typeof LOADERS>();
  for (const name of names ?? BUILTIN_FAMILIES) {
    const loader = loaderOf(name);
    if (loader && !families.has(name)) wanted.add(loader);
  }
  await Promise.all(
    [...wanted].map((key) => {
      let p = loading.get(key);
      if (!p) {
        p = LOADERS[key]().then(addBuiltinFamilies);
        loading.set(key, p);
      }
      return p;
    }),
  );
}

/**
 * Adds loaded built-in families (loadFamilies, builtin-families.ts), keeping the built-ins first in
 * BUILTIN_FAMILIES order and user families after them as registered. Not for user families.
 */
export function addBuiltinFamilies(loaded: readonly Family<any>[]): void {
  for (const f of loaded) {
    if (!BUILTIN_NAMES.has(f.name)) throw new Error(`'${f.name}' is not a built-in family`);
    families.set(f.name, f);
  }
  const entries = [...families];
  families.clear();
  for (const name of BUILTIN_FAMILIES) {
    const f = entries.find(([n]) => n === name)?.[1];
    if (f) families.set(name, f);
  }
  for (const [name, f] of entries) if (!BUILTIN_NAMES.has(name)) families.set(name, f);
}

const NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;
const REQUIRED_METHODS = ['verify', 'energy', 'feedback', 'initialPrompt', 'maxNewTokens', 'validateCase'] as const;

/** Options of `registerFamily`. */
export interface RegisterOptions {
  /** Replace an earlier user registration of the same name (built-ins can never be replaced). */
  replace?: boolean;
}

/** Adds a family. Its name must be lower-case (`[a-z0-9][a-z0-9._-]*`) and not a built-in. */
export function registerFamily<S extends VerifierState>(family: Family<S>, options: RegisterOptions = {}): void {
  if (!family || typeof family.name !== 'string' || !NAME_RE.test(family.name)) {
    throw new UserError(`cannot register family ${JSON.stringify(family?.name)}: names are lower-case letters, digits, '.', '_' or '-'`);
  }
  for (const m of REQUIRED_METHODS) {
    if (typeof (family as any)[m] !== 'function') throw new UserError(`cannot register family '${family.name}': it has no ${m}() method`);
  }
  if (typeof family.version !== 'string' || family.version === '') {
    throw new UserError(`cannot register family '${family.name}': it needs a version string (hashed into run plans)`);
  }
  if (BUILTIN_NAMES.has(family.name)) throw new UserError(`cannot register family '${family.name}': it is a built-in family`);
  if (families.has(family.name) && !options.replace) {
    throw new UserError(`family '${family.name}' is already registered (pass { replace: true } to replace it)`);
  }
  families.set(family.name, family);
}

/** Removes a user-registered family (tests, plugins); built-ins stay. Returns whether it existed. */
export function unregisterFamily(name: string): boolean {
  if (BUILTIN_NAMES.has(name)) throw new UserError(`cannot unregister built-in family '${name}'`);
  return families.delete(name);
}

/** The family of that name; a UserError listing the known families when there is none. */
export function getFamily(name: string): Family {
  const f = families.get(name);
  if (f) return f;
  if (loaderOf(name)) throw new Error(`built-in family '${name}' is not loaded: await loadFamilies(['${name}']) before using it`);
  throw new NotFoundError(`unknown family '${name}'; known families: ${familyNames().join(', ')}`, { kind: 'family', target: name });
}

/** Whether a family of this name exists (a built-in, loaded or not, or a user family). */
export function hasFamily(name: string): boolean {
  return BUILTIN_NAMES.has(name) || families.has(name);
}

/**
 * Every family: the built-ins first (exact-length, c05, c07, c09, c10, c12, the other COLLIE
 * structures, ifeval), then user families in registration order. The built-ins must have been
 * loaded (`loadFamilies()`), as the library's entry points and the CLI do.
 */
export function listFamilies(): Family[] {
  const missing = BUILTIN_FAMILIES.filter((n) => !families.has(n));
  if (missing.length) throw new Error(`built-in families not loaded (${missing.join(', ')}): await loadFamilies() before listing them`);
  return [...families.values()];
}

/** The names of every family, loaded or not: built-ins first, then user families in registration order. */
export function familyNames(): string[] {
  return [...BUILTIN_FAMILIES, ...[...families.keys()].filter((n) => !BUILTIN_NAMES.has(n))];
}
