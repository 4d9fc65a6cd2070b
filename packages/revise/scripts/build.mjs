#!/usr/bin/env node
// Builds @revloop/revise: src/ → dist/index.js (ESM) and dist/index.cjs (CommonJS), each one
// bundled file for any platform (esbuild, --platform=neutral, no Node built-ins), and the
// declarations (tsc): dist/**/*.d.ts for `import`, the same under dist/cjs/ (a CommonJS scope) for
// `require`. The build goes to a fresh folder and replaces dist/ when complete.
//
//   node scripts/build.mjs              build now
//   node scripts/build.mjs --if-stale   build only when dist/ is missing or was built from other sources
//   node scripts/build.mjs --js         JavaScript only (the tests and revloop's sources need no declarations)
//   node scripts/build.mjs --check      exit 0 when dist/ is current, 1 otherwise
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const INFO = '.build-info.json';
const require = createRequire(import.meta.url);

function inputs() {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(join(ROOT, 'src'));
  for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs']) out.push(join(ROOT, f));
  return out;
}

/** SHA-256 over every input's path and bytes. */
export function sourceHash() {
  const h = createHash('sha256');
  for (const f of inputs())
    h.update(`${relative(ROOT, f).split(sep).join('/')}\n`)
      .update(readFileSync(f))
      .update('\n');
  return h.digest('hex');
}

/** `current` (dist/ built from these sources; `js` when without declarations), `stale` or `missing`. */
export function distState(withTypes = true) {
  const path = join(DIST, INFO);
  if (!existsSync(path)) return 'missing';
  try {
    const info = JSON.parse(readFileSync(path, 'utf8'));
    if (info.source_sha256 !== sourceHash()) return 'stale';
    return withTypes && !info.types ? 'stale' : 'current';
  } catch {
    return 'stale';
  }
}

/** Builds dist/ (declarations too unless `types` is false). */
export async function build({ types = true } = {}) {
  const esbuild = require('esbuild');
  const work = join(ROOT, 'node_modules', '.cache', `revise-build-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const hash = sourceHash();
    const common = {
      entryPoints: [join(ROOT, 'src', 'index.ts')],
      bundle: true,
      platform: 'neutral',
      target: 'es2022',
      legalComments: 'none',
      logLevel: 'warning',
      // The optional peers are never bundled (they are loaded, when present, by non-literal specifiers).
      external: ['ai', 'zod', 'ajv', '@opentelemetry/api'],
    };
    await esbuild.build({ ...common, format: 'esm', outfile: join(work, 'index.js') });
    await esbuild.build({ ...common, format: 'cjs', outfile: join(work, 'index.cjs') });
    if (types) {
      const tsc = require.resolve('typescript/bin/tsc');
      const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', work], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`tsc failed:\n${r.stdout}${r.stderr}`);
      // The same declarations in a CommonJS scope, for `require` (exports' require.types).
      mkdirSync(join(work, 'cjs'));
      for (const e of readdirSync(work, { withFileTypes: true })) {
        if (e.name === 'cjs' || (!e.isDirectory() && !e.name.endsWith('.d.ts'))) continue;
        cpSync(join(work, e.name), join(work, 'cjs', e.name), { recursive: true });
      }
      writeFileSync(join(work, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
    }
    writeFileSync(join(work, INFO), JSON.stringify({ source_sha256: hash, types }, null, 2) + '\n');
    const old = `${DIST}.old-${process.pid}`;
    if (existsSync(DIST)) renameSync(DIST, old);
    renameSync(work, DIST);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const types = !args.includes('--js');
  if (args.includes('--check')) process.exit(distState(types) === 'current' ? 0 : 1);
  if (args.includes('--if-stale') && distState(types) === 'current') process.exit(0);
  await build({ types });
}
