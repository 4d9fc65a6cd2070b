#!/usr/bin/env node
// Runs every test/**/*.test.ts file with node's built-in test runner (through tsx). Extra arguments
// are passed through: words as file filters (substring match), flags to node (e.g.
// `--test-reporter=tap` for node's TAP instead of the compact reporter). The compact reporter
// (test/setup/reporter.mjs) ends with node's own summary lines (`# tests`, `# pass`, `# fail`, …).
// Every test file runs with its own temporary folder and fails if it leaves anything there
// (test/setup/tmp-guard.mjs); the run's folder is removed at the end.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
// The revise package (packages/revise): test processes run through tsx, which maps `@revloop/revise`
// to its sources by tsconfig.json's paths, wherever a child process starts (TSX_TSCONFIG_PATH); a
// child that runs plain JavaScript (revloop's dist/) loads the package's dist/, built here when stale
// (with its declarations, which the API report and revloop's own build read).
env.TSX_TSCONFIG_PATH ??= join(root, 'tsconfig.json');
{
  const pkg = await import('../packages/revise/scripts/build.mjs');
  if (pkg.distState(true) !== 'current') await pkg.build({ types: true });
}
if (distState() !== 'current') {
  env.REVLOOP_FROM_SOURCE = '1';
  console.log('note: dist/ is not current, so the CLI tests run the sources through tsx (`npm run build` to test the compiled CLI)');
}
// Tests run as in a wide terminal: what the CLI prints for people is fitted to $COLUMNS (else 80),
// and the tests' temporary paths are long. test/cli/width.test.ts sets the widths it checks.
env.COLUMNS ??= '1000';
const reporter = passthrough.some((a) => a.startsWith('--test-reporter'))
  ? []
  : ['--test-reporter', join(root, 'test/setup/reporter.mjs'), '--test-reporter-destination', 'stdout'];
const realTmp = tmpdir();
const runTmp = mkdtempSync(join(realTmp, 'revloop-test-run-'));
let status;
try {
  const args = ['--import', 'tsx', '--import', join(root, 'test/setup/tmp-guard.mjs'), '--test', ...reporter, ...passthrough, ...files];
  const r = spawnSync(process.execPath, args, {
    stdio: 'inherit',
    cwd: root,
    env: { ...env, REVLOOP_TEST_TMP: runTmp, REVLOOP_TEST_REAL_TMP: realTmp },
  });
  status = r.status ?? 1;
  // A test process killed before its exit hook ran leaves its folder here.
  const left = readdirSync(runTmp);
  if (left.length) {
    console.error(`test processes left temporary folders behind (killed or crashed?): ${left.join(', ')}`);
    status ||= 1;
  }
} finally {
  rmSync(runTmp, { recursive: true, force: true });
}
process.exit(status);
