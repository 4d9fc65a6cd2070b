// How long a worker's claim takes when a PostgreSQL store holds a sweep: many planned runs, every
// trajectory pending (a paper-scale sweep plans 19 controllers × 1,440 cases before any worker runs).
// Plans --runs runs of the paper's 480 exact-length cases (SIMULATED controllers, nothing is run) in
// a fresh schema, then times claims of --limit trajectories across every run (a worker without
// --run) and within one run (--run), each released again so every claim sees the same store:
// the store's claim (src/store/postgres/leases.ts, CLAIMABLE_SQL) against the statement it
// replaced, which joined and sorted every pending trajectory of the store, alternating in one process.
//
//   REVLOOP_BENCH_PG=postgres://user@127.0.0.1:5432/db npx tsx bench/claim.ts [--runs 57] [--limit 32] [--claims 200]
import { loadavg } from 'node:os';
import pg from 'pg';
import { runCases } from '../src/app/run.ts';
import { sharedDataFile } from '../src/core/util/shared-data.ts';
import { openStore } from '../src/store/store.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const PG_URL = process.env.REVLOOP_BENCH_PG || process.env.REVLOOP_TEST_PG;
const cases = sharedDataFile('paper-cases', 'generation_combined480.jsonl');
if (!PG_URL || !cases) {
  console.log('bench/claim: set REVLOOP_BENCH_PG to a PostgreSQL URL, and have ../shared/data (REVLOOP_SHARED); nothing measured');
  process.exit(0);
}
const runs = Number(arg('runs', '57'));
const limit = Number(arg('limit', '32'));
const claims = Number(arg('claims', '200'));
const schema = `bench_claim_${process.pid}`;
const url = new URL(PG_URL);
url.searchParams.set('schema', schema);

/** The claim statement before CLAIMABLE_SQL (every pending trajectory joined, then sorted). */
const PREVIOUS_SQL = `WITH live AS (SELECT pl.objid::bigint::int AS worker FROM pg_locks pl WHERE false),
  c AS (
    SELECT l.run_id, l.case_index FROM leases l
    JOIN trajectories t ON t.run_id = l.run_id AND t.case_index = l.case_index
    JOIN runs r ON r.run_id = l.run_id
    WHERE t.status = 'pending' AND ($2::text IS NULL OR l.run_id = $2)
      AND (l.worker IS NULL OR l.expires_at < clock_timestamp() OR l.worker NOT IN (SELECT worker FROM live))
    ORDER BY r.position, l.case_index
    LIMIT $3
    FOR UPDATE OF l SKIP LOCKED)
  UPDATE leases l SET worker = $1, epoch = l.epoch + 1, claimed_at = clock_timestamp(), expires_at = clock_timestamp() + make_interval(secs => 60)
  FROM c WHERE l.run_id = c.run_id AND l.case_index = c.case_index
  RETURNING l.run_id, l.case_index`;

const t0 = performance.now();
for (let i = 1; i <= runs; i++) await runCases({ cases, model: `sim:steady?seed=${i}`, store: url.toString(), runId: `s${i}`, workers: 0 });
console.log(
  `bench/claim — ${runs} planned runs × 480 pending trajectories (${(runs * 480).toLocaleString('en')}; SIMULATED controllers, planned in ${((performance.now() - t0) / 1000).toFixed(1)} s), claims of ${limit}, ${claims} per variant and scope, alternating; load ${loadavg()[0].toFixed(2)}`,
);

const store = await openStore(url.toString());
const raw = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
await raw.connect();
try {
  const worker = await store.leases!.register({ concurrency: limit, leaseSeconds: 60 });
  const release = () => raw.query('UPDATE leases SET worker = NULL, expires_at = NULL WHERE worker = $1', [worker]);
  const middle = `s${Math.ceil(runs / 2)}`;
  for (const [scope, runId] of [
    ['every run', undefined],
    [`one run (${middle})`, middle],
  ] as const) {
    const ms = { store: [] as number[], previous: [] as number[] };
    let first = '';
    for (let i = 0; i < claims; i++) {
      for (const variant of i % 2 ? (['previous', 'store'] as const) : (['store', 'previous'] as const)) {
        const t = performance.now();
        const got =
          variant === 'store'
            ? (await store.leases!.claim(worker, { runId, limit, leaseSeconds: 60 })).map((l) => `${l.runId}#${l.caseIndex}`)
            : (await raw.query<{ run_id: string; case_index: number }>(PREVIOUS_SQL, [worker, runId ?? null, limit])).rows
                .map((r) => `${r.run_id}#${r.case_index}`)
                .sort();
        ms[variant].push(performance.now() - t);
        await release();
        // Both claim the same trajectories (the store's answer is sorted by case within a run).
        const key = [...got].sort().join(',');
        if (!first) first = key;
        else if (key !== first) throw new Error(`${variant} claimed other trajectories than the first claim: ${key} / ${first}`);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
    console.log(
      `${scope.padEnd(18)}: store ${med(ms.store).toFixed(2)} ms median (p95 ${p95(ms.store).toFixed(2)}) · previous statement ${med(ms.previous).toFixed(2)} ms (p95 ${p95(ms.previous).toFixed(2)}) · ${(med(ms.previous) / med(ms.store)).toFixed(1)}× less`,
    );
  }
} finally {
  await store.close();
  await raw.query(`DROP SCHEMA ${schema} CASCADE`);
  await raw.end();
}
