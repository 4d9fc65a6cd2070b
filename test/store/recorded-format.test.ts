// Stores written by this release still open and read as they did. test/fixtures/store/0.1.0 holds
// every event row of a store written by revloop 0.1.0 at commit 5a8f820 (before the store stopped
// naming studies): a plain `run` (sim:stubborn, 2 cases, budget 3), an `experiment:persist` run from
// it (one state, budget 6, a context window of 300 tokens, so its trajectory ends at context_limit),
// an `experiment:history` run (arms full and reset), a `revise` run and a `probe` run (keyed
// records), with what that release read back (`expected.json`: listRuns and materialized). The rows
// go into a fresh store verbatim (times and hashes kept); the store must verify, derive, summarise,
// reduce and audit them exactly as before, and the plan the code writes today for the same run
// must be byte for byte the recorded one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { exactLengthDemoCases } from '../../src/app/demo/cases.ts';
import { runPersistExperiment } from '../../src/app/experiment.ts';
import { runCases } from '../../src/app/run.ts';
import { writeCaseSet } from '../../src/core/cases/index.ts';
import { getFamily } from '../../src/core/verify/registry.ts';
import { auditRun, formatDiscrepancy } from '../../src/engine/audit.ts';
import type { EventRow } from '../../src/store/chain.ts';
import { planSha256 } from '../../src/store/plan.ts';
import { openStore, type RunStore, type RunSummary } from '../../src/store/store.ts';
import { studyForKind } from '../../src/studies/registry.ts';
import { tempDir } from '../tmp.ts';
import { eachBackend } from './backends.ts';

const FIXTURE = new URL('../fixtures/store/0.1.0/', import.meta.url).pathname;
const rows: EventRow[] = readFileSync(join(FIXTURE, 'events.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as {
  runs: RunSummary[];
  materialized: Record<string, unknown>;
};
const RUNS = ['plain', 'persist', 'history', 'revise', 'probe'];

/** A summary without what depends on the backend (PostgreSQL's lease count) or on row ids. */
function comparable(s: RunSummary): Record<string, unknown> {
  const { leased: _leased, lastEventId: _id, ...rest } = s;
  return rest;
}

async function loadFixture(location: string): Promise<RunStore> {
  const store = await openStore(location);
  for (const id of RUNS)
    await store.appendRows(
      id,
      rows.filter((r) => r.run_id === id),
    );
  return store;
}

/**
 * The events of a run as recorded, trajectory by trajectory (concurrent trajectories interleave
 * differently each time), without what differs between sessions: times, attempts' clocks, session
 * markers.
 */
function stable(list: readonly EventRow[]): unknown[] {
  const byCase = new Map<number | null, unknown[]>();
  for (const r of list) {
    if (r.type === 'session_started' || r.type === 'session_finished') continue;
    const payload = JSON.parse(r.payload);
    const event =
      r.type === 'attempt_finished'
        ? [r.type, r.revision, payload.attempt, payload.record.ok, payload.record.text]
        : [r.type, r.revision, r.payload];
    byCase.set(r.case_index, [...(byCase.get(r.case_index) ?? []), event]);
  }
  return [...byCase].sort(([a], [b]) => (a ?? -1) - (b ?? -1));
}

eachBackend('a store written by 0.1.0 verifies, derives, lists, reduces and audits as it did', async (st) => {
  const store = await loadFixture(st.location);
  try {
    assert.deepEqual(await store.runIds(), RUNS);
    assert.deepEqual((await store.listRuns()).map(comparable), expected.runs.map(comparable));
    for (const id of RUNS) {
      const m = JSON.parse(JSON.stringify(await store.materialized(id)));
      assert.deepEqual(m, expected.materialized[id], `${id}: derived tables`);
      // A rebuild from the events gives the same rows.
      await store.rebuild(id);
      assert.deepEqual(JSON.parse(JSON.stringify(await store.materialized(id))), expected.materialized[id], `${id}: rebuilt`);
      const planned = (await store.getPlanned(id))!;
      assert.equal(planSha256(planned.plan, planned.cases, planned.per_case), planned.plan_sha256, `${id}: plan hash`);
      const reduced = (await store.reduce(id))!;
      assert.deepEqual(
        JSON.parse(JSON.stringify(reduced.trajectories)),
        (expected.materialized[id] as { trajectories: unknown }).trajectories,
      );
      const study = studyForKind(planned.plan.kind);
      assert.ok(study, `${id}: a study owns kind ${planned.plan.kind}`);
      const report = await auditRun(store, id, getFamily, { replay: study.replay ? (p) => study.replay!(p) : undefined });
      assert.deepEqual(report.discrepancies.map(formatDiscrepancy), [], `${id}: audit`);
    }
    const persist = await store.loadTrajectories(['persist']);
    assert.equal(persist[0].termination, 'context_limit');
  } finally {
    await store.close();
  }
});

eachBackend('the code writes the recorded plans and events byte for byte (a plain run, an experiment run)', async (st) => {
  const store = await loadFixture(st.location);
  await store.close();
  const dir = tempDir('revloop-recorded-');
  const cases = join(dir, 'cases.jsonl');
  await writeCaseSet(cases, exactLengthDemoCases());
  await runCases({ cases, model: 'sim:stubborn', store: st.location, runId: 'plain-again', limit: 2, budget: 3 });
  await runPersistExperiment({
    store: st.location,
    model: 'sim:stubborn',
    runId: 'persist-again',
    fromRun: 'plain',
    maxStates: 1,
    budget: 6,
    contextWindow: 300,
  });
  const again = await openStore(st.location, { readonly: true });
  try {
    for (const [recorded, now] of [
      ['plain', 'plain-again'],
      ['persist', 'persist-again'],
    ]) {
      const before = rows.filter((r) => r.run_id === recorded);
      const after = await again.rawEventRows(now);
      assert.equal(after[0].payload, before[0].payload, `${recorded}: the plan's bytes`);
      assert.deepEqual(stable(after), stable(before), `${recorded}: the events' bytes`);
    }
  } finally {
    await again.close();
  }
});

test('a file with the probe and agent tables of development builds before 0.1.0 is refused untouched', async () => {
  // Schema 1 of those builds: meta with its version, the log, and a study's table of its own.
  const path = join(tempDir('revloop-schema1-'), 'old.db');
  const db = new Database(path);
  db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta VALUES ('schema_version', '1');
    CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT, seq INTEGER, type TEXT, case_index INTEGER, revision INTEGER,
      at TEXT, payload TEXT, prev_hash TEXT, hash TEXT);
    CREATE TABLE probe_runs (run_id TEXT PRIMARY KEY, env TEXT);
    INSERT INTO probe_runs VALUES ('p', 'toolshed');`);
  db.close();
  const sha = () => createHash('sha256').update(readFileSync(path)).digest('hex');
  const before = sha();
  await assert.rejects(openStore(path), /not a revloop store \(it has tables revloop does not know \(probe_runs\)\)/);
  await assert.rejects(openStore(path, { readonly: true }), /tables revloop does not know \(probe_runs\)/);
  assert.equal(sha(), before);
});
