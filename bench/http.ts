// HTTP throughput through serve-sim: the OpenAI-compatible backend (openai SDK, our retry loop and
// limiter) against SIMULATED controllers with a fixed artificial latency. Prints requests/s, the
// ideal (concurrency ÷ latency), their ratio and latency percentiles. Target: ratio ≥ 90%.
//
//   npx tsx bench/http.ts [--latency-ms 50] [--concurrency 32] [--requests 3000] [--profile steady] [--spawn] [--no-ceiling]
//
// --spawn runs `revloop serve-sim` as a child process (client and server on separate event loops);
// by default the server runs in this process. It also measures the machine's own ceiling for the same
// load (a trivial server and plain fetch), so a busy or throttled machine can be told apart from
// overhead in revloop's path.
import { createModel } from '../src/models/index.ts';
import { benchServer, environmentCeiling, measureThroughput, percentile, requestPool } from './http-lib.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const latencyMs = Number(arg('latency-ms', '50'));
const concurrency = Number(arg('concurrency', '32'));
const requests = Number(arg('requests', '3000'));
const profile = arg('profile', 'steady');
const spawnCli = process.argv.includes('--spawn');

const server = await benchServer({ latencyMs, spawnCli });
try {
  const model = await createModel(`openai-compatible:${server.url}#sim:${profile}`, { concurrency, maxRetries: 0, timeout: 30_000 });
  // Warm up connections and the JIT, then measure.
  await measureThroughput(model, requestPool(concurrency * 4), concurrency);
  const r = await measureThroughput(model, requestPool(requests), concurrency);
  const ideal = (concurrency / latencyMs) * 1000;
  const ratio = r.requestsPerSecond / ideal;
  const fmt = (x: number) => x.toFixed(1);
  console.log(`SIMULATED controllers (sim:${profile}) via serve-sim ${spawnCli ? '(child process)' : '(same process)'} at ${server.url}`);
  console.log(`latency ${latencyMs} ms, concurrency ${concurrency}, ${r.requests} requests, ${r.failed} failed, wall ${fmt(r.wallMs / 1000)} s`);
  console.log(`throughput ${fmt(r.requestsPerSecond)} req/s; ideal ${fmt(ideal)} req/s; ratio ${(ratio * 100).toFixed(1)}% (target ≥ 90%)`);
  console.log(`latency p50 ${fmt(percentile(r.latenciesMs, 50))} ms, p99 ${fmt(percentile(r.latenciesMs, 99))} ms, max ${fmt(Math.max(...r.latenciesMs))} ms`);
  if (!process.argv.includes('--no-ceiling')) {
    const ceiling = await environmentCeiling(latencyMs, concurrency, requests);
    console.log(`machine ceiling (trivial node:http server + plain fetch, same load): ${fmt(ceiling)} req/s = ${((ceiling / ideal) * 100).toFixed(1)}% of ideal; serve-sim path reaches ${((r.requestsPerSecond / ceiling) * 100).toFixed(1)}% of it`);
  }
} finally {
  await server.close();
}
