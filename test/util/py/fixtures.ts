// Loads the CPython reference values written by fixtures/gen_fixtures.py (committed JSON).
import { readFileSync } from 'node:fs';

export function loadFixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;
}
