#!/usr/bin/env node
// Builds the installable library: src/ → dist/ (ESM JavaScript, .d.ts, source maps with the
// TypeScript inlined) with tsconfig.build.json, plus the non-TypeScript files the code reads at
// run time. The package's `exports` map points into dist/ (docs/library.md).
//
//   node scripts/build.mjs              build now (npm run build)
//   node scripts/build.mjs --if-stale   build only when dist/ is missing or was built from other sources
//   node scripts/build.mjs --check      exit 0 when dist/ is current, 1 when it is missing or stale
//   node scripts/build.mjs --prepare    npm's prepare hook (npm ci, npm install, git-URL installs):
//                                       --if-stale, and only a note when TypeScript is not installed
//
// The build goes to a fresh folder (node_modules/.cache/revloop-build/) and replaces dist/ when it
// is complete, so an interrupted or failed build never leaves a half-written dist/ behind.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const INFO = '.build-info.json';
// Work folders live where git and eslint never look, on the same file system as dist/.
const WORK = join(ROOT, 'node_modules', '.cache', 'revloop-build');

/**
 * Files the code reads next to its own module at run time (`new URL('./…', import.meta.url)`),
 * relative to src/. Found with `grep -rn "import.meta.url\|readFileSync" src`; the package test
 * checks every such reference in dist/ resolves, so a new asset cannot be forgotten silently.
 */
export const RUNTIME_ASSETS = [
  'report/assets',
  'html/assets',
  'viewer/app',
  'app/view-analysis-worker.mjs',
  'core/verify/ifeval/langdetect/data.json.gz',
];

/** Inputs that determine dist/: the sources, the compiler settings, this script, the compiler version. */
function inputFiles() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(join(ROOT, 'src'));
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs']) out.push(join(ROOT, f));
  return out;
}

/** SHA-256 over every input's path and bytes (content, not mtimes: a fresh clone is not "newer"). */
export function sourceHash(typescriptVersion) {
  const h = createHash('sha256').update(`typescript ${typescriptVersion}\n`);
  for (const f of inputFiles())
    h.update(`${relative(ROOT, f).split(sep).join('/')}\n`)
      .update(readFileSync(f))
      .update('\n');
  return h.digest('hex');
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

function builtHash() {
  try {
    return JSON.parse(readFileSync(join(DIST, INFO), 'utf8')).sources;
  } catch {
    return null;
  }
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

function build(ts, hash) {
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
    for (const a of RUNTIME_ASSETS) cpSync(join(ROOT, 'src', a), join(tmp, a), { recursive: true });
    writeFileSync(join(tmp, INFO), JSON.stringify({ sources: hash, typescript: ts.version }) + '\n');
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

function main(args) {
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
        'revloop prepare: TypeScript is not installed (dev dependencies omitted), so dist/ was not built; the CLI still runs from src/. Run `npm install` then `npm run build` to use revloop as a library.\n',
      );
      return 0;
    }
    process.stderr.write('build: TypeScript is not installed; run `npm install` (with dev dependencies) first\n');
    return 1;
  }
  const hash = sourceHash(ts.version);
  const current = existsSync(join(DIST, 'index.js')) && builtHash() === hash;
  if (args.includes('--check')) {
    process.stdout.write(current ? 'dist/ is current\n' : existsSync(DIST) ? 'dist/ is stale\n' : 'dist/ is missing\n');
    return current ? 0 : 1;
  }
  if (current && (args.includes('--if-stale') || args.includes('--prepare'))) return 0;
  return build(ts, hash);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
