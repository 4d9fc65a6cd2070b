// Benchmark: `revloop view` on the paper's panel size — a store of 27,360 SIMULATED trajectories
// (19 sim controllers × 1,440 cases, bench/panel-store.ts, ~0.75 GiB; 1 GiB with 4 KB pages). The
// viewer runs as its own process (the real CLI), so its memory is measured alone; the figures:
//   - first useful paint: Chromium opens the app until the run list shows every run (targets < 1.5 s),
//     and a run page until its first 100 trajectories are listed;
//   - opening a trajectory: GET /api/runs/:id/trajectories/:case (target < 100 ms), and in the page
//     from the keypress to the rendered timeline;
//   - filter response: GET …/trajectories?outcome=&label=&family=&q= (target < 200 ms), and in the page
//     from choosing a filter to the updated table; the first filter of a run (which builds its index)
//     is reported apart;
//   - server memory: resident set size at start, after each phase and at its peak, against the store's
//     size and against loading every trajectory into one process (what an unpaged viewer would hold);
//     each figure split into anonymous (held by the process), file-backed (the store's pages as read)
//     and shared memory, with the largest anonymous share seen.
// Then the same 27,360 trajectories as ONE imported run with 19 controllers (a paper-size import): its
// first listing (which builds the run's index), filters, text search, opening and paging.
// A static file's latency is measured alongside as the baseline of the machine's current speed.
//
//   npx tsx bench/viewer.ts [--rebuild] [--no-browser] [--opens N] [--filters N]
//
// Every trajectory is simulated; nothing printed here describes a model.
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { openStore } from '../src/store/store.ts';
import { CHROMIUM, chromiumMissing, launchChromium } from '../test/chromium.ts';
import { importedPanelStore, panelCasesAvailable, panelStore } from './panel-store.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const OPENS = Number(arg('--opens') ?? 300);
const FILTERS = Number(arg('--filters') ?? 200);
const browser = !process.argv.includes('--no-browser') && !chromiumMissing;
const BIN = new URL('../bin/revloop.mjs', import.meta.url).pathname;

if (!panelCasesAvailable()) {
  console.log('bench/viewer: ../shared/data/paper-cases not found; the panel store cannot be built (nothing measured)');
  process.exit(0);
}

const { path, buildMs } = await panelStore(process.argv.includes('--rebuild'));
// Bring the cached store's schema up to date (an index added since it was built); the viewer never writes.
await (await openStore(path)).close();
const storeBytes = statSync(path).size;

// A seeded PRNG, so every run of the benchmark asks for the same cases.
let seed = 20260808;
const rand = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

function quantiles(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms (n = ${s.length})`;
}

/**
 * The server's resident memory (MiB) from /proc: VmRSS and its peak VmHWM, split as the kernel counts
 * them: anonymous pages (the JS heaps, SQLite's page caches, malloc's arenas: memory the process
 * holds) and file-backed and shared pages (the store file and its -shm as read or mapped: page
 * cache the kernel can take back). VmHWM has no split; the largest anonymous share seen is kept.
 */
interface Mem {
  rss: number;
  peak: number;
  anon: number;
  file: number;
  shmem: number;
  anonPeak: number;
}
function readMemory(pid: number): Omit<Mem, 'anonPeak'> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile'), shmem: kb('RssShmem') };
}
// The largest anonymous share seen, sampled every 100 ms (the kernel keeps no peak of it).
let anonPeak = 0;
let sampled = 0;
const sampler = setInterval(() => {
  try {
    anonPeak = Math.max(anonPeak, readMemory(sampled).anon);
  } catch {
    // the server is between processes
  }
}, 100);
function memory(pid: number): Mem {
  const m = readMemory(pid);
  if (sampled !== pid) {
    sampled = pid;
    anonPeak = 0;
  }
  anonPeak = Math.max(anonPeak, m.anon);
  return { ...m, anonPeak };
}

const split = (m: Mem) =>
  `${m.rss.toFixed(0)} = anonymous ${m.anon.toFixed(0)} + file ${m.file.toFixed(0)} + shared ${m.shmem.toFixed(0)} ` +
  `(peak so far ${m.peak.toFixed(0)}; anonymous peak ${m.anonPeak.toFixed(0)})`;

// ---- the viewer, as its own process ------------------------------------------------------------
interface Server {
  base: string;
  pid: number;
  stop(): Promise<void>;
}

async function startServer(store: string): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'view', '--store', store, '--port', '0', '--bootstrap', '200'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`revloop view exited (${code}): ${stderr}`)));
  });
  return {
    base,
    pid: child.pid!,
    async stop() {
      child.removeAllListeners('exit');
      await new Promise((resolve) => {
        child.on('exit', resolve);
        child.kill('SIGINT');
      });
    },
  };
}

let server = await startServer(path);
let base = server.base;
let pid = server.pid;
const mem: Array<[string, Mem]> = [['started', memory(pid)]];
let requests = 0;

async function timed(path: string): Promise<{ ms: number; body: any }> {
  const t = performance.now();
  const res = await fetch(base + path);
  const body = (await res.json()) as any;
  const ms = performance.now() - t;
  requests++;
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}: ${body.error}`);
  return { ms, body };
}

