// @revloop/revise as an app developer installs it (docs/revise.md §10): its size (bundled,
// minified, gzipped, peers excluded), the time Node takes to import it (fresh processes, against
// `node -e 0` and against importing `ai` alone, in the same command), and what installing it into a
// fresh project with `ai` and `zod` adds (packages, MB on disk, seconds) against `ai` + `zod` alone
// and against revloop itself (its tarball, with install scripts off: better-sqlite3's would fetch a
// prebuilt binary from outside the npm registry or compile one). The installs use the npm registry
// with npm's cache (--prefer-offline); `--offline` skips them. Prints figures; asserts nothing.
//
//   npx tsx bench/revise-package.ts [--runs 15] [--offline]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PKG = join(ROOT, 'packages', 'revise');
const require = createRequire(import.meta.url);
const esbuild = require('esbuild') as typeof import('esbuild');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15;
const offline = process.argv.includes('--offline');
const AI = JSON.parse(
  execFileSync('npm', ['pkg', 'get', 'devDependencies.ai', 'devDependencies.zod'], { cwd: ROOT, encoding: 'utf8' }),
) as Record<string, string>;
const versions = { ai: AI['devDependencies.ai'], zod: AI['devDependencies.zod'] };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// @ts-expect-error -- a plain .mjs script without declarations
const { build, distState } = await import('../packages/revise/scripts/build.mjs');
if (distState(true) !== 'current') await build({ types: true });

// 1. Size.
const bundle = await esbuild.build({
  entryPoints: [join(PKG, 'dist', 'index.js')],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'neutral',
  write: false,
  external: ['ai', 'zod', 'ajv', '@opentelemetry/api'],
});
const min = bundle.outputFiles[0].contents;
console.log(`size: ${min.length} bytes minified, ${gzipSync(min, { level: 9 }).length} bytes min+gzip (peers excluded; limit 25,600)`);

// 2. Import time, measured inside fresh processes (Node's own start-up excluded): wall and CPU of
// the dynamic import, processes interleaved so that the machine's load affects all alike.
const timeImport = (specifier: string): { wall: number; cpu: number } => {
  const code = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(specifier)});
const w = performance.now() - t; const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wall: w, cpu: (u.user + u.system) / 1000 }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
};
const samples: Record<string, Array<{ wall: number; cpu: number }>> = { '@revloop/revise': [], ai: [], zod: [] };
for (let i = 0; i < runs; i++) {
  samples['@revloop/revise'].push(timeImport(join(PKG, 'dist', 'index.js')));
  samples.ai.push(timeImport('ai'));
  samples.zod.push(timeImport('zod'));
}
for (const [name, xs] of Object.entries(samples))
  console.log(
    `import ${name.padEnd(16)} median of ${runs} fresh processes: ${median(xs.map((x) => x.wall)).toFixed(1)} ms wall, ${median(xs.map((x) => x.cpu)).toFixed(1)} ms CPU (fastest ${Math.min(...xs.map((x) => x.wall)).toFixed(1)} ms wall)`,
  );

// 3. Installs into fresh projects.
if (offline) process.exit(0);
const pack = (cwd: string, dest: string) =>
  join(
    dest,
    JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd, encoding: 'utf8' }))[0]
      .filename,
  );
const work = mkdtempSync(join(tmpdir(), 'revise-install-'));
try {
  const tarball = pack(PKG, work);
  const revloop = pack(ROOT, work);
  const du = (dir: string): number => {
    let n = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      n += e.isDirectory() ? du(p) : e.isFile() ? statSync(p).size : 0;
    }
    return n;
  };
  const install = (name: string, specs: string[], scripts = true) => {
    const dir = join(work, name);
    execFileSync('mkdir', ['-p', dir]);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
    const t0 = performance.now();
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...(scripts ? [] : ['--ignore-scripts']), ...specs], {
      cwd: dir,
      stdio: 'ignore',
    });
    const s = (performance.now() - t0) / 1000;
    const lock = JSON.parse(execFileSync('cat', [join(dir, 'package-lock.json')], { encoding: 'utf8' })) as {
      packages: Record<string, unknown>;
    };
    const packages = Object.keys(lock.packages).filter((k) => k.startsWith('node_modules/')).length;
    console.log(
      `install ${name.padEnd(16)} ${String(packages).padStart(3)} packages, ${(du(join(dir, 'node_modules')) / 1e6).toFixed(1)} MB, ${s.toFixed(1)} s${scripts ? '' : ' (install scripts off)'}`,
    );
  };
  const base = [`ai@${versions.ai}`, `zod@${versions.zod}`];
  install('ai-zod', base);
  install('ai-zod-revise', [...base, tarball]);
  // revloop depends on @revloop/revise, which the registry does not have yet: its tarball goes along.
  install('ai-zod-revloop', [...base, revloop, tarball], false);
} finally {
  rmSync(work, { recursive: true, force: true });
}
