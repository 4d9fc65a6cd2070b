// A full `revloop run` (case loading, plan, engine, store, progress) through serve-sim over HTTP:
// SIMULATED controllers with a fixed latency per generation, the OpenAI-compatible backend, and N
// trajectories in flight. Issue 3's target: steady-state throughput ≥ 90% of concurrency ÷ latency.
//
//   npx tsx bench/run-http.ts [--latency-ms 50] [--concurrency 32] [--limit 480] [--profile steady] [--same-process] [--in-process] [--no-ceiling] [--dist]
//                             [--client http1|undici|undici-dispatch] [--vs-undici [--runs 5]]
//
// Prints, from the events the run stored:
//   (a) steady state: generations finished per second while all N trajectory slots were busy (from
//       the first generation that finished after the N-th trajectory started, to the first
//       trajectory that ended after the last one started), against N ÷ latency;
//   (b) makespan: the loop's wall time against the ideal for the same work, max(Σ rounds / N,
//       max rounds) × latency, and against a zero-overhead client that schedules trajectories as
//       revloop does (in case order, each on the first free slot), so the scheduling tail and
//       per-call overhead are told apart;
//   (c) the machine's ceiling, measured in the same run: a trivial server in a child process (where
//       serve-sim runs) and a trivial node:http keep-alive client under the same load;
// then the client's CPU per generation, for the whole command and within the steady-state window
// (the loop's own cost, what decides whether one event loop keeps up: sampled every 20 ms and
// interpolated at the window's ends), how busy its event loop was, and the machine load.
// --in-process skips HTTP (the sim model runs in this process with the same latency), which
// separates the engine and store from the HTTP client and server. --dist runs the compiled library
// (dist/, what the revloop command runs; `npm run build` first) instead of the sources through tsx.
// --client undici|undici-dispatch runs the same command with the backend's exchange over undici's
// Pool (bench/undici-exchange.ts, swapped in by a module hook: bench/undici-hook.mjs) instead of
// revloop's HTTP/1.1 client; --client http1 goes through the same hook to the real client (the
// hook's own thread costs a process about 0.3 s of CPU at start-up, the same for every client).
// --vs-undici runs the command for each client in turn, in alternating
// runs (each a fresh process, the order turning each run), and prints the medians of their client
// CPU per generation and the ratios to http1's (docs/performance.md#http-client).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDataFile } from '../src/core/util/shared-data.ts';
import { benchServer, machineCeiling, machineLine, pct, requestPool, steadyState, type Span } from './http-lib.ts';

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
if (process.argv.includes('--vs-undici')) {
  versusUndici();
  process.exit(0);
}

/** This command for each client, in alternating runs (fresh processes); medians and ratios of CPU per generation. */
function versusUndici(): void {
  const runs = Number(arg('runs', '5'));
  const drop = new Set(['--vs-undici', '--runs', '--client']);
  const rest = process.argv.slice(2).filter((a, i, all) => !drop.has(a) && !['--runs', '--client'].includes(all[i - 1]));
  const clients = ['http1', 'undici', 'undici-dispatch'];
  const whole = new Map<string, number[]>(clients.map((c) => [c, []]));
  const steadyCpu = new Map<string, number[]>(clients.map((c) => [c, []]));
  const load0 = loadavg()[0];
  console.log(
    `bench/run-http --vs-undici — ${runs} alternating runs of bench/run-http.ts${rest.length ? ' ' + rest.join(' ') : ''} per client (SIMULATED controller via serve-sim)`,
  );
  for (let i = 0; i < runs; i++) {
    const order = i % 2 ? [...clients].reverse() : clients;
    const line: string[] = [];
    for (const c of order) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...rest, '--client', c], {
        encoding: 'utf8',
        timeout: 600_000,
      });
      const out = r.stdout + r.stderr;
      const cpu = /= ([\d.]+) ms per generation/.exec(out);
      const steady = /steady-state client CPU: ([\d.]+) ms per generation/.exec(out);
      if (r.status !== 0 || !cpu) throw new Error(`bench/run-http.ts --client ${c} failed (exit ${r.status}):\n${out}`);
      whole.get(c)!.push(Number(cpu[1]));
      if (steady) steadyCpu.get(c)!.push(Number(steady[1]));
      const rate = /steady state: [\d.]+ generations\/s = ([\d.]+)% of ideal/.exec(out)?.[1] ?? '?';
      line.push(`${c} ${cpu[1]} ms (steady window ${steady?.[1] ?? '?'} ms, ${rate}% of ideal)`);
    }
    console.log(`run ${i + 1}: client CPU per generation ${line.join(' · ')} · load ${loadavg()[0].toFixed(2)}`);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  for (const [what, m] of [
    ['whole command', whole],
    ['steady window', steadyCpu],
  ] as const) {
    const base = median(m.get('http1')!);
    console.log(
      `median client CPU per generation, ${what}: ` +
        clients.map((c) => `${c} ${median(m.get(c)!).toFixed(3)} ms (${((100 * median(m.get(c)!)) / base).toFixed(0)}%)`).join(' · '),
    );
  }
  console.log(
    `rule (issue 38): adopt undici if its CPU per request is within 10% of http1's; machine: load average (1 min) ${load0.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end`,
  );
}

