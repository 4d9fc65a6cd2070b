// `runs`: every run in a store, grouped by the study that owns it, as each study describes its
// runs. The store is opened read-only, so listing is safe while a run writes.
import type { StudyRunRow } from '../studies/kit/study.ts';
import { STUDIES, studyForKind } from '../studies/registry.ts';
import { openStore, type RunStore, type RunSummary, type WorkerInfo } from '../store/store.ts';

export interface RunListing {
  /** One group per study with runs, in registry order. */
  groups: Array<{ study: string; title: string; columns: readonly string[]; optional: readonly string[]; runs: StudyRunRow[] }>;
  /** Runs of kinds no registered study owns (listed by their store summary only). */
  unknown: StudyRunRow[];
  /** Workers sharing runs and the trajectories they hold (PostgreSQL; null on SQLite, which has none). */
  workers: WorkerInfo[] | null;
}

export async function listRuns(store: string): Promise<RunListing> {
  const s = await openStore(store, { readonly: true });
  try {
    return await describeStoreRuns(s, await s.listRuns());
  } finally {
    await s.close();
  }
}

/** The runs of an open store as each study describes them (`runs` and the viewer's run list). */
export async function describeStoreRuns(s: RunStore, summaries: readonly RunSummary[]): Promise<RunListing> {
  const groups: RunListing['groups'] = [];
  for (const study of STUDIES) {
    const mine = summaries.filter((r) => study.kinds.includes(r.kind));
    if (mine.length)
      groups.push({
        study: study.id,
        title: study.title,
        columns: study.runColumns,
        optional: study.runColumnsOptional ?? [],
        runs: await study.describeRuns(s, mine),
      });
  }
  const unknown = summaries
    .filter((r) => !studyForKind(r.kind))
    .map((r) => ({
      runId: r.runId,
      kind: r.kind,
      status: r.status,
      controller: r.controller,
      simulated: r.simulated,
      cells: [],
      json: { ...r },
    }));
  const workers = s.leases ? await s.leases.workers() : null;
  return { groups, unknown, workers };
}
