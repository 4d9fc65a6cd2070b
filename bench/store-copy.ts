// `revloop store copy` of a paper-scale store: the benchmark panel (bench/panel-store.ts, 19
// SIMULATED controllers × the paper's 1,440 cases, ~0.9 GB) copied SQLite → SQLite, and → PostgreSQL
// when REVLOOP_BENCH_PG names a server. Each copy runs in a fresh child process over the compiled
// library (dist/), with three retention budgets alternating (src/store/copy.ts):
//
//   everything kept  every run held from the check to the write — how copies worked before the
//                    two-pass copy: memory grows with the whole store
//   default          the first pass keeps up to 64 Mi payload characters, the rest is read again
//   none (0)         every run read twice, one run in memory at a time
//
// and prints wall time, CPU (user + system) and peak RSS of each, and whether it finished. With
// --heap-mb N the children run with --max-old-space-size=N, which shows what fits in N MB of heap.
//
//   npx tsx bench/store-copy.ts [--repeat 1] [--heap-mb N] [--rebuild]
// All trajectories come from SIMULATED controllers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { PROJECT_ROOT } from '../src/core/util/shared-data.ts';
import { panelCasesAvailable, panelStore } from './panel-store.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

if (!panelCasesAvailable()) {
  console.log('bench/store-copy: the paper case files in ../shared/data are missing (set REVLOOP_SHARED); nothing measured');
  process.exit(0);
}
const repeat = Number(arg('repeat', '1'));
const heapMb = process.argv.includes('--heap-mb') ? Number(arg('heap-mb', '0')) : null;
const pgUrl = process.env.REVLOOP_BENCH_PG || null;

const build = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build.mjs'), '--if-stale'], { encoding: 'utf8' });
if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
const source = await panelStore(process.argv.includes('--rebuild'));

const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-copy-'));
const child = join(dir, 'copy.mjs');
const dist = (p: string) => pathToFileURL(join(PROJECT_ROOT, 'dist', p)).href;
writeFileSync(
  child,
  `import { copyRuns } from '${dist('store/copy.js')}';\n` +
    `import { openStore } from '${dist('store/store.js')}';\n` +
    'const [from, to, budget] = process.argv.slice(2);\n' +
    'const src = await openStore(from, { readonly: true });\n' +
    'const dst = await openStore(to);\n' +
    "const copied = await copyRuns(src, dst, { retainedPayloadChars: budget === 'all' ? Infinity : budget === 'default' ? undefined : Number(budget) });\n" +
    'await dst.close();\n' +
    'await src.close();\n' +
    'const events = copied.reduce((n, r) => n + r.copied, 0);\n' +
    'console.log(JSON.stringify({ runs: copied.length, events, maxRssKb: process.resourceUsage().maxRSS }));\n',
);

const BUDGETS = [
  ['everything kept', 'all'],
  ['default (64 Mi)', 'default'],
  ['none (0)', '0'],
] as const;

async function dropSchema(schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: pgUrl! });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

console.log(
  `bench/store-copy — the panel store (${source.path}, SIMULATED controllers), ${repeat} round(s), budgets alternating${heapMb ? `, children with --max-old-space-size=${heapMb}` : ''}; load ${loadavg()[0].toFixed(2)}`,
);
try {
  const targets: Array<['sqlite' | 'postgres', number]> = [];
  for (let i = 0; i < repeat; i++) {
    targets.push(['sqlite', i]);
    if (pgUrl) targets.push(['postgres', i]);
  }
  for (const [backend, round] of targets) {
    const order = round % 2 ? [...BUDGETS].reverse() : BUDGETS;
    for (const [label, budget] of order) {
      const schema = `bench_copy_${process.pid}_${budget}`;
      const to = backend === 'sqlite' ? join(dir, `copy-${budget}.db`) : `${pgUrl}${pgUrl!.includes('?') ? '&' : '?'}schema=${schema}`;
      const flags = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
      const t0 = performance.now();
      const r = spawnSync(
        'bash',
        ['-c', `"$0" "$@"; code=$?; times >&2; exit $code`, process.execPath, ...flags, child, source.path, to, budget],
        {
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      const wall = (performance.now() - t0) / 1000;
      const times = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(r.stderr.trim());
      const cpu = times ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]) : NaN;
      let line: string;
      if (r.status === 0) {
        const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { runs: number; events: number; maxRssKb: number };
        line = `${out.runs} runs, ${out.events.toLocaleString('en')} events · wall ${wall.toFixed(1)} s · CPU ${cpu.toFixed(1)} s · peak RSS ${(out.maxRssKb / 1024).toFixed(0)} MiB`;
      } else {
        const oom = /heap out of memory|Allocation failed/.test(r.stderr);
        line = `FAILED after ${wall.toFixed(1)} s (${oom ? 'out of heap memory' : `exit ${r.status ?? r.signal}`})${oom ? '' : `\n${r.stderr.slice(-2000)}`}`;
      }
      console.log(`${backend.padEnd(8)} round ${round + 1} · ${label.padEnd(16)}: ${line}`);
      if (backend === 'sqlite') for (const ext of ['', '-wal', '-shm']) rmSync(`${to}${ext}`, { force: true });
      else await dropSchema(schema);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
