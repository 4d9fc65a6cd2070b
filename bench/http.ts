// HTTP throughput of the model layer through serve-sim: the OpenAI-compatible backend (revloop's own
// request building over its keep-alive HTTP client, retry loop and limiter) against SIMULATED controllers with a
// fixed artificial latency. Issue 3's target: steady-state throughput ≥ 90% of concurrency ÷ latency.
//
//   npx tsx bench/http.ts [--latency-ms 50] [--concurrency 32] [--requests 3000] [--profile steady] [--spawn] [--no-ceiling]
//   npx tsx bench/http.ts --vs-undici [--rounds 5] [--spawn] [--latency-ms 50] [--concurrency 32] [--requests 3000]
//
// Prints (a) steady-state throughput (completions per second while all slots are busy) against the
// ideal, (b) the whole batch's wall time against its ideal (ramp-up and drain included), (c) the
// machine's ceiling measured in the same run: a trivial server with a trivial node:http keep-alive
// client (and with Node's fetch, for reference) under the same load, with the server where serve-sim
// is (this process, or a child with --spawn). Then CPU per request and the machine load.
//
// --vs-undici measures the same backend with its exchange over revloop's HTTP/1.1 client (http1)
// and over undici's Pool (request(), and dispatch() with a handler of our own: bench/undici-exchange.ts)
// in one process, in alternating rounds (the order turns each round, so load weighs on all alike),
// and prints each client's CPU per request per round, the medians and their ratio to http1's. With
// --spawn serve-sim runs in a child, so the CPU is the client's alone (docs/performance.md#http-client).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createModel } from '../src/models/index.ts';
import { benchServer, machineCeiling, machineLine, measureModel, pct, percentile, requestPool, type ClosedLoopResult } from './http-lib.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const latencyMs = Number(arg('latency-ms', '50'));
const concurrency = Number(arg('concurrency', '32'));
const requests = Number(arg('requests', '3000'));
const profile = arg('profile', 'steady');
const spawnCli = process.argv.includes('--spawn');
const load0 = loadavg()[0];
const ideal = (concurrency / latencyMs) * 1000;
const fmt = (x: number) => x.toFixed(1);
const steadyOf = (r: ClosedLoopResult) => r.steady?.perSecond ?? NaN;

if (process.argv.includes('--vs-undici')) {
  await versusUndici();
  process.exit(0);
}

/** The backend over each client, alternating rounds of `requests` each; CPU per request of each. */
async function versusUndici(): Promise<void> {
  const { createUndiciExchange } = await import('./undici-exchange.ts');
  const rounds = Number(arg('rounds', '5'));
  const server = await benchServer({ latencyMs, spawnCli });
  const clients = ['http1', 'undici', 'undici-dispatch'] as const;
  type Client = (typeof clients)[number];
  const models = new Map<Client, Awaited<ReturnType<typeof createModel>>>();
  const closers: Array<() => Promise<void>> = [];
  const cpu = new Map<Client, number[]>(clients.map((c) => [c, []]));
  const rate = new Map<Client, number[]>(clients.map((c) => [c, []]));
  try {
    for (const c of clients) {
      const model = await createModel(`openai-compatible:${server.url}#sim:${profile}`, { concurrency, maxRetries: 0, timeout: 30_000 });
      if (c !== 'http1') {
        const exchange = createUndiciExchange(c);
        closers.push(exchange.close);
        (model as unknown as { endpoint: { exchange: unknown } }).endpoint.exchange = exchange;
      }
      models.set(c, model);
    }
    const pool = requestPool(requests);
    // A whole round per client first, not counted: connections open and the JIT settled for all three.
    for (const c of clients) await measureModel(models.get(c)!, pool, concurrency);
    console.log(
      `bench/http --vs-undici — SIMULATED controllers (sim:${profile}) via serve-sim (${spawnCli ? 'child process: CPU is the client alone' : 'same process: CPU includes the server'}); ` +
        `latency ${latencyMs} ms, concurrency ${concurrency}, ${requests} requests per client per round, ${rounds} alternating rounds; undici ${undiciVersion()}`,
    );
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 ? [...clients].reverse() : [...clients];
      const line: string[] = [];
      for (const c of order) {
        const r = await measureModel(models.get(c)!, pool, concurrency);
        if (r.failed) throw new Error(`${c}: ${r.failed} of ${r.requests} requests failed`);
        cpu.get(c)!.push(r.cpuMs / r.requests);
        rate.get(c)!.push(steadyOf(r));
        line.push(`${c} ${(r.cpuMs / r.requests).toFixed(3)} ms (${pct(steadyOf(r) / ideal)})`);
      }
      console.log(`round ${i + 1}: CPU per request ${line.join(' · ')} · load ${loadavg()[0].toFixed(2)}`);
    }
    const med = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    const base = cpu.get('http1')!;
    for (const c of clients) {
      const m = med(cpu.get(c)!);
      // Each round's ratio to http1's in the same round too: drift of the machine between rounds cancels.
      const paired = med(cpu.get(c)!.map((x, i) => x / base[i]));
      console.log(
        `median ${c.padEnd(15)}: ${m.toFixed(3)} ms of CPU per request = ${((100 * m) / med(base)).toFixed(0)}% of http1's; ` +
          `median of the rounds' ratios ${(100 * paired).toFixed(0)}%; steady state ${pct(med(rate.get(c)!) / ideal)} of ideal`,
      );
    }
    console.log(`rule (issue 38): adopt undici if its CPU per request is within 10% of http1's; ${machineLine(load0)}`);
  } finally {
    for (const close of closers) await close();
    await server.close();
  }
}

