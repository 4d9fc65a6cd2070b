// How many commits per second writers sharing one run get from PostgreSQL when the database is a
// network hop away. Every append holds the schema's append lock from its probe of the chain head to
// COMMIT, so the round trips inside that window bound the whole run's commit rate, however many
// workers there are. The bench puts a TCP proxy with a fixed one-way delay in front of the server (a
// LAN hop, in-process) and compares pipelined connections (the default: lock + probe in one round
// trip, rows + COMMIT in the next) with one statement per round trip (REVLOOP_PG_PIPELINE=0), the
// two alternating, each in a fresh child process and a fresh schema. After its commits, each child
// also reads one trajectory at a time, as a worker does after every claim (two reads from one
// snapshot: BEGIN, both SELECTs and COMMIT in one round trip when pipelined, four otherwise).
//
//   REVLOOP_BENCH_PG=postgres://user@127.0.0.1:5432/db npx tsx bench/append-lock.ts [--delay-ms 1] [--writers 1,4,8] [--commits 150] [--repeat 2]
//
// Each writer is a store of its own (its own connections), appending one-event groups to the same run
// one after another, as a worker commits its rounds. Prints commits per second over all writers, the
// median commit latency and the writer process's CPU per commit, per mode, and the ratio; then the
// median time to read one trajectory, per mode.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runCases } from '../src/app/run.ts';
import { exactLengthDemoCases } from '../src/app/demo/cases.ts';
import { writeCaseSet } from '../src/core/cases/write.ts';
import { openStore } from '../src/store/store.ts';
import type { NewEvent } from '../src/store/events.ts';
import { percentile } from './http-lib.ts';
import { delayProxy, schemaUrl } from './delay-proxy.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const PG_URL = process.env.REVLOOP_BENCH_PG || process.env.REVLOOP_TEST_PG;
if (!PG_URL) {
  console.log('bench/append-lock: set REVLOOP_BENCH_PG (or REVLOOP_TEST_PG) to a PostgreSQL URL; nothing measured');
  process.exit(0);
}

interface ChildResult {
  commits: number;
  seconds: number;
  latenciesMs: number[];
  /** The writer process's CPU (user + system) over the appends. */
  cpuSeconds: number;
  /** Reading one trajectory of the run, one read at a time. */
  readsMs: number[];
}

const started = (caseIndex: number, revision: number): NewEvent => ({
  type: 'attempt_started',
  caseIndex,
  revision,
  payload: { messages_sha256: randomBytes(32).toString('hex'), message_count: 1 + 2 * revision, max_tokens: 375 },
});

/** Child: `writers` stores append `commits` groups each to run 'lock' in the given store. */
async function child(store: string, writers: number, commits: number): Promise<void> {
  const stores = await Promise.all(Array.from({ length: writers }, () => openStore(store)));
  const latenciesMs: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    stores.map(async (s, w) => {
      for (let i = 0; i < commits; i++) {
        const t = performance.now();
        await s.append('lock', [started(w % 8, i)]);
        latenciesMs.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const readsMs: number[] = [];
  for (let i = 0; i < 40; i++) {
    const t = performance.now();
    await stores[0].loadTrajectories(['lock'], { cases: [i % 8] });
    readsMs.push(performance.now() - t);
  }
  await Promise.all(stores.map((s) => s.close()));
  const out: ChildResult = { commits: writers * commits, seconds, latenciesMs, cpuSeconds: (cpu.user + cpu.system) / 1e6, readsMs };
  process.stdout.write(JSON.stringify(out));
}

async function dropSchema(schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

/** A store with run 'lock' planned (a genuine plan, from a tiny run of the demo cases). */
async function plannedSchema(dir: string): Promise<string> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const store = schemaUrl(PG_URL!, schema);
  const cases = `${dir}/cases.jsonl`;
  await writeCaseSet(cases, exactLengthDemoCases());
  await runCases({ cases, model: 'sim:instant', store, runId: 'seed', limit: 8 });
  const s = await openStore(store);
  await s.createRun('lock', (await s.getPlanned('seed'))!);
  await s.close();
  return schema;
}

function runChild(store: string, writers: number, commits: number, pipelined: boolean): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', store, String(writers), String(commits)],
      {
        env: { ...process.env, REVLOOP_PG_PIPELINE: pipelined ? '1' : '0' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as ChildResult) : reject(new Error(`writer process exited ${code}`))));
  });
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
} else {
  const delayMs = Number(arg('delay-ms', '1'));
  const writerCounts = arg('writers', '1,4,8').split(',').map(Number);
  const commits = Number(arg('commits', '150'));
  const repeat = Number(arg('repeat', '2'));
  const target = new URL(PG_URL);
  const proxy = await delayProxy(target.hostname, Number(target.port || 5432), delayMs);
  const dir = mkdtempSync(`${tmpdir()}/revloop-append-lock-`);
  console.log(
    `bench/append-lock — PostgreSQL ${target.hostname}:${target.port || 5432} behind a proxy adding ${delayMs} ms each way (${delayMs ? `round trip ≥ ${2 * delayMs} ms` : 'loopback, one more hop'}); ${commits} one-event commits per writer, writers sharing one run; ${repeat} alternating measurements per mode`,
  );
  try {
    for (const writers of writerCounts) {
      const rates: Record<'pipelined' | 'sequential', number[]> = { pipelined: [], sequential: [] };
      const lat: Record<'pipelined' | 'sequential', number[]> = { pipelined: [], sequential: [] };
      const cpu: Record<'pipelined' | 'sequential', number[]> = { pipelined: [], sequential: [] };
      const reads: Record<'pipelined' | 'sequential', number[]> = { pipelined: [], sequential: [] };
      for (let r = 0; r < repeat; r++)
        for (const mode of ['sequential', 'pipelined'] as const) {
          const schema = await plannedSchema(dir);
          try {
            const res = await runChild(schemaUrl(PG_URL, schema, proxy.port), writers, commits, mode === 'pipelined');
            rates[mode].push(res.commits / res.seconds);
            lat[mode].push(percentile(res.latenciesMs, 50));
            cpu[mode].push((res.cpuSeconds / res.commits) * 1e6);
            reads[mode].push(...res.readsMs);
          } finally {
            await dropSchema(schema);
          }
        }
      const med = (xs: number[]) => percentile(xs, 50);
      const line = (mode: 'pipelined' | 'sequential') =>
        `${mode}: ${med(rates[mode]).toFixed(0)} commits/s (${rates[mode].map((x) => x.toFixed(0)).join(', ')}), median commit ${med(lat[mode]).toFixed(1)} ms, writer CPU ${med(cpu[mode]).toFixed(0)} µs/commit`;
      console.log(
        `${writers} writer${writers === 1 ? ' ' : 's'}: ${line('sequential')} · ${line('pipelined')} · ${(med(rates.pipelined) / med(rates.sequential)).toFixed(2)}×`,
      );
      console.log(
        `  reading one trajectory afterwards (as after a claim): sequential ${med(reads.sequential).toFixed(1)} ms · pipelined ${med(reads.pipelined).toFixed(1)} ms (medians of ${reads.pipelined.length})`,
      );
    }
  } finally {
    proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
