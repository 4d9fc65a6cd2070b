// Reusable pieces of the HTTP throughput benchmark: a serve-sim to measure against (in process, or
// the CLI in a child process), a pool of distinct requests, and a closed-loop load generator that
// keeps exactly `concurrency` requests in flight. All numbers come from SIMULATED controllers.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startSimServer } from '../src/models/sim/server.ts';
import type { ChatMessage, Model } from '../src/models/types.ts';

export interface BenchServer {
  url: string;
  close(): Promise<void>;
}

/** serve-sim in this process, or (`spawn`) the `revloop serve-sim` CLI in a child process. */
export async function benchServer(opts: { latencyMs: number; spawnCli?: boolean }): Promise<BenchServer> {
  if (!opts.spawnCli) {
    const s = await startSimServer({ port: 0, latencyMs: opts.latencyMs });
    return { url: s.url, close: () => s.close() };
  }
  const bin = fileURLToPath(new URL('../bin/revloop.mjs', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve-sim', '--port', '0', '--latency-ms', String(opts.latencyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve-sim exited with ${code}: ${out}`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
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

export interface ThroughputResult {
  requests: number;
  failed: number;
  wallMs: number;
  requestsPerSecond: number;
  latenciesMs: number[];
}

/** Sends every request with `concurrency` workers; latency = wall time of each generate() call. */
export async function measureThroughput(model: Model, pool: ChatMessage[][], concurrency: number, maxTokens = 1024): Promise<ThroughputResult> {
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < pool.length) {
        const msgs = pool[next++];
        const s = performance.now();
        const r = await model.generate(msgs, { maxTokens });
        latencies.push(performance.now() - s);
        if (r.text === null) failed++;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  return { requests: pool.length, failed, wallMs, requestsPerSecond: (pool.length / wallMs) * 1000, latenciesMs: latencies };
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/**
 * The machine's own ceiling for the same load: a trivial node:http server that waits `latencyMs`
 * and answers a fixed body, driven by plain fetch with the same concurrency. No SDK, no sim, no
 * JSON of any size: what is left is event-loop, timer and loopback overhead.
 */
export async function environmentCeiling(latencyMs: number, concurrency: number, requests: number): Promise<number> {
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }, latencyMs),
    );
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`;
  let sent = 0;
  const run = async (n: number) => {
    sent = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent++ < n) await (await fetch(url, { method: 'POST', body: '{}' })).json();
      }),
    );
    return (n / (performance.now() - t0)) * 1000;
  };
  await run(concurrency * 4);
  const rps = await run(requests);
  srv.closeAllConnections();
  await new Promise<void>((r) => srv.close(() => r()));
  return rps;
}