function undiciVersion(): string {
  return (JSON.parse(readFileSync(new URL('../node_modules/undici/package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

const server = await benchServer({ latencyMs, spawnCli });
let r: ClosedLoopResult;
try {
  const model = await createModel(`openai-compatible:${server.url}#sim:${profile}`, { concurrency, maxRetries: 0, timeout: 30_000 });
  // Warm up connections and the JIT, then measure.
  await measureModel(model, requestPool(concurrency * 4), concurrency);
  r = await measureModel(model, requestPool(requests), concurrency);
} finally {
  await server.close();
}

const where = spawnCli ? 'child process' : 'same process';
console.log(
  `bench/http — SIMULATED controllers (sim:${profile}) via serve-sim (${where}); latency ${latencyMs} ms, concurrency ${concurrency}, ${r.requests} requests, ${r.failed} failed`,
);
console.log(`ideal ${fmt(ideal)} req/s (concurrency ÷ latency); target: steady state ≥ 90% of it`);
console.log(
  `(a) steady state: ${fmt(steadyOf(r))} req/s = ${pct(steadyOf(r) / ideal)} of ideal ` +
    `(${r.steady?.completions ?? 0} completions in ${fmt((r.steady?.windowMs ?? NaN) / 1000)} s with all ${concurrency} slots busy)`,
);
const idealWallMs = Math.ceil(r.requests / concurrency) * latencyMs;
console.log(
  `(b) whole batch: ${fmt(r.wallMs / 1000)} s against ${fmt(idealWallMs / 1000)} s ideal = ${pct(idealWallMs / r.wallMs)} (${fmt(r.overallPerSecond)} req/s, ramp-up and drain included)`,
);
if (!process.argv.includes('--no-ceiling')) {
  const pool = requestPool(Math.min(requests, 1000));
  const http = await machineCeiling({ latencyMs, concurrency, requests, inChild: spawnCli, client: 'node:http', pool });
  const fetch = await machineCeiling({ latencyMs, concurrency, requests, inChild: spawnCli, client: 'fetch', pool });
  console.log(
    `(c) machine ceiling, trivial server (${where}) + node:http keep-alive client: ${fmt(steadyOf(http))} req/s = ${pct(steadyOf(http) / ideal)} of ideal, ` +
      `client CPU ${(http.cpuMs / http.requests).toFixed(2)} ms/req${spawnCli ? '' : ' (server included)'}; revloop reaches ${pct(steadyOf(r) / steadyOf(http))} of it`,
  );
  console.log(
    `    same with Node's fetch as the client: ${fmt(steadyOf(fetch))} req/s = ${pct(steadyOf(fetch) / ideal)} of ideal, client CPU ${(fetch.cpuMs / fetch.requests).toFixed(2)} ms/req`,
  );
}
console.log(
  `latency p50 ${fmt(percentile(r.latenciesMs, 50))} ms, p99 ${fmt(percentile(r.latenciesMs, 99))} ms, max ${fmt(Math.max(...r.latenciesMs))} ms`,
);
console.log(
  `CPU ${(r.cpuMs / r.requests).toFixed(2)} ms per request (${spawnCli ? 'client only' : 'client and serve-sim together'}); ${machineLine(load0)}`,
);
