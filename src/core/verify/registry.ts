// The family registry: the built-in families plus any the user registers. Everything that
// takes a family name (case readers, `revloop verify`, the run engine) resolves it here.
import { UserError, NotFoundError } from '../errors.ts';
import { COLLIE_FAMILIES } from './collie/families.ts';
import { exactLengthFamily } from './exact-length.ts';
import { ifevalFamily } from './ifeval/family.ts';
import { c05Family, c07Family, c09Family, c10Family, c12Family } from './structured/families.ts';
import type { Family, VerifierState } from './types.ts';

const BUILTINS: Family<any>[] = [
  exactLengthFamily,
  c05Family,
  c07Family,
  c09Family,
  c10Family,
  c12Family,
  ...COLLIE_FAMILIES,
  ifevalFamily,
];
const families = new Map<string, Family<any>>(BUILTINS.map((f) => [f.name, f]));

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
  if (BUILTINS.some((f) => f.name === family.name)) throw new UserError(`cannot register family '${family.name}': it is a built-in family`);
  if (families.has(family.name) && !options.replace) {
    throw new UserError(`family '${family.name}' is already registered (pass { replace: true } to replace it)`);
  }
  families.set(family.name, family);
}

/** Removes a user-registered family (tests, plugins); built-ins stay. Returns whether it existed. */
export function unregisterFamily(name: string): boolean {
  if (BUILTINS.some((f) => f.name === name)) throw new UserError(`cannot unregister built-in family '${name}'`);
  return families.delete(name);
}

/** The family of that name; a UserError listing the known families when there is none. */
export function getFamily(name: string): Family {
  const f = families.get(name);
  if (!f) throw new NotFoundError('family', name, `unknown family '${name}'; known families: ${familyNames().join(', ')}`);
  return f;
}

/** Whether a family of this name is registered (built-in or user). */
export function hasFamily(name: string): boolean {
  return families.has(name);
}

/** Every family: the built-ins first (exact-length, c05, c07, c09, c10, c12, the other COLLIE structures, ifeval), then user families in registration order. */
export function listFamilies(): Family[] {
  return [...families.values()];
}

/** The names of every registered family: built-ins first, then user families in registration order. */
export function familyNames(): string[] {
  return [...families.keys()];
}
