// Loading user modules that add families (the `plugins` of a run, an audit…; `--plugin FILE` on the commands that take a family).
// A plugin is any ES module (.js/.mjs, or .ts/.mts through tsx) that calls registerFamily() when
// imported, or simply exports Family objects. Exported families that are not registered yet are
// registered here: a .ts file outside an ESM package cannot be imported normally (tsx would load it
// as CommonJS), so it is loaded through tsx's own ESM import, which gives it a separate copy of the
// registry; its registerFamily() call would be lost there, its exports are not.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError, NotFoundError, UsageError, namingOption } from '../errors.ts';
import { familyNames, hasFamily, registerFamily } from './registry.ts';
import type { Family } from './types.ts';

function looksLikeFamily(x: unknown): x is Family {
  return !!x && typeof x === 'object' && typeof (x as Family).name === 'string' && typeof (x as Family).verify === 'function';
}

async function importPlugin(abs: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(abs).href;
  try {
    return await import(url);
  } catch (e) {
    if (!/\.ts$/.test(abs)) throw e;
    const { tsImport } = await import('tsx/esm/api');
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
}

/** Imports each plugin; returns the names of the families that appeared. Errors name the option `plugins` (namingOption). */
export async function loadFamilyPlugins(paths: readonly string[] = []): Promise<string[]> {
  const added: string[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    if (!existsSync(abs))
      throw namingOption('plugins', (name) => new NotFoundError(`${name}: no such file: ${p}`, { kind: 'file', target: p }));
    const before = new Set(familyNames());
    let mod: Record<string, unknown>;
    try {
      mod = await importPlugin(abs);
    } catch (e) {
      if (e instanceof UserError) throw e;
      throw namingOption(
        'plugins',
        (name) => new UsageError(`${name} ${p}: the module failed to load: ${(e as Error).message}`, { option: name }),
      );
    }
    const exported = new Set<unknown>([...Object.values(mod), ...Object.values((mod.default as Record<string, unknown>) ?? {})]);
    if (looksLikeFamily(mod.default)) exported.add(mod.default);
    for (const x of exported) if (looksLikeFamily(x) && !hasFamily(x.name)) registerFamily(x);
    const now = familyNames().filter((n) => !before.has(n));
    if (now.length === 0) {
      throw namingOption(
        'plugins',
        (name) =>
          new UsageError(`${name} ${p}: the module registered no new family (call registerFamily(family) or export the Family object)`, {
            option: name,
          }),
      );
    }
    added.push(...now);
  }
  return added;
}
