// GET /api/runs: every run of the store with its study's columns, and the workers (PostgreSQL).
// A listing never waits for a run's check against its events: it shows what is known so far.
import { summaryProblems } from '../../store/integrity.ts';
import type { RunsResponse } from '../../viewer/api.ts';
import { describeStoreRuns } from '../runs.ts';
import type { BackendState } from './backend-state.ts';
import { runRow, workerRow } from './rows.ts';

/** The run list. */
export async function listRuns(state: BackendState): Promise<RunsResponse> {
  const { store, problemsOf, known } = state;
  const summaries = await store.listRuns();
  const listing = await describeStoreRuns(store, summaries);
  const cells = new Map([...listing.groups.flatMap((g) => g.runs), ...listing.unknown].map((r) => [r.runId, r.cells]));
  return {
    store: store.location,
    cursor: summaries.reduce((m, s) => Math.max(m, s.lastEventId), 0),
    studies: listing.groups.map((g) => ({ id: g.study, title: g.title, columns: g.columns })),
    runs: await Promise.all(
      summaries.map(async (s) => {
        void problemsOf(s.runId).catch(() => undefined); // started now, known for the next listing
        // Until the full check is known, the row's own columns are checked against the plan
        // event (one cached event): a forged model or SIMULATED flag is marked from the first listing.
        const planned = known.has(s.runId) ? null : await store.getPlanned(s.runId);
        const quick = planned ? summaryProblems(s, planned) : [];
        return runRow(s, cells.get(s.runId) ?? [], known.get(s.runId) ?? (quick.length ? quick : undefined));
      }),
    ),
    workers: listing.workers?.filter((w) => w.alive || w.leases.length || w.released.length).map(workerRow) ?? null,
  };
}
