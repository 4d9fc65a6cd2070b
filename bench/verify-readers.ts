// What the readers' integrity check costs (issue 36; docs/store.md "Readers verify what they
// read"): `analyze`, `report`, `export` and `view` check each run's hash chain and every derived row
// against its events before they show it. Measured on the benchmark panel (bench/panel-store.ts:
// 19 SIMULATED controllers × the paper's 1,440 cases = 27,360 trajectories, built once by real
// `sim:` runs and cached under bench/.out/), in one process, alternating:
//
//   read     what the readers did before: every run's trajectories from the derived tables
//            (store.loadTrajectories, the read `analyze` and `report` start with)
//   check    the new check alone (app/verified.ts verifyRuns over the 19 runs)
//   both     check then read, as the readers now do
//
// and prints the median wall time and CPU of each and the ratio against `read` (the baseline, run
// in the same process). With REVLOOP_BENCH_PG=postgres://… the panel is copied there once and the
// same is measured on PostgreSQL.
//
//   npx tsx bench/verify-readers.ts [--repeat 3] [--rebuild]
// Every trajectory is simulated; nothing printed here describes a model.
import { loadavg } from 'node:os';
import { openStore, type RunStore } from '../src/store/store.ts';
import { verifyRuns } from '../src/app/verified.ts';
import { copyStore } from '../src/app/store-copy.ts';
import { panelCasesAvailable, panelStore } from './panel-store.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
if (!panelCasesAvailable()) {
  console.log('bench/verify-readers: the paper case files in ../shared/data are missing (set REVLOOP_SHARED); nothing measured');
  process.exit(0);
}
const repeat = Number(arg('repeat', '3'));
const { path, buildMs } = await panelStore(process.argv.includes('--rebuild'));
if (buildMs) console.log(`built the panel store in ${(buildMs / 1000).toFixed(1)} s (${path})`);

async function measure(location: string, label: string): Promise<void> {
  const store = await openStore(location, { readonly: true });
  const runIds = await store.runIds();
  const steps: Record<string, (s: RunStore) => Promise<unknown>> = {
    read: (s) => s.loadTrajectories(runIds),
    check: (s) => verifyRuns(s, runIds),
    both: async (s) => {
      await verifyRuns(s, runIds);
      return s.loadTrajectories(runIds);
    },
  };
  const times: Record<string, Array<{ wall: number; cpu: number }>> = { read: [], check: [], both: [] };
  let trajectories = 0;
  for (let r = 0; r < repeat; r++) {
    for (const name of Object.keys(steps)) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const out = await steps[name](store);
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      times[name].push({ wall, cpu: (c.user + c.system) / 1000 });
      if (name === 'read') trajectories = (out as unknown[]).length;
    }
  }
  await store.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(times.read.map((t) => t.wall));
  console.log(
    `\n${label}: ${runIds.length} runs, ${trajectories.toLocaleString('en')} trajectories; median of ${repeat} (load ${loadavg()[0].toFixed(1)})`,
  );
  for (const name of Object.keys(steps)) {
    const wall = median(times[name].map((t) => t.wall));
    const cpu = median(times[name].map((t) => t.cpu));
    console.log(
      `  ${name.padEnd(6)} wall ${(wall / 1000).toFixed(2)} s  cpu ${(cpu / 1000).toFixed(2)} s  ×${(wall / base).toFixed(2)} of read  (all: ${times[name].map((t) => (t.wall / 1000).toFixed(2)).join(', ')} s)`,
    );
  }
}

await measure(path, `SQLite ${path}`);
const pgUrl = process.env.REVLOOP_BENCH_PG;
if (pgUrl) {
  const url = new URL(pgUrl);
  url.searchParams.set('schema', 'bench_verify_panel');
  const location = url.toString();
  const probe = await openStore(location).catch(() => null);
  const have = probe ? (await probe.runIds()).length : 0;
  await probe?.close();
  if (!have) {
    const t = performance.now();
    await copyStore({ from: path, to: location });
    console.log(`copied the panel to PostgreSQL in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await measure(location, 'PostgreSQL');
}
