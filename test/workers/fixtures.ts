// What the worker tests share: a fresh PostgreSQL schema, a SQLite store beside it (the
// single-process reference), and revloop's own exact-length demo cases in a file; all removed after.
// For runs a worker cannot run: a plugin family ('toy-length', exact-length under another name),
// its cases, and the plugin module a user would pass with --plugin.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { writeCaseSet } from '../../src/core/cases/write.ts';
import { getFamily, hasFamily, registerFamily, unregisterFamily } from '../../src/core/verify/registry.ts';
import type { Family } from '../../src/core/verify/types.ts';
import { testStore, type TestStore } from '../store/backends.ts';

export async function withDemoCases(body: (s: { pg: TestStore; lite: TestStore; cases: string }) => Promise<void>): Promise<void> {
  const pg = testStore('postgres');
  const lite = testStore('sqlite');
  try {
    const cases = join(lite.another(), '..', 'cases.jsonl');
    await writeCaseSet(cases, exactLengthDemoCases());
    await body({ pg, lite, cases });
  } finally {
    await pg.cleanup();
    await lite.cleanup();
  }
}

export const TOY_FAMILY = 'toy-length';

/** The toy plugin family at a version (the version is hashed into a run's plan). */
export function toyLengthFamily(version: string): Family {
  return { ...getFamily('exact-length'), name: TOY_FAMILY, version };
}

/**
 * Writes the demo cases as toy-length cases beside `cases` and returns the file's path (the family
 * is registered for the writing if it is not already, and only then).
 */
export async function writeToyLengthCases(cases: string): Promise<string> {
  const path = join(dirname(cases), 'toy-cases.jsonl');
  const registered = hasFamily(TOY_FAMILY);
  if (!registered) registerFamily(toyLengthFamily('1'));
  try {
    await writeCaseSet(
      path,
      exactLengthDemoCases().map((c) => ({ ...c, family: TOY_FAMILY })),
    );
  } finally {
    if (!registered) unregisterFamily(TOY_FAMILY);
  }
  return path;
}

/** The toy family, version 1, as a plugin module beside `cases` (for `--plugin`); returns its path. */
export function writeToyLengthPlugin(cases: string): string {
  const verify = pathToFileURL(join(import.meta.dirname, '..', '..', 'src', 'core', 'verify', 'index.ts')).href;
  const path = join(dirname(cases), `${TOY_FAMILY}.ts`);
  writeFileSync(
    path,
    `import { getFamily } from '${verify}';\nexport const toyLength = { ...getFamily('exact-length'), name: '${TOY_FAMILY}', version: '1' };\n`,
  );
  return path;
}