const client = arg('client', 'http1');
if (!['http1', 'undici', 'undici-dispatch'].includes(client)) {
  console.error(`bench/run-http: --client must be http1, undici or undici-dispatch, got ${client}`);
  process.exit(2);
}
const fromDist = process.argv.includes('--dist');
if (fromDist && !existsSync(new URL('../dist/app/run.js', import.meta.url))) {
  console.error('bench/run-http: --dist needs the compiled library: run `npm run build` first');
  process.exit(2);
}
// The library as the revloop command runs it (dist/) or as tests run it (src/ through tsx).
const lib = fromDist ? '../dist' : '../src';
const ext = fromDist ? 'js' : 'ts';
if (process.argv.includes('--client')) {
  // The transport's exchange over undici instead of revloop's HTTP/1.1 client (before the library
  // loads); with --client http1 the same hook passes the real one through, so all three load alike.
  process.env.REVLOOP_BENCH_CLIENT = client;
  process.env.REVLOOP_BENCH_NODE_FETCH = new URL(`${lib}/models/http/node-fetch.${ext}`, import.meta.url).href;
  register('./undici-hook.mjs', import.meta.url, { data: { shim: new URL('./undici-node-fetch.ts', import.meta.url).href } });
}
const { runCases } = (await import(`${lib}/app/run.${ext}`)) as typeof import('../src/app/run.ts');
const { openStore } = (await import(`${lib}/store/store.${ext}`)) as typeof import('../src/store/store.ts');
const load0 = loadavg()[0];
const inProcess = process.argv.includes('--in-process');
const sameProcess = process.argv.includes('--same-process');
const idealRate = (concurrency / latencyMs) * 1000;
const fmt = (x: number, d = 1) => x.toFixed(d);

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

/** CPU (µs) at time `t`, linearly between the samples around it. */
function cpuAt(samples: ReadonlyArray<[number, number]>, t: number): number {
  const i = samples.findIndex(([at]) => at >= t);
  if (i < 0) return samples[samples.length - 1][1];
  if (i === 0) return samples[0][1];
  const [t0, c0] = samples[i - 1];
  const [t1, c1] = samples[i];
  return t1 === t0 ? c1 : c0 + ((c1 - c0) * (t - t0)) / (t1 - t0);
}

// (c) first, so the revloop run below does not share the machine with it.
const ceiling =
  inProcess || process.argv.includes('--no-ceiling')
    ? null
    : await machineCeiling({ latencyMs, concurrency, requests: 2000, inChild: !sameProcess, client: 'node:http', pool: requestPool(500) });

