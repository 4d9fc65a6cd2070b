// Throughput of 1, 2 and 4 `revloop worker` processes sharing one run in PostgreSQL, against
// serve-sim (a child process) at 200 ms latency: SIMULATED controllers, the OpenAI-compatible
// backend, every round committed under its lease. Needs a PostgreSQL URL in REVLOOP_BENCH_PG (or
// REVLOOP_TEST_PG); each measurement uses a fresh schema, dropped afterwards.
//
//   REVLOOP_BENCH_PG=postgres://user@127.0.0.1:5432/db npx tsx bench/workers.ts [--workers 1,2,4] [--concurrency 16] [--latency-ms 200] [--limit 480] [--repeat 1] [--pg-delay-ms 0]
//
// --pg-delay-ms N puts the workers' database behind a TCP proxy that delays every chunk N ms each
// way (bench/delay-proxy.ts, in this process): workers on other machines than the database.
// For each number of workers it prints generations per second (a) in the steady state, while all
// workers × concurrency trajectory slots are busy (from the events' commit times, as bench/run-http.ts),
// (b) over the active window (first generation started → last event) and (c) over the whole
// makespan including process start-up; the scaling against one worker; the ideal (slots ÷
// latency); and the CPU the worker processes, serve-sim and the machine spent, because on a small
// machine the CPU is what stops the scaling.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runCases } from '../src/app/run.ts';
import { openStore } from '../src/store/store.ts';
import { sharedDataFile } from '../src/core/util/shared-data.ts';
import { benchServer, machineLine, pct, steadyState, type Span } from './http-lib.ts';
import { delayProxy, schemaUrl } from './delay-proxy.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const PG_URL = process.env.REVLOOP_BENCH_PG || process.env.REVLOOP_TEST_PG;
const casesPath = sharedDataFile('paper-cases', 'generation_combined480.jsonl');
if (!PG_URL || !casesPath) {
  console.log(
    `bench/workers: ${!PG_URL ? 'set REVLOOP_BENCH_PG (or REVLOOP_TEST_PG) to a PostgreSQL URL' : '../shared/data/paper-cases/generation_combined480.jsonl not found (set REVLOOP_SHARED)'}; nothing measured`,
  );
  process.exit(0);
}
const counts = arg('workers', '1,2,4').split(',').map(Number);
const concurrency = Number(arg('concurrency', '16'));
const latencyMs = Number(arg('latency-ms', '200'));
const limit = Number(arg('limit', '480'));
const repeat = Number(arg('repeat', '1'));
const pgDelayMs = Number(arg('pg-delay-ms', '0'));
const BIN = fileURLToPath(new URL('../bin/revloop.mjs', import.meta.url));
const load0 = loadavg()[0];
const TICK = 100; // clock ticks per second in /proc/<pid>/stat (USER_HZ)

/** CPU seconds of a process and its waited-for children so far (Linux /proc). */
function cpuSeconds(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK;
  } catch {
    return NaN;
  }
}

/** Machine-wide busy CPU seconds (all cores) so far. */
function machineBusy(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / TICK;
}

