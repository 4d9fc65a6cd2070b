// A full `revloop run` (case loading, plan, engine, store, progress) through serve-sim over HTTP:
// SIMULATED controllers with a fixed latency per generation, the OpenAI-compatible backend, and N
// trajectories in flight. Prints the wall time against the ideal for the same work — every
// trajectory is a chain of generations, so the ideal is max(Σ rounds / N, max rounds) × latency —
// for the loop alone and for the whole command. Target: ≥ 90% of ideal.
//
//   npx tsx bench/run-http.ts [--latency-ms 50] [--concurrency 32] [--limit 480] [--profile steady] [--same-process] [--in-process]
//
// --in-process skips HTTP (the sim model runs in this process with the same latency), which
// separates the engine and store from the HTTP client and server. Besides the fluid ideal the
// script prints the makespan of a zero-overhead client that schedules trajectories as revloop does
// (in case order, each on the first free slot), so scheduling tail and per-call overhead are told apart.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../src/loop/run-command.ts';
import { openStore } from '../src/store/store.ts';
import { sharedDataFile } from '../src/util/shared-data.ts';
import { benchServer } from './http-lib.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const latencyMs = Number(arg('latency-ms', '50'));
const concurrency = Number(arg('concurrency', '32'));
const limit = arg('limit', '480');
const profile = arg('profile', 'steady');
const casesPath = sharedDataFile('paper-cases', 'generation_combined480.jsonl');
if (!casesPath) {
  console.log('bench/run-http: ../shared/data/paper-cases/generation_combined480.jsonl not found (set REVLOOP_SHARED); nothing measured');
  process.exit(0);
}

const inProcess = process.argv.includes('--in-process');
const server = inProcess ? { url: '', close: async () => undefined } : await benchServer({ latencyMs, spawnCli: !process.argv.includes('--same-process') });
const modelSpec = inProcess ? `sim:${profile}?latency_ms=${latencyMs}` : `openai-compatible:${server.url}#sim:${profile}`;

/** Makespan of list scheduling in case order on `slots` slots (each trajectory a chain of rounds). */
function listSchedule(rounds: number[], slots: number, latency: number): number {
  const free = Array<number>(slots).fill(0);
  for (const r of rounds) {
    let k = 0;
    for (let j = 1; j < slots; j++) if (free[j] < free[k]) k = j;
    free[k] += r * latency;
  }
  return Math.max(...free);
}
const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-http-'));
const storePath = join(dir, 'runs.db');
try {
  let loopStart = 0;
  const err = {
    isTTY: false,
    write: (s: string) => {
      if (!loopStart && s.includes(' done')) loopStart = performance.now();
      return true;
    },
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const code = await runCommand(
    { cases: casesPath, model: modelSpec, store: storePath, runId: 'bench', concurrency: String(concurrency), limit, retries: '0', timeout: '30' },
    { out: { write: () => true }, err },
  );
  const end = performance.now();
  const cpu = process.cpuUsage(cpu0);
  if (code !== 0) throw new Error(`run exited with ${code}`);

  const store = openStore(storePath, { readonly: true });
  const ts = store.loadTrajectories(['bench']);
  const summary = store.listRuns()[0];
  store.close();
  const rounds = ts.map((t) => t.rounds.length);
  const total = rounds.reduce((a, b) => a + b, 0);
  const ideal = Math.max(total / concurrency, Math.max(...rounds)) * latencyMs;
  const loop = end - loopStart;
  const whole = end - t0;
  const scheduled = listSchedule(rounds, concurrency, latencyMs);
  const how = inProcess ? 'in-process sim model, no HTTP' : `via serve-sim (${process.argv.includes('--same-process') ? 'same process' : 'child process'})`;
  console.log(`bench/run-http — SIMULATED controller sim:${profile} ${how}, latency ${latencyMs} ms, concurrency ${concurrency}`);
  console.log(`${ts.length} trajectories, ${total} generations (${summary.failedAttempts} failed attempts), ${summary.successes} joint successes`);
  console.log(`ideal ${(ideal / 1000).toFixed(2)} s = max(${total} / ${concurrency}, ${Math.max(...rounds)}) × ${latencyMs} ms`);
  console.log(`loop (plan done → last event) ${(loop / 1000).toFixed(2)} s: ${((100 * ideal) / loop).toFixed(1)}% of ideal (target ≥ 90%)`);
  console.log(`zero-overhead client with revloop's scheduling: ${(scheduled / 1000).toFixed(2)} s (${((100 * ideal) / scheduled).toFixed(1)}% of ideal); the loop reaches ${((100 * scheduled) / loop).toFixed(1)}% of it`);
  console.log(`whole command (load cases, plan, loop, summary) ${(whole / 1000).toFixed(2)} s: ${((100 * ideal) / whole).toFixed(1)}% of ideal`);
  console.log(`throughput ${((total / loop) * 1000).toFixed(1)} generations/s; ideal ${((concurrency / latencyMs) * 1000).toFixed(1)} /s while ${concurrency} trajectories remain`);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `client CPU ${(cpuMs / 1000).toFixed(2)} s = ${(cpuMs / total).toFixed(2)} ms per generation (the loop keeps up only below ${(latencyMs / concurrency).toFixed(2)} ms); ` +
      `machine: ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
