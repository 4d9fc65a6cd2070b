// What the worker tests share: a fresh PostgreSQL schema, a SQLite store beside it (the
// single-process reference), and revloop's own exact-length demo cases in a file; all removed after.
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { writeCaseSet } from '../../src/core/cases/write.ts';
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
