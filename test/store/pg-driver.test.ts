// Loading node-postgres must not load Node's fetch implementation (undici): pg's check for
// Cloudflare Workers would otherwise cost every process that opens a PostgreSQL store about 25 ms
// of CPU on Node 20 (src/store/postgres/pg-driver.ts). Runs in a fresh process, which has loaded nothing yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DRIVER = pathToFileURL(join(import.meta.dirname, '..', '..', 'src', 'store', 'postgres', 'pg-driver.ts')).href;

function load(code: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const REPORT = `console.log(JSON.stringify({
  pool: typeof pg.Pool, client: typeof pg.Client, parsers: typeof pg.types.getTypeParser,
  undici: process.moduleLoadList.some((m) => m.includes('undici')), navigatorAfter: typeof globalThis.navigator, navigatorBefore }));`;

test('the pg driver loads without Node’s fetch implementation and leaves the globals as they were', () => {
  const got = load(`const navigatorBefore = typeof globalThis.navigator;
    const { pgDriver: pg } = await import(${JSON.stringify(DRIVER)});
    ${REPORT}`);
  assert.deepEqual(
    [got.pool, got.client, got.parsers, got.undici, got.navigatorAfter],
    ['function', 'function', 'function', false, got.navigatorBefore],
  );
  // The check it avoids: a plain require('pg') on a Node without navigator loads undici.
  const plain = load(`import { createRequire } from 'node:module';
    const navigatorBefore = typeof globalThis.navigator;
    const pg = createRequire(${JSON.stringify(DRIVER)})('pg');
    ${REPORT}`);
  assert.equal(plain.undici, plain.navigatorBefore === 'undefined', 'without navigator, plain pg loads undici');
});
