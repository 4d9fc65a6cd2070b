// What V8's optimising compiler does during a full `revloop run` of the paper's 480 exact-length
// cases over HTTP against serve-sim: how many Turbofan compilations, the compile time V8 reports for
// them, how much of it went to recompiling functions after a deoptimisation, and every
// deoptimisation in revloop's own code with its reason and place. Two settings: V8's defaults
// (REVLOOP_V8_TUNING=0: what an application that imports the library runs with) and the batch flags
// `revloop run` sets (src/cli/jit.ts). With the defaults, Turbofan's background compiles were about a
// fifth of a run's steady-state CPU before issue 12's round 14, and each deoptimisation of a hot
// function costs a second compile (docs/performance.md#v8-deoptimisations-and-hidden-classes).
//
//   npx tsx bench/jit.ts [--limit 480] [--latency-ms 50] [--concurrency 32]
//
// The measured process is the compiled CLI (dist/, `npm run build` first) with V8's tracing on: it
// runs slower than untraced, so the counts and the places are what this is for, not CPU figures
// (bench/client-cpu.ts). All figures come from SIMULATED controllers (serve-sim).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDataFile } from '../src/core/util/shared-data.ts';
import { benchServer } from './http-lib.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const casesFile = sharedDataFile('paper-cases', 'generation_combined480.jsonl');
if (!casesFile) {
  console.log('bench/jit: ../shared/data/paper-cases/generation_combined480.jsonl not found (set REVLOOP_SHARED); nothing measured');
  process.exit(0);
}
if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
  console.error('bench/jit: needs the compiled CLI: run `npm run build` first');
  process.exit(2);
}
const server = await benchServer({ latencyMs: Number(arg('latency-ms', '50')), spawnCli: true });
const dist = `file://${ROOT}dist/`;

interface Summary {
  compilations: number;
  functions: number;
  ms: number;
  recompileMs: number;
  recompiled: Array<[string, number, number]>;
  deopts: Array<[string, number]>;
}

function traced(tuning: boolean): Summary {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-jit-'));
  try {
    const args = ['--cases', casesFile!, '--model', `openai-compatible:${server.url}#sim:steady`, '--store', join(dir, 'runs.db')];
    args.push('--concurrency', arg('concurrency', '32'), '--limit', arg('limit', '480'));
    const run = spawnSync(
      process.execPath,
      ['--trace-opt', '--trace-deopt-verbose', join(ROOT, 'bench', 'revloop-dist.mjs'), 'run', ...args],
      { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, REVLOOP_V8_TUNING: tuning ? '1' : '0' } },
    );
    if (run.status !== 0) throw new Error(`revloop run failed (${run.status}): ${(run.stderr || run.stdout).slice(-2000)}`);
    const lines = run.stdout.split('\n');
    const compiles = new Map<string, { n: number; ms: number; first: number }>();
    for (const l of lines) {
      const m = /completed compiling .*?<JSFunction (\S*) \(sfi = (\S+)\)>.*took ([\d.]+), ([\d.]+), ([\d.]+) ms/.exec(l);
      if (!m) continue;
      const ms = Number(m[3]) + Number(m[4]) + Number(m[5]);
      const key = `${m[1] || '(anonymous)'}\u0000${m[2]}`;
      const c = compiles.get(key);
      if (c) {
        c.n++;
        c.ms += ms;
      } else compiles.set(key, { n: 1, ms, first: ms });
    }
    const all = [...compiles.values()];
    // Eager deoptimisations whose place is in dist/ (a following line names the place).
    const deopts = new Map<string, number>();
    lines.forEach((l, i) => {
      const m = /bailout \(kind: deopt-eager, reason: ([^)]*)\): begin\. deoptimizing \S+ <JSFunction (\S*)/.exec(l);
      if (!m) return;
      const at = lines
        .slice(i + 1, i + 4)
        .map((x) => /;;; deoptimize at (.*)/.exec(x)?.[1])
        .find(Boolean);
      if (!at?.includes(dist)) return;
      const key = `${m[2]}: ${m[1]} at ${at.replaceAll(dist, '')}`;
      deopts.set(key, (deopts.get(key) ?? 0) + 1);
    });
    return {
      compilations: all.reduce((s, c) => s + c.n, 0),
      functions: compiles.size,
      ms: all.reduce((s, c) => s + c.ms, 0),
      recompileMs: all.reduce((s, c) => s + c.ms - c.first, 0),
      recompiled: [...compiles]
        .filter(([, c]) => c.n > 1)
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([k, c]) => [k.split('\u0000')[0], c.n, c.ms]),
      deopts: [...deopts].sort((a, b) => b[1] - a[1]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  console.log(
    `bench/jit — \`revloop run\` (compiled) of ${arg('limit', '480')} cases against serve-sim (SIMULATED controller), traced by V8`,
  );
  for (const tuning of [false, true]) {
    const s = traced(tuning);
    console.log(
      tuning ? 'with the batch flags `revloop run` sets:' : "with V8's defaults (REVLOOP_V8_TUNING=0, as in an application's process):",
    );
    console.log(
      `  Turbofan: ${s.compilations} compilations of ${s.functions} functions, ${s.ms.toFixed(0)} ms as V8 reports them; ` +
        `${s.recompileMs.toFixed(0)} ms recompiling ${s.recompiled.length} functions`,
    );
    for (const [name, n, ms] of s.recompiled.slice(0, 10)) console.log(`    recompiled ${name} ×${n}: ${ms.toFixed(1)} ms`);
    console.log(`  deoptimisations in revloop's code: ${s.deopts.reduce((sum, [, n]) => sum + n, 0)}`);
    for (const [key, n] of s.deopts) console.log(`    ${n}× ${key}`);
  }
} finally {
  await server.close();
}
