#!/usr/bin/env node
// Builds the installable library: src/ → dist/ (ESM JavaScript, .d.ts, source maps with the
// TypeScript inlined) with tsconfig.build.json, the browser scripts (the viewer's app and the
// report's script, TypeScript bundled by esbuild: BROWSER_BUNDLES), plus the non-TypeScript files
// the code reads at run time. The package's `exports` map points into dist/ (docs/library.md). The revise package
// (packages/revise, a workspace revloop depends on) is built first when its dist/ is not current:
// revloop's dist/ imports it, and its sources are inputs of revloop's build too.
//
//   node scripts/build.mjs              build now (npm run build)
//   node scripts/build.mjs --if-stale   build only when dist/ is missing or was built from other sources
//   node scripts/build.mjs --check      exit 0 when dist/ is current, 1 when it is missing or stale
//   node scripts/build.mjs --prepare    npm's prepare hook (npm ci, npm install, git-URL installs):
//                                       --if-stale, and only a note when TypeScript is not installed
//
// bin/revloop.mjs asks dist-state.mjs (and, when an input's mtime or size changed, distState() here)
// at every start in a checkout: it runs dist/ only when dist/ was built from the sources as they are
// now (docs/library.md "The revloop command").
//
// The build goes to a fresh folder (node_modules/.cache/revloop-build/) and replaces dist/ when it
// is complete, so an interrupted or failed build never leaves a half-written dist/ behind.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { buildInfo, DIST, INFO, ROOT, unchangedSince } from './dist-state.mjs';

// Work folders live where git and eslint never look, on the same file system as dist/.
const WORK = join(ROOT, 'node_modules', '.cache', 'revloop-build');

/**
 * Files the code reads next to its own module at run time (`new URL('./…', import.meta.url)`),
 * relative to src/. Found with `grep -rn "import.meta.url\|readFileSync" src`; the package test
 * checks every such reference in dist/ resolves, so a new asset cannot be forgotten silently.
 */
export const RUNTIME_ASSETS = [
  'html/assets',
  'viewer/app/index.html',
  'viewer/app/viewer.css',
  'app/view-analysis-worker.mjs',
  'core/verify/ifeval/langdetect/profiles.bin',
  'app/view-search-worker.mjs',
];

/**
 * The browser scripts, relative to src/: each `NAME.js` is `NAME.ts` bundled with what it imports from
 * the browser folders (src/html/bundle.ts, whose compiled bundleBrowserScript builds them here with
 * the options the sources use when they bundle on demand). The modules that serve or inline them
 * read them with browserScript(new URL('./…/x.js', import.meta.url)).
 */
export const BROWSER_BUNDLES = ['viewer/app/main.js', 'report/client/report.js'];

const FIXED_INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];
/** The revise package, a workspace of the checkout (absent from a bare fixture of the launcher's test). */
const REVISE = join(ROOT, 'packages', 'revise');
const REVISE_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

/**
 * Inputs that determine dist/: the sources, the compiler settings, this script (and the versions of
 * the compiler and the bundler, which sourceHash adds). With `folders`, the source folders are listed too (for inputStats).
 */
