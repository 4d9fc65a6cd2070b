// The client's CPU per generation of a full `revloop run` over HTTP (bench/run-http.ts), for this
// checkout and for a baseline commit, measured the same way in the same command: the baseline's
// src/ is exported from git into a temporary folder (its own dependencies where they differ) and
// measured by this checkout's bench/run-http.ts and bench/http-lib.ts (the same measuring code for
// both), and the two are run alternately, so a busy machine weighs on both alike.
//
//   npx tsx bench/client-cpu.ts [--base 80c5930] [--runs 3] [--latency-ms 50] [--concurrency 32] [--limit 480] [--dist]
//
// --dist measures both as the revloop command runs them: the compiled library (each tree's own
// `node scripts/build.mjs`, this checkout's only when its dist/ is stale) instead of the sources
// through tsx.
//
// Prints each run's client CPU per generation (whole command, and within the steady-state window)
// and steady-state throughput (bench/run-http.ts's own lines), the medians, and this checkout's CPU
// per generation as a share of the baseline's.
// All figures come from SIMULATED controllers (serve-sim).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sharedDataFile, PROJECT_ROOT } from '../src/core/util/shared-data.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const base = arg('base', '80c5930');
const fromDist = process.argv.includes('--dist');
const runs = Number(arg('runs', '3'));
const benchArgs = [
  '--no-ceiling',
  '--latency-ms',
  arg('latency-ms', '50'),
  '--concurrency',
  arg('concurrency', '32'),
  '--limit',
  arg('limit', '480'),
  ...(fromDist ? ['--dist'] : []),
];
const data = sharedDataFile();
if (!data) {
  console.log('bench/client-cpu: ../shared/data not found (set REVLOOP_SHARED); nothing measured');
  process.exit(0);
}

/** The baseline's tree, with this checkout's node_modules plus whatever the baseline needs that differs. */
function baselineTree(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-base-'));
  const tar = join(dir, 'base.tar');
  const files = ['src', 'bench', 'bin', 'package.json', 'tsconfig.json', ...(fromDist ? ['scripts', 'tsconfig.build.json'] : [])];
  execFileSync('git', ['-C', PROJECT_ROOT, 'archive', '-o', tar, ref, ...files]);
  execFileSync('tar', ['-x', '-f', tar, '-C', dir]);
  rmSync(tar);
  // The same measuring code for both trees (run-http.ts has not changed its use of src/ since 80c5930).
  for (const f of ['run-http.ts', 'http-lib.ts']) copyFileSync(join(PROJECT_ROOT, 'bench', f), join(dir, 'bench', f));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  const ours = join(PROJECT_ROOT, 'node_modules');
  for (const name of readdirSync(ours)) symlinkSync(join(ours, name), join(modules, name));
  const wanted = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies as Record<string, string>;
  const missing = Object.entries(wanted).filter(([name, version]) => {
    const pkg = join(ours, name, 'package.json');
    return !existsSync(pkg) || JSON.parse(readFileSync(pkg, 'utf8')).version !== version;
  });
  if (missing.length) {
    const extra = join(dir, '.extra');
    mkdirSync(extra);
    const specs = missing.map(([n, v]) => `${n}@${v}`);
    console.log(`baseline ${ref} needs ${specs.join(', ')}: installing into ${extra}`);
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', extra, ...specs], {
      stdio: 'inherit',
    });
    for (const [name] of missing) {
      rmSync(join(modules, name), { force: true });
      symlinkSync(join(extra, 'node_modules', name), join(modules, name));
    }
  }
  if (fromDist) build(dir, []);
  return dir;
}

/** Compiles a tree's src/ into its dist/ with that tree's own build script. */
function build(root: string, flags: string[]): void {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), ...flags], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the build in ${root} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
}

interface Figures {
  cpuMsPerGen: number;
  steadyCpuMsPerGen: number | null;
  steadyPct: number | null;
  load: string;
}

function measure(root: string): Figures {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'run-http.ts'), ...benchArgs], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, REVLOOP_SHARED: resolve(data!, '..') },
    timeout: 600_000,
  });
  const out = r.stdout + r.stderr;
  const cpu = /= ([\d.]+) ms per generation/.exec(out);
  if (r.status !== 0 || !cpu) throw new Error(`bench/run-http.ts in ${root} failed (exit ${r.status}):\n${out}`);
  const steady = /steady state: [\d.]+ generations\/s = ([\d.]+)% of ideal/.exec(out);
  const steadyCpu = /steady-state client CPU: ([\d.]+) ms per generation/.exec(out);
  const load = /load average \(1 min\) ([\d.]+) at start/.exec(out);
  return {
    cpuMsPerGen: Number(cpu[1]),
    steadyCpuMsPerGen: steadyCpu ? Number(steadyCpu[1]) : null,
    steadyPct: steady ? Number(steady[1]) : null,
    load: load?.[1] ?? '?',
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const head = execFileSync('git', ['-C', PROJECT_ROOT, 'rev-parse', '--short', 'HEAD']).toString().trim();
const baseDir = baselineTree(base);
if (fromDist) build(PROJECT_ROOT, ['--if-stale']);
const load0 = loadavg()[0];
try {
  console.log(
    `bench/client-cpu — bench/run-http.ts ${benchArgs.join(' ')} (SIMULATED controller via serve-sim; ${fromDist ? 'compiled libraries, dist/' : 'sources through tsx'}), baseline ${base} against this checkout (${head}), ${runs} alternating runs each`,
  );
  const got: Record<'baseline' | 'this', Figures[]> = { baseline: [], this: [] };
  for (let i = 0; i < runs; i++) {
    const order: Array<['baseline' | 'this', string]> = [
      ['baseline', baseDir],
      ['this', PROJECT_ROOT],
    ];
    if (i % 2) order.reverse();
    for (const [name, root] of order) {
      const f = measure(root);
      got[name].push(f);
      console.log(
        `run ${i + 1} ${name.padEnd(8)}: client CPU ${f.cpuMsPerGen.toFixed(2)} ms per generation (steady window ${f.steadyCpuMsPerGen?.toFixed(2) ?? '?'} ms) · steady state ${f.steadyPct ?? '?'}% of ideal · load ${f.load}`,
      );
    }
  }
  const b = median(got.baseline.map((f) => f.cpuMsPerGen));
  const t = median(got.this.map((f) => f.cpuMsPerGen));
  console.log(
    `median client CPU per generation: baseline ${b.toFixed(2)} ms, this checkout ${t.toFixed(2)} ms = ${((100 * t) / b).toFixed(0)}% of the baseline (${(b / t).toFixed(2)}× less)`,
  );
  const sb = median(got.baseline.map((f) => f.steadyCpuMsPerGen ?? NaN));
  const st = median(got.this.map((f) => f.steadyCpuMsPerGen ?? NaN));
  console.log(
    `median client CPU per generation in the steady-state window: baseline ${sb.toFixed(2)} ms, this checkout ${st.toFixed(2)} ms = ${((100 * st) / sb).toFixed(0)}% of the baseline (${(sb / st).toFixed(2)}× less)`,
  );
  console.log(`machine: load average (1 min) ${load0.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end`);
} finally {
  rmSync(baseDir, { recursive: true, force: true });
}