async function staticMs(): Promise<number> {
  const t = performance.now();
  await (await fetch(base + '/app/main.js')).text();
  requests++;
  return performance.now() - t;
}

try {
  const baseline: number[] = [];
  for (let i = 0; i < 50; i++) baseline.push(await staticMs());
  const runs = (await timed('/api/runs')).body.runs as Array<{ run_id: string; planned: number }>;
  const runIds = runs.map((r) => r.run_id);
  const trajectories = runs.reduce((n, r) => n + r.planned, 0);

  // ---- first useful paint (browser) ----------------------------------------------------------
  let paint: { cold: number; warm: number[]; runCold: number; runWarm: number[]; openUi: number[]; filterUi: number[] } | null = null;
  if (browser) {
    const chromium = await launchChromium({ width: 1400, height: 1000 });
    const context = chromium.context;
    try {
      const page = await context.newPage();
      const runList = async () => {
        const t = performance.now();
        await page.goto(base + '/');
        await page.waitForFunction(
          (n) => (globalThis as any).document.querySelectorAll('#run-rows tr[data-run]').length === n,
          runIds.length,
        );
        return performance.now() - t;
      };
      const cold = await runList();
      const warm: number[] = [];
      for (let i = 0; i < 5; i++) warm.push(await runList());
      const runPage = async (run: string) => {
        const t = performance.now();
        await page.goto(`${base}/runs/${run}`);
        await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#traj-rows tr[data-ix]').length === 100);
        return performance.now() - t;
      };
      const runCold = await runPage(runIds[7]);
      const runWarm: number[] = [];
      for (let i = 0; i < 3; i++) runWarm.push(await runPage(runIds[7]));
      // In the page: j opens the next trajectory (keypress → timeline rendered).
      const openUi: number[] = [];
      await page.locator('body').click({ position: { x: 3, y: 3 } });
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        await page.keyboard.press('j');
        await page.waitForFunction(
          (ix) => (globalThis as any).document.querySelector('#traj-detail')?.getAttribute('data-open') === String(ix),
          i,
        );
        openUi.push(performance.now() - t);
      }
      // Filters: choose an outcome, then a label, then clear (choice → table updated).
      const filterUi: number[] = [];
      for (const [sel, value] of [
        ['#f-outcome', 'failure'],
        ['#f-label', 'terminal_fixed_point'],
        ['#f-family', 'c05'],
        ['#f-family', ''],
        ['#f-label', ''],
        ['#f-outcome', 'success'],
        ['#f-outcome', ''],
      ] as const) {
        const before = await page.evaluate(() => (globalThis as any).document.querySelector('main')?.getAttribute('data-list') ?? '');
        const t = performance.now();
        await page.selectOption(sel, value);
        await page.waitForFunction((b) => (globalThis as any).document.querySelector('main')?.getAttribute('data-list') !== b, before);
        filterUi.push(performance.now() - t);
      }
      paint = { cold, warm, runCold, runWarm, openUi, filterUi };
    } finally {
      await chromium.close();
    }
    mem.push(['after the browser phase', memory(pid)]);
  }

  // ---- filters (API): the first of each run builds its index; the rest reuse it ------------------
  const firstFilter: number[] = [];
  const filter: number[] = [];
  const caseIds = new Map<string, Array<{ id: string; ix: number }>>();
  const queries = [
    'outcome=failure',
    'label=terminal_cycle',
    'label=terminal_fixed_point',
    'family=c05',
    'family=exact-length&outcome=failure',
    'source=dolly_creative_writing',
    'outcome=success&family=c07',
    'label=recurrence&offset=100',
    'q=mellow',
    'q=dolly_creative_writing__0',
    'outcome=failure&q=quilt',
  ];
  for (const run of runIds) {
    const r = await timed(`/api/runs/${run}/trajectories?outcome=failure&limit=100`);
    firstFilter.push(r.ms);
    caseIds.set(
      run,
      r.body.rows.map((x: { case_id: string; case_index: number }) => ({ id: x.case_id, ix: x.case_index })),
    );
  }
  mem.push(['after indexing all 19 runs', memory(pid)]);
  for (let i = 0; i < FILTERS; i++) filter.push((await timed(`/api/runs/${pick(runIds)}/trajectories?${pick(queries)}&limit=100`)).ms);
  const textOnly: number[] = [];
  for (let i = 0; i < 20; i++)
    textOnly.push((await timed(`/api/runs/${pick(runIds)}/trajectories?q=${pick(['mellow', 'harbor', 'zzzz-none'])}&limit=100`)).ms);
  mem.push([`after ${FILTERS + 20} filter requests`, memory(pid)]);

  // ---- opening trajectories (API) ------------------------------------------------------------
  const opens: number[] = [];
  for (let i = 0; i < OPENS; i++) {
    const run = pick(runIds);
    const c = pick(caseIds.get(run)!);
    opens.push((await timed(`/api/runs/${run}/trajectories/${encodeURIComponent(c.id)}?index=${c.ix}`)).ms);
  }
  // Within one run (a person reading one run's trajectories): its plan stays cached.
  const opensOneRun: number[] = [];
  for (let i = 0; i < 100; i++) {
    const c = pick(caseIds.get(runIds[5])!);
    opensOneRun.push((await timed(`/api/runs/${runIds[5]}/trajectories/${encodeURIComponent(c.id)}?index=${c.ix}`)).ms);
  }
  mem.push([`after ${OPENS + 100} trajectory opens`, memory(pid)]);

  // ---- compare and paging --------------------------------------------------------------------
  const compares: number[] = [];
  for (let i = 0; i < 20; i++) {
    const a = pick(runIds);
    const b = pick(runIds.filter((x) => x !== a));
    compares.push((await timed(`/api/compare?a=${a}&b=${b}&cell=${pick(['a_only', 'b_only', 'both_failure', 'both_success'])}`)).ms);
  }
  const pages: number[] = [];
  for (let i = 0; i < 50; i++)
    pages.push((await timed(`/api/runs/${pick(runIds)}/trajectories?offset=${100 * Math.floor(rand() * 14)}&limit=100`)).ms);
  mem.push(['after compares and paging', memory(pid)]);

  // ---- two run analyses (B = 200) -------------------------------------------------------------
  const analyses: number[] = [];
  for (const run of [runIds[3], runIds[11]]) analyses.push((await timed(`/api/runs/${run}?html=1`)).ms);
  mem.push(['after two run analyses (B = 200)', memory(pid)]);
  // ---- soak: the same mixed workload again and again; a bounded server levels off -------------------
  const soak: number[] = [];
  for (let round = 1; round <= 3; round++) {
    for (let i = 0; i < 150; i++) {
      const run = pick(runIds);
      const c = pick(caseIds.get(run)!);
      soak.push((await timed(`/api/runs/${run}/trajectories/${encodeURIComponent(c.id)}?index=${c.ix}`)).ms);
      soak.push((await timed(`/api/runs/${pick(runIds)}/trajectories?${pick(queries)}&limit=100`)).ms);
      if (i % 15 === 0) soak.push((await timed(`/api/compare?a=${run}&b=${pick(runIds.filter((x) => x !== run))}`)).ms);
    }
    mem.push([`soak round ${round} (${requests.toLocaleString('en')} requests so far)`, memory(pid)]);
  }
  const baselineAfter: number[] = [];
  for (let i = 0; i < 50; i++) baselineAfter.push(await staticMs());

  // ---- reference: every trajectory in one process (what an unpaged viewer would hold) -------------
  const before = process.memoryUsage().rss;
  const store = await openStore(path, { readonly: true });
  const all = await store.loadTrajectories();
  const loadedMb = (process.memoryUsage().rss - before) / 2 ** 20;
  await store.close();

  // ---- one run of 27,360 trajectories (an import with 19 controllers) ---------------------------
  await server.stop();
  const big = await importedPanelStore(process.argv.includes('--rebuild'));
  const bigBytes = statSync(big.path).size;
  server = await startServer(big.path);
  base = server.base;
  pid = server.pid;
  const bigMem: Array<[string, Mem]> = [['started', memory(pid)]];
  const bigRequests0 = requests;
  const bigFirst = await timed('/api/runs/panel-import/trajectories?limit=100');
  bigMem.push(['after its first listing (index of 27,360)', memory(pid)]);
  const controllers = Object.keys(bigFirst.body.facets.controller as Record<string, number>);
  const bigQueries = [
    'outcome=failure',
    'label=terminal_cycle',
    'family=c05&outcome=failure',
    'label=recurrence&offset=1000',
    'source=dolly_creative_writing&outcome=success',
  ];
  const bigFilter: number[] = [];
  const bigCases: Array<{ id: string; ix: number }> = [];
  for (let i = 0; i < 100; i++) {
    const q = rand() < 0.5 ? pick(bigQueries) : `controller=${encodeURIComponent(pick(controllers))}&${pick(bigQueries)}`;
    const r = await timed(`/api/runs/panel-import/trajectories?${q}&limit=100`);
    bigFilter.push(r.ms);
    for (const x of r.body.rows.slice(0, 3)) bigCases.push({ id: x.case_id, ix: x.case_index });
  }
  const bigText: number[] = [];
  for (let i = 0; i < 10; i++)
    bigText.push((await timed(`/api/runs/panel-import/trajectories?q=${pick(['mellow', 'harbor', 'zzzz-none'])}&limit=100`)).ms);
  const bigTextNarrow: number[] = [];
  for (let i = 0; i < 10; i++)
    bigTextNarrow.push(
      (
        await timed(
          `/api/runs/panel-import/trajectories?controller=${encodeURIComponent(pick(controllers))}&q=${pick(['mellow', 'harbor'])}&limit=100`,
        )
      ).ms,
    );
  const bigOpens: number[] = [];
  for (let i = 0; i < 200; i++) {
    const c = pick(bigCases);
    bigOpens.push((await timed(`/api/runs/panel-import/trajectories/${encodeURIComponent(c.id)}?index=${c.ix}`)).ms);
  }
  const bigPages: number[] = [];
  for (let i = 0; i < 30; i++)
    bigPages.push((await timed(`/api/runs/panel-import/trajectories?offset=${100 * Math.floor(rand() * 273)}&limit=100`)).ms);
  bigMem.push([`after ${requests - bigRequests0} requests`, memory(pid)]);

  console.log('SIMULATED trajectories: timings of the viewer only, no model numbers.');
  console.log(
    `store: ${path} (${(storeBytes / 2 ** 30).toFixed(2)} GiB, ${runIds.length} runs, ${trajectories.toLocaleString('en')} trajectories${buildMs ? `, built in ${(buildMs / 1000).toFixed(1)} s` : ', cached; --rebuild to rebuild'})`,
  );
  console.log(`baseline (a static file, same server): ${quantiles(baseline)}; again at the end: ${quantiles(baselineAfter)}`);
  if (paint) {
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      `first useful paint, run list (all ${runIds.length} runs shown; target < 1.5 s): first load ${paint.cold.toFixed(0)} ms, then median ${med(paint.warm).toFixed(0)} ms of ${paint.warm.length}`,
    );
    console.log(
      `first useful paint, run page (first 100 of 1,440 trajectories listed): first visit ${paint.runCold.toFixed(0)} ms (builds the run's index), then median ${med(paint.runWarm).toFixed(0)} ms`,
    );
    console.log(`in the page, j → timeline rendered: ${quantiles(paint.openUi)}`);
    console.log(`in the page, choose a filter → table updated: ${quantiles(paint.filterUi)}`);
  } else console.log(`first useful paint: not measured (${browser ? '' : `no Chromium at ${CHROMIUM} or --no-browser`})`);
  console.log(`open a trajectory, GET …/trajectories/:case (target < 100 ms), random runs: ${quantiles(opens)}`);
  console.log(`  within one run: ${quantiles(opensOneRun)}`);
  console.log(`filter response, GET …/trajectories?filters (target < 200 ms): ${quantiles(filter)}`);
  console.log(`  of which text search alone (q over every draft of the run): ${quantiles(textOnly)}`);
  console.log(`  first filter of each run (builds its index of 1,440 labels): ${quantiles(firstFilter)}`);
  console.log(`compare two runs (1,440 pairs, cells, McNemar, one page): ${quantiles(compares)}`);
  console.log(`page through a run (100 rows): ${quantiles(pages)}`);
  console.log(`run analysis with sections and HTML (B = 200): ${analyses.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}`);
  console.log(`soak (3 rounds of opens, filters and compares over all runs): ${quantiles(soak)}`);
  console.log(`server memory (resident, MiB) over ${bigRequests0.toLocaleString('en')} requests:`);
  console.log(
    '  (resident = anonymous + file-backed + shared; anonymous is what the process holds, file-backed is page cache of the store)',
  );
  for (const [label, m] of mem) console.log(`  ${label}: ${split(m)}`);
  const last = mem[mem.length - 1][1];
  console.log(
    `  peak / store size: ${((last.peak * 2 ** 20) / storeBytes).toFixed(3)}; peak / start: ${(last.peak / mem[0][1].rss).toFixed(2)}; ` +
      `for reference, all ${all.length.toLocaleString('en')} trajectories loaded in one process take ${loadedMb.toFixed(0)} MiB more`,
  );
  console.log(
    `one run of 27,360 trajectories (the same, imported as one run with ${controllers.length} controllers; ${(bigBytes / 2 ** 30).toFixed(2)} GiB${big.buildMs ? `, built in ${(big.buildMs / 1000).toFixed(1)} s` : ''}):`,
  );
  console.log(`  first listing (reads the plan, builds the index of 27,360 labels): ${(bigFirst.ms / 1000).toFixed(2)} s`);
  console.log(`  filters (outcome, label, family, source, controller): ${quantiles(bigFilter)}`);
  console.log(`  text search over every draft of the run: ${quantiles(bigText)}; within one controller: ${quantiles(bigTextNarrow)}`);
  console.log(`  open a trajectory: ${quantiles(bigOpens)}`);
  console.log(`  page through it (100 rows): ${quantiles(bigPages)}`);
  for (const [label, m] of bigMem) console.log(`  memory ${label} (MiB): ${split(m)}`);
} finally {
  clearInterval(sampler);
  await server.stop();
}