function inputFiles(folders = null) {
  const out = [];
  const walk = (dir) => {
    folders?.push(dir);
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(join(ROOT, 'src'));
  for (const f of FIXED_INPUTS) out.push(join(ROOT, f));
  if (existsSync(join(REVISE, 'package.json'))) {
    walk(join(REVISE, 'src'));
    for (const f of REVISE_INPUTS) out.push(join(REVISE, f));
  }
  return out;
}

const rel = (p) => relative(ROOT, p).split(sep).join('/');

/** SHA-256 over every input's path and bytes (content, not mtimes: a fresh clone is not "newer"). */
export function sourceHash(typescriptVersion, esbuildVersion) {
  const h = createHash('sha256').update(`typescript ${typescriptVersion}\nesbuild ${esbuildVersion}\n`);
  for (const f of inputFiles())
    h.update(`${rel(f)}\n`)
      .update(readFileSync(f))
      .update('\n');
  return h.digest('hex');
}

/**
 * mtime and size of every input file, and mtime of every source folder (a file added, removed or
 * renamed changes its folder's mtime). Taken before the sources are hashed, so an edit made while
 * they are read shows as a difference.
 */
function inputStats() {
  const folders = [];
  const files = inputFiles(folders);
  const stats = {};
  for (const d of folders) stats[`${rel(d)}/`] = statSync(d).mtimeMs;
  for (const f of files) {
    const st = statSync(f);
    stats[rel(f)] = [st.mtimeMs, st.size];
  }
  return stats;
}

function typescript() {
  const require = createRequire(import.meta.url);
  try {
    const pkg = require.resolve('typescript/package.json');
    return { tsc: join(pkg, '..', 'bin', 'tsc'), version: JSON.parse(readFileSync(pkg, 'utf8')).version };
  } catch {
    return null;
  }
}

/** esbuild (a dev dependency, and tsx's) and its version, or null. */
function esbuild() {
  const require = createRequire(import.meta.url);
  try {
    return { module: require('esbuild'), version: require('esbuild/package.json').version };
  } catch {
    return null;
  }
}

function writeBuildInfo(dir, info) {
  const tmp = join(dir, `${INFO}.${process.pid}`);
  writeFileSync(tmp, JSON.stringify(info) + '\n');
  renameSync(tmp, join(dir, INFO));
}

/**
 * Whether dist/ holds the compiled form of the sources as they are now: 'current', 'stale' (built
 * from other sources) or 'missing'. Fast path: no input's mtime or size changed since the build
 * (a few ms). Otherwise the content hash decides (taken with the TypeScript version that built
 * dist/, so this needs no compiler); when the content is the same after all (a `touch`, a checkout
 * of another branch and back), the recorded mtimes are refreshed so the next start is fast again.
 */
export function distState() {
  const info = existsSync(join(DIST, 'cli', 'main.js')) ? buildInfo() : null;
  if (!info || typeof info.sources !== 'string') return existsSync(DIST) ? 'stale' : 'missing';
  if (unchangedSince(info.inputs)) return 'current';
  const inputs = inputStats();
  if (sourceHash(info.typescript, info.esbuild) !== info.sources) return 'stale';
  try {
    writeBuildInfo(DIST, { ...info, inputs });
  } catch {
    // A read-only checkout: the next start hashes again, which is only slower.
  }
  return 'current';
}

/** rename, or copy and delete where the two paths are on different file systems. */
function move(from, to) {
  try {
    renameSync(from, to);
  } catch (e) {
    if (e.code !== 'EXDEV') throw e;
    cpSync(from, to, { recursive: true });
    rmSync(from, { recursive: true, force: true });
  }
}

/** Writes the browser bundles into the build folder `out`; an error names the bundle. */
async function bundleBrowserScripts(out, bundler) {
  const { bundleBrowserScript } = await import(pathToFileURL(join(out, 'html', 'bundle.js')).href);
  for (const b of BROWSER_BUNDLES) {
    let text;
    try {
      text = bundleBrowserScript(join(ROOT, 'src'), `src/${b.replace(/\.js$/, '.ts')}`, bundler.module);
    } catch (e) {
      throw new Error(`bundling src/${b.replace(/\.js$/, '.ts')} failed: ${e?.message ?? e}`, { cause: e });
    }
    mkdirSync(dirname(join(out, b)), { recursive: true });
    writeFileSync(join(out, b), text);
  }
}

async function build(ts, bundler, hash, inputs) {
  const t0 = performance.now();
  mkdirSync(WORK, { recursive: true });
  const tmp = join(WORK, `dist-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    const r = spawnSync(process.execPath, [ts.tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', tmp], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (r.status !== 0) {
      process.stderr.write(`build: tsc failed (exit ${r.status ?? r.signal}); dist/ left as it was\n`);
      return 1;
    }
    try {
      await bundleBrowserScripts(tmp, bundler);
    } catch (e) {
      process.stderr.write(`build: ${e.message}; dist/ left as it was\n`);
      return 1;
    }
    for (const a of RUNTIME_ASSETS) cpSync(join(ROOT, 'src', a), join(tmp, a), { recursive: true });
    writeBuildInfo(tmp, { sources: hash, typescript: ts.version, esbuild: bundler.version, inputs });
    // Swap: the old dist/ disappears only once the new one is complete.
    const old = join(WORK, `old-${process.pid}`);
    if (existsSync(DIST)) move(DIST, old);
    move(tmp, DIST);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stderr.write(`build: dist/ written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  return 0;
}

/** Builds packages/revise (JavaScript and declarations) unless its dist/ is current; 0 on success. */
async function buildRevisePackage() {
  if (!existsSync(join(REVISE, 'package.json'))) return 0;
  const pkg = await import(new URL('../packages/revise/scripts/build.mjs', import.meta.url).href);
  if (pkg.distState(true) === 'current') return 0;
  try {
    await pkg.build({ types: true });
    return 0;
  } catch (e) {
    process.stderr.write(`build: packages/revise failed: ${e?.message ?? e}\n`);
    return 1;
  }
}

async function main(args) {
  const known = ['--if-stale', '--check', '--prepare'];
  const unknown = args.filter((a) => !known.includes(a));
  if (unknown.length) {
    process.stderr.write(`build: unknown option ${unknown.join(' ')}; use ${known.join(', ')} or nothing\n`);
    return 2;
  }
  const ts = typescript();
  if (!ts) {
    if (args.includes('--prepare')) {
      process.stderr.write(
        'revloop prepare: TypeScript is not installed (dev dependencies omitted), so dist/ was not built; the CLI runs the sources through tsx (a slower start). Run `npm install` then `npm run build` to compile them.\n',
      );
      return 0;
    }
    process.stderr.write('build: TypeScript is not installed; run `npm install` (with dev dependencies) first\n');
    return 1;
  }
  const bundler = esbuild();
  if (!bundler) {
    process.stderr.write('build: esbuild is not installed; run `npm install` (with dev dependencies) first\n');
    return 1;
  }
  const inputs = inputStats(); // before hashing: an edit made during the build makes dist/ stale
  const hash = sourceHash(ts.version, bundler.version);
  const current = existsSync(join(DIST, 'index.js')) && buildInfo()?.sources === hash;
  if (args.includes('--check')) {
    process.stdout.write(current ? 'dist/ is current\n' : existsSync(DIST) ? 'dist/ is stale\n' : 'dist/ is missing\n');
    return current ? 0 : 1;
  }
  // revloop's dist/ imports the revise package's: it must be current whenever revloop's is.
  if ((await buildRevisePackage()) !== 0) return 1;
  if (current && (args.includes('--if-stale') || args.includes('--prepare'))) return 0;
  return build(ts, bundler, hash, inputs);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main(process.argv.slice(2));
