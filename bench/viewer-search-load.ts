// Benchmark (issue 36, "Viewer under load"): while a slow text search runs, do other requests still
// answer within 200 ms? A SQLite store holds a run with one 10 MB draft (one word repeated, the
// pathological case for a substring search) and a small run. The viewer's server runs in a child
// process, in one of two modes, measured alternately in the same command:
//
//   worker   as `revloop view` serves now: text searches in a worker thread (app/view-search.ts)
//   thread   the baseline: the same search on the server's own thread (as before issue 36)
//
// For each mode and round: the big run's first page (it builds the run's index, labelling the
// failed draft: measured apart), `GET /api/runs` alone (idle latency), then a search for a 200-character
// query (the longest the viewer accepts) over the big run, with `GET /api/runs` sent every 25 ms
// until the search answers; it prints the search's time and the median, p95 and worst latency of
// the listings sent while it ran, and the worst against the 200 ms target.
//
//   npx tsx bench/viewer-search-load.ts [--rounds 3] [--mb 10]
//
// Every trajectory is imported text; no model is involved.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};

if (process.argv.includes('--serve')) {
  // The child: a viewer over the store, its search in a worker thread or on this thread.
  const store = arg('store', '');
  const mode = arg('mode', 'worker');
  const { startViewer, viewerBackend } = await import('../src/app/view.ts');
  if (mode === 'worker') {
    const v = await startViewer({ store, port: 0, bootstrap: 0 });
    process.stdout.write(`${v.port}\n`);
  } else {
    const { openStore } = await import('../src/store/store.ts');
    const { AnalysisWorker } = await import('../src/app/view-analysis.ts');
    const { SearchWorker } = await import('../src/app/view-search.ts');
    const { startViewerServer } = await import('../src/viewer/server.ts');
    const s = await openStore(store, { readonly: true });
    const backend = viewerBackend(s, { worker: new AnalysisWorker(store), checker: new SearchWorker(store), bootstrap: 0 });
    const server = await startViewerServer({ backend, host: '127.0.0.1', port: 0, token: null });
    process.stdout.write(`${server.port}\n`);
  }
} else {
  const rounds = Number(arg('rounds', '3'));
  const mb = Number(arg('mb', '10'));
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-search-'));
  const store = join(dir, 'runs.db');
  const { importRun } = await import('../src/app/import.ts');
  const line = (id: string, drafts: string[]) =>
    JSON.stringify({
      id,
      controller: 'imported',
      family: 'exact-length',
      case_id: id,
      source: 'own',
      instruction: 'Write.',
      target: 3,
      anchors: [],
      drafts,
    });
  writeFileSync(join(dir, 'big.jsonl'), line('big-1', ['a '.repeat((mb * 1024 * 1024) / 2).trim()]) + '\n');
  writeFileSync(join(dir, 'small.jsonl'), [1, 2, 3].map((i) => line(`s-${i}`, ['one two three'])).join('\n') + '\n');
  const built = Date.now();
  await importRun({ file: join(dir, 'big.jsonl'), store, runId: 'big', budget: 1 });
  await importRun({ file: join(dir, 'small.jsonl'), store, runId: 'small', budget: 1 });
  console.log(`store: one ${mb} MB draft (run 'big') and a small run, built in ${((Date.now() - built) / 1000).toFixed(1)} s`);

  const serve = (mode: string): Promise<{ child: ChildProcess; port: number }> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', '--mode', mode, '--store', store],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /^(\d+)\n/.exec(out);
        if (m) resolve({ child, port: Number(m[1]) });
      });
      child.on('exit', (code) => reject(new Error(`viewer child exited ${code}`)));
    });
  const timed = async (url: string): Promise<{ ms: number; status: number }> => {
    const t = performance.now();
    const r = await fetch(url);
    await r.arrayBuffer();
    return { ms: performance.now() - t, status: r.status };
  };
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const q = encodeURIComponent('a '.repeat(99) + 'b');

  const results: Record<string, { idle: number[]; index: number[]; search: number[]; during: number[]; status: number[] }> = {
    worker: { idle: [], index: [], search: [], during: [], status: [] },
    thread: { idle: [], index: [], search: [], during: [], status: [] },
  };
  for (let round = 0; round < rounds; round++) {
    for (const mode of ['worker', 'thread'] as const) {
      const { child, port } = await serve(mode);
      try {
        const base = `http://127.0.0.1:${port}`;
        await timed(`${base}/api/runs`); // warm: the first listing starts the runs' checks
        // The run's first page builds its index (labelling the failed 10 MB draft): measured apart.
        results[mode].index.push((await timed(`${base}/api/runs/big/trajectories?limit=1`)).ms);
        await new Promise((r) => setTimeout(r, 1500));
        for (let i = 0; i < 5; i++) results[mode].idle.push((await timed(`${base}/api/runs`)).ms);
        let done = false;
        const search = timed(`${base}/api/runs/big/trajectories?q=${q}`).finally(() => (done = true));
        const during: Array<Promise<{ ms: number; status: number }>> = [];
        while (!done) {
          during.push(timed(`${base}/api/runs`));
          await new Promise((r) => setTimeout(r, 25));
        }
        const s = await search;
        results[mode].search.push(s.ms);
        results[mode].status.push(s.status);
        results[mode].during.push(...(await Promise.all(during)).map((d) => d.ms));
      } finally {
        child.kill();
      }
    }
  }
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(`load average at the end: ${load} (2 cores, shared)`);
  for (const mode of ['worker', 'thread'] as const) {
    const r = results[mode];
    console.log(
      `${mode === 'worker' ? 'search in a worker (now)    ' : 'search on the server thread '}: the run's first page ${pct(r.index, 0.5).toFixed(0)} ms median; search ${pct(r.search, 0.5).toFixed(0)} ms median (status ${[...new Set(r.status)].join('/')}); ` +
        `GET /api/runs idle median ${pct(r.idle, 0.5).toFixed(1)} ms; while searching (${r.during.length} requests) median ${pct(r.during, 0.5).toFixed(1)} ms, ` +
        `p95 ${pct(r.during, 0.95).toFixed(1)} ms, worst ${Math.max(...r.during).toFixed(1)} ms (${Math.max(...r.during) < 200 ? 'within' : 'OVER'} 200 ms)`,
    );
  }
  const w = Math.max(...results.worker.during);
  const t = Math.max(...results.thread.during);
  console.log(
    `worst listing while a search runs: ${w.toFixed(1)} ms now against ${t.toFixed(1)} ms on the server thread (${(t / w).toFixed(1)}× less)`,
  );
  rmSync(dir, { recursive: true, force: true });
}