const server = inProcess ? { url: '', close: async () => undefined } : await benchServer({ latencyMs, spawnCli: !sameProcess });
const modelSpec = inProcess ? `sim:${profile}?latency_ms=${latencyMs}` : `openai-compatible:${server.url}#sim:${profile}`;
const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-http-'));
const storePath = join(dir, 'runs.db');
try {
  let loopStart = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  // (time on the events' clock, CPU µs so far): the steady window's CPU is read off these.
  const cpuSamples: Array<[number, number]> = [];
  const sampleCpu = () => {
    const u = process.cpuUsage(cpu0);
    cpuSamples.push([Date.now(), u.user + u.system]);
  };
  sampleCpu();
  const sampler = setInterval(sampleCpu, 20);
  const outcome = await runCases(
    {
      cases: casesPath,
      model: modelSpec,
      modelOptions: { maxRetries: 0, timeout: 30_000 },
      store: storePath,
      runId: 'bench',
      concurrency,
      limit: Number(limit),
    },
    { onProgress: (p) => (loopStart ||= p.done > 0 ? performance.now() : 0) },
  );
  const end = performance.now();
  clearInterval(sampler);
  sampleCpu();
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0).utilization;
  if (outcome.result.stopped) throw new Error(`run stopped: ${outcome.result.stopped.message}`);

  const store = await openStore(storePath, { readonly: true });
  const ts = await store.loadTrajectories(['bench']);
  const summary = (await store.listRuns())[0];
  const events = await store.readEvents('bench');
  await store.close();

  // Slots are trajectories: from their first attempt_started to their end marker. Generations
  // finish at their attempt_finished events. Event times are the commit times (ms resolution).
  const spans = new Map<number, Span>();
  const finished: number[] = [];
  for (const e of await events) {
    if (e.caseIndex === null) continue;
    const t = Date.parse(e.at);
    if (e.type === 'attempt_started' && !spans.has(e.caseIndex)) spans.set(e.caseIndex, { start: t, end: Infinity });
    if (e.type === 'attempt_finished') finished.push(t);
    if (e.type === 'trajectory_completed' || e.type === 'trajectory_incomplete') spans.get(e.caseIndex)!.end = t;
  }
  const steady = steadyState([...spans.values()], finished, concurrency);

  const rounds = (await ts).map((t) => t.rounds.length);
  const total = await rounds.reduce((a, b) => a + b, 0);
  const ideal = Math.max(total / concurrency, Math.max(...rounds)) * latencyMs;
  const loop = end - loopStart;
  const whole = end - t0;
  const scheduled = listSchedule(rounds, concurrency, latencyMs);
  const how =
    (inProcess ? 'in-process sim model, no HTTP' : `via serve-sim (${sameProcess ? 'same process' : 'child process'})`) +
    (fromDist ? ', compiled library (dist/)' : ', sources through tsx');
  const via = inProcess
    ? ''
    : `, HTTP client ${client === 'http1' ? "revloop's own (http1.ts)" : `undici's Pool (${client === 'undici' ? 'request()' : 'dispatch()'})`}`;
  console.log(`bench/run-http — SIMULATED controller sim:${profile} ${how}, latency ${latencyMs} ms, concurrency ${concurrency}${via}`);
  console.log(
    `${(await ts).length} trajectories, ${total} generations (${summary.failedAttempts} failed attempts), ${summary.successes} joint successes`,
  );
  console.log(`ideal rate ${fmt(idealRate)} generations/s (concurrency ÷ latency); target: steady state ≥ 90% of it`);
  if (steady) {
    console.log(
      `(a) steady state: ${fmt(steady.perSecond)} generations/s = ${pct(steady.perSecond / idealRate)} of ideal ` +
        `(${steady.completions} generations in ${fmt(steady.windowMs / 1000, 2)} s with all ${concurrency} trajectory slots busy)`,
    );
  } else console.log(`(a) steady state: not reached (fewer than ${concurrency} trajectories)`);
  console.log(
    `(b) makespan: loop (plan done → last event) ${fmt(loop / 1000, 2)} s against ideal ${fmt(ideal / 1000, 2)} s = max(${total} / ${concurrency}, ${Math.max(...rounds)}) × ${latencyMs} ms: ${pct(ideal / loop)}; ` +
      `a zero-overhead client with revloop's scheduling needs ${fmt(scheduled / 1000, 2)} s (${pct(ideal / scheduled)} of ideal; the loop reaches ${pct(scheduled / loop)} of it); ` +
      `whole command (load cases, plan, loop, summary) ${fmt(whole / 1000, 2)} s: ${pct(ideal / whole)}`,
  );
  if (ceiling?.steady) {
    console.log(
      `(c) machine ceiling, trivial server (${sameProcess ? 'same process' : 'child process'}) + node:http keep-alive client, same load: ${fmt(ceiling.steady.perSecond)} req/s = ${pct(ceiling.steady.perSecond / idealRate)} of ideal; ` +
        (steady ? `revloop's steady state reaches ${pct(steady.perSecond / ceiling.steady.perSecond)} of it` : ''),
    );
  }
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `client CPU ${fmt(cpuMs / 1000, 2)} s for the whole command = ${fmt(cpuMs / total, 2)} ms per generation (one event loop keeps up only below ${fmt(latencyMs / concurrency, 2)} ms); ` +
      `event loop busy ${pct(elu)} of the command; ${machineLine(load0)}`,
  );
  if (steady) {
    const steadyCpuMs = (cpuAt(cpuSamples, steady.to) - cpuAt(cpuSamples, steady.from)) / 1000;
    console.log(
      `steady-state client CPU: ${fmt(steadyCpuMs / steady.completions, 2)} ms per generation (${fmt(steadyCpuMs, 0)} ms for the ${steady.completions} generations of the steady window)`,
    );
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
