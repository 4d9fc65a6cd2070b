// Loaded into every test process by scripts/run-tests.mjs (`--import`, after tsx). Each test file
// gets its own temporary folder as TMPDIR (so os.tmpdir(), and every process the test starts, write
// there), and the file FAILS when anything is left in it at exit: every test must remove what it
// creates, even on failure (test/tmp.ts's tempDir() does it). Other people's /tmp never counts.
import { after } from 'node:test';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

const root = process.env.REVLOOP_TEST_TMP;
// Only the test files' own processes (node's runner starts them with NODE_TEST_CONTEXT set), not
// helper processes that inherit the flags (node-llama-cpp's binding check, say).
const file = process.argv[1] ?? '';
if (root && process.env.NODE_TEST_CONTEXT && !process.execArgv.includes('--test') && /\.test\.[cm]?[jt]s$/.test(file)) {
  const mine = mkdtempSync(join(root, `${basename(file).replace(/\.test\.[cm]?[jt]s$/, '')}-`));
  // tsx keeps its transform cache in os.tmpdir()/tsx-<uid>: share the real one, so CLI processes the
  // tests start do not recompile everything.
  const cacheName = `tsx-${process.getuid?.() ?? 0}`;
  const cache = join(process.env.REVLOOP_TEST_REAL_TMP ?? '/tmp', cacheName);
  if (existsSync(cache)) symlinkSync(cache, join(mine, cacheName));
  process.env.TMPDIR = mine;
  // Checked at exit, after the file's `after` hooks and after exit-time cleanups the code under test
  // registered while the tests ran (listeners run in order; this one is added once the tests end).
  after(() => process.on('exit', check));
  function check() {
    const left = readdirSync(mine).filter((n) => n !== cacheName);
    if (left.length) {
      process.stderr.write(
        `${relative(process.cwd(), file)} left temporary files behind: ${left.join(', ')}\n` +
          '  every test removes what it creates, even on failure: use tempDir() from test/tmp.ts\n',
      );
      process.exitCode = 1;
    }
    rmSync(mine, { recursive: true, force: true });
  }
}
