// The example family of docs/verify.md, extracted from the document into a temporary module (with its
// `'revloop/core/verify'` import pointing at this repository), so the documented code is the tested code.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getDefaultPunkt } from '../../src/core/text/index.ts';
import { tempDir } from '../tmp.ts';

export function writeDocExample(ext: '.ts' | '.mts'): string {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/verify.md'), 'utf8');
  const m = /<!-- example: max-chars[^>]*-->\s*```ts\n([\s\S]*?)```/.exec(doc);
  assert.ok(m, 'docs/verify.md has the max-chars example');
  const indexUrl = pathToFileURL(resolve(import.meta.dirname, '../../src/core/verify/index.ts')).href;
  const code = m[1].replace("'revloop/core/verify'", `'${indexUrl}'`);
  const dir = tempDir('revloop-family-');
  const file = join(dir, `max-chars${ext}`);
  writeFileSync(file, code);
  return file;
}

/** false when Punkt parameters resolve, else a visible skip reason. */
export function punktSkip(): string | false {
  try {
    getDefaultPunkt();
    return false;
  } catch (e) {
    return `Punkt parameters not available: ${(e as Error).message}`;
  }
}
