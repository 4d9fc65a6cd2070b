// The client's CPU per generation of a full `revloop run` over HTTP (bench/run-http.ts), for this
// checkout and for a baseline commit, measured the same way in the same command: the baseline's
// src/ is exported from git into a temporary folder (its own dependencies where they differ) and
// measured by this checkout's bench/run-http.ts and bench/http-lib.ts (the same measuring code for
// both), and the two are run alternately, so a busy machine weighs on both alike.
//
//   npx tsx bench/client-cpu.ts [--base 80c5930] [--runs 3] [--latency-ms 50] [--concurrency 32] [--limit 480] [--dist | --cli [--untuned] [--marginal]]
//
// --dist measures both libraries compiled (each tree's own `node scripts/build.mjs`, this
// checkout's only when its dist/ is stale) instead of the sources through tsx. --cli measures
// whole processes as a user runs them: `revloop run` of each compiled tree (one small launcher
// for both, since the baseline's bin/ ran the sources in a checkout) against one serve-sim, its
// user + system CPU from start-up to exit (bash's `times`) per generation stored. --untuned (with
// --cli) also runs this checkout's CLI with V8's default JIT settings (REVLOOP_V8_TUNING=0,
// src/cli/jit.ts) in the same rotation, which tells that tuning's share apart. --marginal (with
// --cli) also runs each tree on the first half of the cases in the same rotation and prints the
// marginal CPU of a generation, (CPU of the whole run - CPU of the half run) / (its generations -
// the half's): the per-generation cost without what a process pays once (start-up, loading and
// validating the case file, which both sizes read whole, most of the plan).
//
// Prints each run's client CPU per generation (whole command, and within the steady-state window)
// and steady-state throughput (bench/run-http.ts's own lines), the medians, and this checkout's CPU
// per generation as a share of the baseline's.
// All figures come from SIMULATED controllers (serve-sim).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { sharedDataFile, PROJECT_ROOT } from '../src/core/util/shared-data.ts';
import { benchServer } from './http-lib.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const base = arg('base', '80c5930');
const viaCli = process.argv.includes('--cli');
const untuned = viaCli && process.argv.includes('--untuned');
const marginal = viaCli && process.argv.includes('--marginal');
const fromDist = viaCli || process.argv.includes('--dist');
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
const casesFile = sharedDataFile('paper-cases', 'generation_combined480.jsonl');
if (!data || !casesFile) {
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
  /** --cli: the process's CPU and the generations it stored. */
  cpuMs?: number;
  gens?: number;
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

/** A launcher that runs a tree's compiled CLI: `node launcher.mjs <tree> run …`. */
function cliLauncher(dir: string): string {
  const file = join(dir, 'launch-dist.mjs');
  writeFileSync(
    file,
    "import { pathToFileURL } from 'node:url';\n" +
      'const [root, ...args] = process.argv.slice(2);\n' +
      "const { main } = await import(pathToFileURL(root + '/dist/cli/main.js').href);\n" +
      "await main([process.argv[0], 'revloop', ...args]);\n",
  );
  return file;
}

/** One `revloop run` process of a compiled tree: its CPU (user + system, start-up to exit) per generation stored. */
function measureCli(
  root: string,
  launcher: string,
  serverUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  limit = arg('limit', '480'),
): Figures {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-cli-'));
  try {
    const store = join(dir, 'runs.db');
    const args = ['run', '--cases', casesFile!, '--model', `openai-compatible:${serverUrl}#sim:steady`, '--store', store];
    args.push('--run', 'bench', '--concurrency', arg('concurrency', '32'), '--limit', limit);
    const quoted = [process.execPath, launcher, root, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const r = spawnSync('bash', ['-c', `${quoted} >'${dir}/out.txt' 2>&1; code=$?; times; exit $code`], {
      encoding: 'utf8',
      env,
      timeout: 600_000,
    });
    const t = r.stdout.trim().split('\n').pop() ?? '';
    const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(t);
    if (r.status !== 0 || !m)
      throw new Error(`revloop run in ${root} failed (exit ${r.status}):\n${readFileSync(join(dir, 'out.txt'), 'utf8')}${r.stderr}`);
    const cpuMs = (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
    const db = new Database(store, { readonly: true });
    const gens = (db.prepare("SELECT count(*) AS n FROM events WHERE type = 'attempt_finished'").get() as { n: number }).n;
    db.close();
    return { cpuMsPerGen: cpuMs / gens, cpuMs, gens, steadyCpuMsPerGen: null, steadyPct: null, load: loadavg()[0].toFixed(2) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The CPU of the generations the whole run has beyond the half run, per generation. */
const marginalMs = (whole: Figures, halfRun: Figures) => (whole.cpuMs! - halfRun.cpuMs!) / (whole.gens! - halfRun.gens!);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const head = execFileSync('git', ['-C', PROJECT_ROOT, 'rev-parse', '--short', 'HEAD']).toString().trim();
const baseDir = baselineTree(base);
if (fromDist) build(PROJECT_ROOT, ['--if-stale']);
const load0 = loadavg()[0];
const server = viaCli ? await benchServer({ latencyMs: Number(arg('latency-ms', '50')), spawnCli: true }) : null;
const launcher = viaCli ? cliLauncher(baseDir) : '';
try {
  console.log(
    viaCli
      ? `bench/client-cpu — whole \`revloop run\` processes (compiled, dist/) against one serve-sim at ${arg('latency-ms', '50')} ms (SIMULATED controller), concurrency ${arg('concurrency', '32')}, ${arg('limit', '480')} cases; baseline ${base} against this checkout (${head}), ${runs} alternating runs each`
      : `bench/client-cpu — bench/run-http.ts ${benchArgs.join(' ')} (SIMULATED controller via serve-sim; ${fromDist ? 'compiled libraries, dist/' : 'sources through tsx'}), baseline ${base} against this checkout (${head}), ${runs} alternating runs each`,
  );
  type Tree = 'baseline' | 'this' | 'untuned';
  const got: Record<Tree, Figures[]> = { baseline: [], this: [], untuned: [] };
  const halves: Record<Tree, Figures[]> = { baseline: [], this: [], untuned: [] };
  const half = String(Math.floor(Number(arg('limit', '480')) / 2));
  for (let i = 0; i < runs; i++) {
    const order: Array<[Tree, string]> = [
      ['baseline', baseDir],
      ['this', PROJECT_ROOT],
      ...(untuned ? [['untuned', PROJECT_ROOT] as [Tree, string]] : []),
    ];
    if (i % 2) order.reverse();
    for (const [name, root] of order) {
      const env = name === 'untuned' ? { ...process.env, REVLOOP_V8_TUNING: '0' } : process.env;
      const f = viaCli ? measureCli(root, launcher, server!.url, env) : measure(root);
      got[name].push(f);
      let extra = '';
      if (marginal) {
        const h = measureCli(root, launcher, server!.url, env, half);
        halves[name].push(h);
        extra = ` · ${half} cases: ${h.cpuMsPerGen.toFixed(2)} ms · marginal ${marginalMs(f, h).toFixed(2)} ms`;
      }
      console.log(
        viaCli
          ? `run ${i + 1} ${name.padEnd(8)}: ${f.cpuMsPerGen.toFixed(2)} ms of CPU per generation (whole process)${extra} · load ${f.load}`
          : `run ${i + 1} ${name.padEnd(8)}: client CPU ${f.cpuMsPerGen.toFixed(2)} ms per generation (steady window ${f.steadyCpuMsPerGen?.toFixed(2) ?? '?'} ms) · steady state ${f.steadyPct ?? '?'}% of ideal · load ${f.load}`,
      );
    }
  }
  const b = median(got.baseline.map((f) => f.cpuMsPerGen));
  const t = median(got.this.map((f) => f.cpuMsPerGen));
  console.log(
    `median client CPU per generation: baseline ${b.toFixed(2)} ms, this checkout ${t.toFixed(2)} ms = ${((100 * t) / b).toFixed(0)}% of the baseline (${(b / t).toFixed(2)}× less)`,
  );
  if (marginal) {
    const mb = median(got.baseline.map((f, i) => marginalMs(f, halves.baseline[i])));
    const mt = median(got.this.map((f, i) => marginalMs(f, halves.this[i])));
    console.log(
      `median marginal CPU per generation (${arg('limit', '480')} against ${half} cases): baseline ${mb.toFixed(2)} ms, this checkout ${mt.toFixed(2)} ms = ${((100 * mt) / mb).toFixed(0)}% of the baseline (${(mb / mt).toFixed(2)}× less)`,
    );
  }
  if (untuned) {
    const u = median(got.untuned.map((f) => f.cpuMsPerGen));
    console.log(
      `this checkout with V8's default JIT settings (REVLOOP_V8_TUNING=0): ${u.toFixed(2)} ms = ${((100 * u) / b).toFixed(0)}% of the baseline (${(b / u).toFixed(2)}× less); the tuning saves ${((100 * (u - t)) / u).toFixed(0)}%`,
    );
  }
  const sb = median(got.baseline.map((f) => f.steadyCpuMsPerGen ?? NaN));
  const st = median(got.this.map((f) => f.steadyCpuMsPerGen ?? NaN));
  if (!viaCli)
    console.log(
      `median client CPU per generation in the steady-state window: baseline ${sb.toFixed(2)} ms, this checkout ${st.toFixed(2)} ms = ${((100 * st) / sb).toFixed(0)}% of the baseline (${(sb / st).toFixed(2)}× less)`,
    );
  console.log(`machine: load average (1 min) ${load0.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end`);
} finally {
  await server?.close();
  rmSync(baseDir, { recursive: true, force: true });
}
