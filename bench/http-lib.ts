// Reusable pieces of the HTTP throughput benchmarks: a serve-sim to measure against (in process, or
// the CLI in a child process), a pool of distinct requests, a closed-loop load generator that keeps
// exactly `concurrency` requests in flight, the steady-state measure, and the machine's ceiling
// (a trivial server and client under the same load). All model numbers come from SIMULATED controllers.
//
// Steady state (the definition): completions per second over the window in which every
// slot is busy, from the first completion after the last slot filled to the first moment a slot
// stays free (a job ends and no job is left to start), as a fraction of concurrency ÷ latency. The
// ramp-up (nothing completes during the first latency) and the drain at the end are excluded; the
// makespan figures include them.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSimServer } from '../src/models/sim/server.ts';
import type { ChatMessage, Model } from '../src/models/types.ts';

export interface BenchServer {
  url: string;
  close(): Promise<void>;
  /** The server's process, when it runs in a child. */
  pid?: number;
}

/** Waits for a child's "listening on <url>" line. */
function childServer(args: string[], pattern: RegExp): Promise<BenchServer> {
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<BenchServer>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = pattern.exec(out);
      if (m) {
        resolve({
          url: m[1],
          pid: child.pid,
          close: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.on('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

/** serve-sim in this process, or (`spawn`) the `revloop serve-sim` CLI in a child process. */
export async function benchServer(opts: { latencyMs: number; spawnCli?: boolean }): Promise<BenchServer> {
  if (!opts.spawnCli) {
    const s = await startSimServer({ port: 0, latencyMs: opts.latencyMs });
    return { url: s.url, close: () => s.close() };
  }
  const bin = fileURLToPath(new URL('../bin/revloop.mjs', import.meta.url));
  return childServer([bin, 'serve-sim', '--port', '0', '--latency-ms', String(opts.latencyMs)], /listening on (http:\/\/\S+\/v1)/);
}

/** n distinct first-turn requests (our own exact-length and COLLIE-style prompts). */
export function requestPool(n: number): ChatMessage[][] {
  const out: ChatMessage[][] = [];
  for (let i = 0; i < n; i++) {
    const target = 40 + (i % 160);
    const content =
      i % 2 === 0
        ? `Describe harbour number ${i} at dawn.\n\nLength constraint: write exactly ${target} words under the deterministic word counter. The response must explicitly retain these required content items: gulls; tide ${i}. Return only the requested response. Do not include a preface, word-count note, analysis, or commentary.`
        : `Please generate a paragraph:\n1) with exactly ${3 + (i % 5)} sentences;\n2) with all sentences having at least ${8 + (i % 4)} words;\n3) with all sentences having at most ${14 + (i % 4)} words.\n\nThe constraints are checked by a deterministic verifier. Return only the requested text, with no preface, analysis, count, or commentary.`;
    out.push([{ role: 'user', content }]);
  }
  return out;
}

/** One job's occupancy of a slot (ms on any one clock). */
export interface Span {
  start: number;
  end: number;
}

export interface SteadyState {
  /** Completions counted and the window they fall in (ms, and its ends on the jobs' clock). */
  completions: number;
  windowMs: number;
  perSecond: number;
  from: number;
  to: number;
}

/**
 * Completions per second while all `concurrency` slots were busy. `jobs` are what occupies a slot
 * (a request, or a whole trajectory in a run); `completions` are the times work finished (request
 * ends, or every generation of a run). Null when the slots never all filled or the window is empty.
 */
export function steadyState(jobs: readonly Span[], completions: readonly number[], concurrency: number): SteadyState | null {
  if (jobs.length < concurrency) return null;
  const starts = jobs.map((j) => j.start).sort((a, b) => a - b);
  const full = starts[concurrency - 1];
  const lastStart = starts[starts.length - 1];
  // The first slot that stays free: the first job end at or after the last job start.
  const free = Math.min(...jobs.map((j) => j.end).filter((e) => e >= lastStart));
  const ends = completions.filter((t) => t >= full && t <= free).sort((a, b) => a - b);
  if (ends.length < 2) return null;
  // From the first completion in the window (the ramp-up of one latency is not steady state).
  const from = ends[0];
  const windowMs = free - from;
  if (!(windowMs > 0)) return null;
  return { completions: ends.length - 1, windowMs, perSecond: ((ends.length - 1) / windowMs) * 1000, from, to: free };
}

export interface ClosedLoopResult {
  requests: number;
  failed: number;
  wallMs: number;
  /** Requests / wall time, ramp-up and drain included. */
  overallPerSecond: number;
  steady: SteadyState | null;
  latenciesMs: number[];
  /** Process CPU (all threads) during the loop, ms. */
  cpuMs: number;
}

/** Sends `n` requests with exactly `concurrency` in flight; `send(i)` resolves true on success. */
export async function closedLoop(n: number, concurrency: number, send: (i: number) => Promise<boolean>): Promise<ClosedLoopResult> {
  const spans: Span[] = [];
  let failed = 0;
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const start = performance.now();
        const ok = await send(i);
        spans.push({ start, end: performance.now() });
        if (!ok) failed++;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    requests: n,
    failed,
    wallMs,
    overallPerSecond: (n / wallMs) * 1000,
    steady: steadyState(
      spans,
      spans.map((s) => s.end),
      concurrency,
    ),
    latenciesMs: spans.map((s) => s.end - s.start),
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

/** Closed-loop throughput of a model's generate() (latency = wall time of each call). */
export function measureModel(model: Model, pool: ChatMessage[][], concurrency: number, maxTokens = 1024): Promise<ClosedLoopResult> {
  return closedLoop(pool.length, concurrency, async (i) => (await model.generate(pool[i], { maxTokens })).text !== null);
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

// ---- the machine's ceiling -------------------------------------------------------------------

/** A trivial server: reads the body, waits `latencyMs`, answers a small fixed JSON body. */
const TRIVIAL_SERVER = `
const http = require('node:http');
const latency = Number(process.argv[1]);
const srv = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => setTimeout(() => {
    const body = '{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}';
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }, latency));
});
srv.keepAliveTimeout = 65000;
srv.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + srv.address().port + '/'));
process.on('SIGTERM', () => { srv.closeAllConnections(); srv.close(() => process.exit(0)); });
`;

async function trivialServer(latencyMs: number, inChild: boolean): Promise<BenchServer> {
  if (inChild) return childServer(['-e', TRIVIAL_SERVER, String(latencyMs)], /listening on (http:\/\/\S+\/)/);
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        const body = '{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }, latencyMs),
    );
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

export type CeilingClient = 'node:http' | 'fetch';

/**
 * The machine's ceiling for the same load: a trivial server (same process or a child, like the
 * benchmark's server) that waits `latencyMs`, driven by a trivial client (node:http with a
 * keep-alive Agent, or Node's global fetch) with the same concurrency and request bodies. What is
 * left is event-loop, timer, loopback and scheduling overhead of this machine at this moment.
 */
export async function machineCeiling(o: {
  latencyMs: number;
  concurrency: number;
  requests: number;
  inChild: boolean;
  client: CeilingClient;
  pool: ChatMessage[][];
}): Promise<ClosedLoopResult> {
  const server = await trivialServer(o.latencyMs, o.inChild);
  const agent = new Agent({ keepAlive: true });
  const bodies = o.pool.map((messages) => JSON.stringify({ model: 'ceiling', messages, max_tokens: 1024 }));
  const viaHttp = (body: string) =>
    new Promise<boolean>((resolve) => {
      const req = request(
        server.url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(res.statusCode === 200 && JSON.parse(Buffer.concat(chunks).toString()).choices.length === 1));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });
  const viaFetch = async (body: string) => {
    const r = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return r.status === 200 && ((await r.json()) as { choices: unknown[] }).choices.length === 1;
  };
  const send = o.client === 'fetch' ? viaFetch : viaHttp;
  try {
    await closedLoop(o.concurrency * 4, o.concurrency, (i) => send(bodies[i % bodies.length]));
    return await closedLoop(o.requests, o.concurrency, (i) => send(bodies[i % bodies.length]));
  } finally {
    agent.destroy();
    await server.close();
  }
}

// ---- reporting -------------------------------------------------------------------------------

export const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function machineLine(loadAtStart: number): string {
  return `machine: ${cpus().length} CPUs, load average (1 min) ${loadAtStart.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end`;
}
