// Temporary folders for tests: created under os.tmpdir() and removed by an `after` hook — after
// the test that made it (or after the file, when made at the top level), whether it passed or
// failed. The suite fails a test file that leaves anything behind (test/setup/tmp-guard.mjs), so
// every test makes its folders here.
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new empty folder `<prefix>XXXXXX` in the temporary folder, removed after the current test. */
export function tempDir(prefix = 'revloop-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}
