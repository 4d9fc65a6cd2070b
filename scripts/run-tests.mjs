#!/usr/bin/env node
// Runs every test/**/*.test.ts file with node's built-in test runner (through tsx), so CI can read
// node's own summary lines. Extra arguments are passed through as file filters (substring match).
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || name === 'node_modules' || name === 'fixtures') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const passthrough = process.argv.slice(2).filter((a) => a.startsWith('-'));
let files = walk(join(root, 'test')).sort();
if (filters.length) files = files.filter((f) => filters.some((x) => relative(root, f).includes(x)));
if (!files.length) {
  console.error('no test files matched');
  process.exit(1);
}
// CLI tests spawn bin/revloop.mjs, which runs dist/ when it was built from the current sources; when
// it was not, they run the sources (REVLOOP_FROM_SOURCE=1) rather than print the launcher's note each time.
const { distState } = await import('./build.mjs');
const env = { ...process.env };
if (distState() !== 'current') {
  env.REVLOOP_FROM_SOURCE = '1';
  console.log('note: dist/ is not current, so the CLI tests run the sources through tsx (`npm run build` to test the compiled CLI)');
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...passthrough, ...files], { stdio: 'inherit', cwd: root, env });
process.exit(r.status ?? 1);
