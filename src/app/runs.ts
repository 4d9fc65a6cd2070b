// `runs`: every run in a store, grouped by the study that owns it, as each study describes its
// runs. The store is opened read-only, so listing is safe while a run writes.
import type { StudyRunRow } from '../studies/kit/study.ts';
import { STUDIES, studyForKind } from '../studies/registry.ts';
import { openStore } from '../store/store.ts';

export interface RunListing {
  /** One group per study with runs, in registry order. */
  groups: Array<{ study: string; title: string; columns: readonly string[]; optional: readonly string[]; runs: StudyRunRow[] }>;
  /** Runs of kinds no registered study owns (listed by their store summary only). */
  unknown: StudyRunRow[];
}

export async function listRuns(store: string): Promise<RunListing> {
  const s = await openStore(store, { readonly: true });
  try {
    const summaries = await s.listRuns();
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
    return { groups, unknown };
  } finally {
    await s.close();
  }
}