async function dropSchema(schema: string): Promise<void> {
  const u = new URL(PG_URL!);
  u.searchParams.delete('schema');
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

interface Result {
  workers: number;
  generations: number;
  steady: number | null;
  active: number;
  makespan: number;
  workerCpu: number;
  serverCpu: number;
  machineCpu: number;
  wallS: number;
}

const server = await benchServer({ latencyMs, spawnCli: true });
const serverPid = server.pid;
const model = `openai-compatible:${server.url}#sim:steady`;
const target = new URL(PG_URL);
const proxy = pgDelayMs > 0 ? await delayProxy(target.hostname, Number(target.port || 5432), pgDelayMs) : null;

async function measure(k: number): Promise<Result> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const store = schemaUrl(PG_URL!, schema);
  try {
    await runCases({
      cases: casesPath!,
      model,
      store,
      runId: 'bench',
      limit,
      concurrency,
      workers: 0,
      modelOptions: { maxRetries: 0, timeout: 60_000 },
    });
    const serverCpu0 = serverPid ? cpuSeconds(serverPid) : NaN;
    const machine0 = machineBusy();
    const t0 = performance.now();
    const children: ChildProcess[] = [];
    const cpuAtExit: number[] = [];
    const exits = Array.from({ length: k }, (_, i) => {
      const child = spawn(
        process.execPath,
        [
          BIN,
          'worker',
          '--store',
          proxy ? schemaUrl(PG_URL!, schema, proxy.port) : store,
          '--run',
          'bench',
          '--concurrency',
          String(concurrency),
          '--lease-seconds',
          '60',
          '--retries',
          '0',
          '--timeout',
          '60',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      children.push(child);
      let err = '';
      child.stderr!.on('data', (d) => (err += d));
      // Sample the child's CPU just before it is reaped (its /proc entry goes with it).
      const sampler = setInterval(() => {
        const c = cpuSeconds(child.pid!);
        if (Number.isFinite(c)) cpuAtExit[i] = c;
      }, 50);
      return new Promise<void>((resolve, reject) =>
        child.on('exit', (code) => {
          clearInterval(sampler);
          if (code === 0) resolve();
          else reject(new Error(`worker ${i + 1} exited ${code}: ${err.slice(-2000)}`));
        }),
      );
    });
    await Promise.all(exits);
    const wallS = (performance.now() - t0) / 1000;
    const machineCpu = machineBusy() - machine0;
    const serverCpu = serverPid ? cpuSeconds(serverPid) - serverCpu0 : NaN;
    const s = await openStore(store, { readonly: true });
    const events = await s.readEvents('bench');
    const summary = (await s.listRuns())[0];
    await s.close();
    const spans = new Map<number, Span>();
    const finished: number[] = [];
    let firstStart = Infinity;
    let last = 0;
    for (const e of events) {
      const t = Date.parse(e.at);
      last = Math.max(last, t);
      if (e.caseIndex === null) continue;
      if (e.type === 'attempt_started') {
        firstStart = Math.min(firstStart, t);
        if (!spans.has(e.caseIndex)) spans.set(e.caseIndex, { start: t, end: Infinity });
      }
      if (e.type === 'attempt_finished') finished.push(t);
      if (e.type === 'trajectory_completed' || e.type === 'trajectory_incomplete') spans.get(e.caseIndex)!.end = t;
    }
    const steady = steadyState([...spans.values()], finished, k * concurrency);
    return {
      workers: k,
      generations: summary.rounds,
      steady: steady?.perSecond ?? null,
      active: (summary.rounds / (last - firstStart)) * 1000,
      makespan: summary.rounds / wallS,
      workerCpu: cpuAtExit.reduce((a, b) => a + (b ?? 0), 0),
      serverCpu,
      machineCpu,
      wallS,
    };
  } finally {
    await dropSchema(schema);
  }
}

try {
  console.log(
    `bench/workers — SIMULATED controller sim:steady via serve-sim (child process), latency ${latencyMs} ms; ${limit} exact-length cases, budget 8; ` +
      `each worker --concurrency ${concurrency}; PostgreSQL ${target.host}${proxy ? ` behind a proxy adding ${pgDelayMs} ms each way (workers only)` : ''}; ${cpus().length} CPUs`,
  );
  const results: Result[] = [];
  for (let r = 0; r < repeat; r++) {
    for (const k of counts) {
      const res = await measure(k);
      results.push(res);
      const one = results.find((x) => x.workers === 1);
      const ideal = (k * concurrency * 1000) / latencyMs;
      const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(1));
      console.log(
        `${k} worker${k === 1 ? ' ' : 's'}: ${res.generations} generations · (a) steady ${f(res.steady)}/s = ${res.steady ? pct(res.steady / ideal) : 'n/a'} of ideal ${ideal.toFixed(0)}/s` +
          ` · (b) active window ${f(res.active)}/s · (c) makespan ${f(res.makespan)}/s (${res.wallS.toFixed(1)} s incl. start-up)` +
          (one && k !== 1 && one.steady && res.steady
            ? ` · scaling vs 1 worker: steady ${(res.steady / one.steady).toFixed(2)}×, active ${(res.active / one.active).toFixed(2)}×`
            : '') +
          ` · CPU: workers ${res.workerCpu.toFixed(1)} s (${((1000 * res.workerCpu) / res.generations).toFixed(2)} ms/gen), serve-sim ${res.serverCpu.toFixed(1)} s, machine ${res.machineCpu.toFixed(1)} of ${(cpus().length * res.wallS).toFixed(1)} CPU-s (${pct(res.machineCpu / (cpus().length * res.wallS))} busy)`,
      );
    }
  }
  console.log(machineLine(load0));
} finally {
  proxy?.close();
  await server.close();
}
