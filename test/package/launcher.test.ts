// bin/revloop.mjs in a checkout: it runs dist/ only when dist/ was built from the sources as they are
// now (the stamp scripts/build.mjs writes), and otherwise runs the sources through tsx with a note on
// standard error; REVLOOP_FROM_SOURCE=1 runs the sources without the note. Checked on a small
// checkout of its own in a temporary folder: the real launcher and build script, a two-file src/
// whose main() reports which file runs, a browser script for each of the build's bundles (with the
// real bundler, src/html/bundle.ts), and links to this checkout's node_modules (tsx, TypeScript, esbuild).
// The installed package (no src/) is covered by package.test.ts.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error -- a plain .mjs script without declarations
import { BROWSER_BUNDLES, RUNTIME_ASSETS } from '../../scripts/build.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'revloop-launcher-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
};

before(() => {
  for (const f of [
    'bin/revloop.mjs',
    'scripts/build.mjs',
    'scripts/dist-state.mjs',
    'scripts/dev.mjs',
    'tsconfig.json',
    'tsconfig.build.json',
    'src/html/bundle.ts',
  ]) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(ROOT, f), join(dir, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  put('package.json', JSON.stringify({ name: 'launcher-fixture', private: true, type: 'module' }));
  put(
    'src/cli/main.ts',
    "import { greeting } from './greeting.ts';\nexport async function main(argv: string[]): Promise<void> {\n" +
      "  process.stdout.write(`${greeting} from ${new URL(import.meta.url).pathname.split('/').slice(-3).join('/')} ${argv.slice(2).join(' ')}\\n`);\n}\n",
  );
  put('src/cli/greeting.ts', "export const greeting: string = 'hello';\n");
  // The files the build copies next to the compiled code (RUNTIME_ASSETS) must exist: a folder gets
  // one empty file, a file is written empty.
  for (const asset of RUNTIME_ASSETS) put(/\.[a-z]+$/.test(asset) ? `src/${asset}` : `src/${asset}/placeholder.txt`, '');
  for (const script of BROWSER_BUNDLES as string[]) put(`src/${script.replace(/\.js$/, '.ts')}`, "document.title = 'fixture';\n");
});

function launch(env: Record<string, string> = {}, script = 'bin/revloop.mjs'): { stdout: string; stderr: string; status: number | null } {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('REVLOOP_FROM_SOURCE' in env)) delete childEnv.REVLOOP_FROM_SOURCE; // the test runner may set it
  const r = spawnSync(process.execPath, [join(dir, script), 'x', 'y'], {
    cwd: dir,
    encoding: 'utf8',
    env: childEnv,
    timeout: 120_000,
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function build(): void {
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'build.mjs')], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
  assert.equal(r.status, 0, `build failed:\n${r.stdout}${r.stderr}`);
}

const FROM_DIST = 'hello from dist/cli/main.js x y\n';
const FROM_SOURCE = 'hello from src/cli/main.ts x y\n';

test('the launcher runs dist/ when current, the sources with a note when dist/ is missing or stale, never a stale build', () => {
  // Before any build: the sources, and a note that says why and what to do.
  let r = launch();
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, FROM_SOURCE);
  assert.match(r.stderr, /^revloop: dist\/ is missing, so this runs the sources through tsx.*`npm run build`/);

  build();
  r = launch();
  assert.equal(r.stdout, FROM_DIST);
  assert.equal(r.stderr, '', 'a current build runs without a note');

  // Touched, not changed: still current (the content decides), and the stamp's mtimes are refreshed.
  const stamp = () => JSON.parse(readFileSync(join(dir, 'dist', '.build-info.json'), 'utf8')) as { inputs: Record<string, unknown> };
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(dir, 'src', 'cli', 'greeting.ts'), later, later);
  r = launch();
  assert.equal(r.stdout, FROM_DIST);
  assert.equal(r.stderr, '');
  const mtime = statSync(join(dir, 'src', 'cli', 'greeting.ts')).mtimeMs;
  assert.equal((stamp().inputs['src/cli/greeting.ts'] as number[])[0], mtime, 'the refreshed stamp records the new mtime');

  // A changed source: the sources run (with the change), with the note; the stale build never runs.
  appendFileSync(join(dir, 'src', 'cli', 'greeting.ts'), "export const unused = 'changed';\n");
  r = launch();
  assert.equal(r.stdout, FROM_SOURCE);
  assert.match(r.stderr, /^revloop: dist\/ is stale \(the sources changed since it was built\), so this runs the sources through tsx/);
  // …and REVLOOP_FROM_SOURCE=1, or `npm run dev` (scripts/dev.mjs), runs them without it.
  r = launch({ REVLOOP_FROM_SOURCE: '1' });
  assert.equal(r.stdout, FROM_SOURCE);
  assert.equal(r.stderr, '');
  r = launch({}, 'scripts/dev.mjs');
  assert.equal(r.stdout, FROM_SOURCE);
  assert.equal(r.stderr, '');

  build();
  assert.equal(launch().stdout, FROM_DIST);
  assert.equal(
    launch({ REVLOOP_FROM_SOURCE: '1' }).stdout,
    FROM_SOURCE,
    'REVLOOP_FROM_SOURCE=1 runs the sources even when dist/ is current',
  );

  // A new source file with an old mtime (as `mv` or `cp -p` leave it) still changes its folder's mtime.
  put('src/cli/extra.ts', 'export const extra = 1;\n');
  utimesSync(join(dir, 'src', 'cli', 'extra.ts'), new Date(0), new Date(0));
  r = launch();
  assert.equal(r.stdout, FROM_SOURCE);
  assert.match(r.stderr, /dist\/ is stale/);
  rmSync(join(dir, 'src', 'cli', 'extra.ts'));
  assert.equal(launch().stdout, FROM_DIST, 'back to the sources it was built from: current again');

  // A changed compiler setting (an input of the build, as the build script itself is) makes dist/ stale too.
  const tsconfig = join(dir, 'tsconfig.build.json');
  const original = readFileSync(tsconfig, 'utf8');
  writeFileSync(tsconfig, original.replace('"sourceMap": true', '"sourceMap": false'));
  assert.match(launch().stderr, /dist\/ is stale/);
  writeFileSync(tsconfig, original);
  assert.equal(launch().stderr, '');

  // The browser scripts are bundled into dist/, and their sources are inputs of the build like any other.
  const script = (BROWSER_BUNDLES as string[])[0];
  assert.match(readFileSync(join(dir, 'dist', script), 'utf8'), /document\.title = "fixture"/);
  const entry = join(dir, 'src', script.replace(/\.js$/, '.ts'));
  const entryText = readFileSync(entry, 'utf8');
  appendFileSync(entry, "document.title += '!';\n");
  assert.match(launch().stderr, /dist\/ is stale/);
  // A bundle that fails (a syntax error) fails the build, naming the file, and leaves dist/ as it was.
  appendFileSync(entry, 'document.title = (;\n');
  const failed = spawnSync(process.execPath, [join(dir, 'scripts', 'build.mjs')], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, new RegExp(`build: bundling src/${script.replace(/\.js$/, '.ts')} failed: .*dist/ left as it was`, 's'));
  assert.match(readFileSync(join(dir, 'dist', script), 'utf8'), /document\.title = "fixture"/);
  writeFileSync(entry, entryText);
  assert.equal(launch().stderr, '', 'the sources it was built from: current again');
});
