// GET /api/runs/:run/trajectories: one page of a run's trajectories, filtered by the run's index
// (controller, family, source, outcome, label) and searched in the store by text (`q`).
import { UsageError } from '../../core/errors.ts';
import type { TrajectoriesResponse, TrajectoryFilter, TrajectoryRow } from '../../viewer/api.ts';
import { facet, matchingCases } from '../view-index.ts';
import { DEFAULT_LIMIT, type BackendState } from './backend-state.ts';
import { finite } from './rows.ts';

const OUTCOMES = ['success', 'failure', 'incomplete', 'pending'];

function checkOutcome(outcome: string | undefined): void {
  if (outcome !== undefined && !OUTCOMES.includes(outcome))
    throw new UsageError(`outcome must be one of ${OUTCOMES.join(', ')} (got ${JSON.stringify(outcome)})`, { option: 'outcome' });
}

/** A page of a run's trajectories with the facets of the whole run. */
export async function trajectoryList(state: BackendState, runId: string, f: TrajectoryFilter): Promise<TrajectoriesResponse> {
  const { store, options: o, admit, indexOf } = state;
  checkOutcome(f.outcome);
  const unverified = await admit(runId);
  const { index, reader } = await indexOf(runId);
  const offset = f.offset ?? 0;
  const limit = f.limit ?? DEFAULT_LIMIT;
  const filtered =
    f.controller !== undefined || f.family !== undefined || f.source !== undefined || f.outcome !== undefined || f.label !== undefined;
  const matches = filtered ? matchingCases(index.entries, f) : null;
  let total: number;
  let summaries;
  if (f.q) {
    // Text search runs in the store (the drafts never come into memory), over the filter's matches.
    // In a worker thread where there is one (SQLite): a search over megabytes of drafts holds no other request.
    const query = { caseIndexes: matches ?? undefined, text: f.q, offset, limit };
    const page = o.search ? await o.search.search(runId, query) : await store.trajectorySummaries(runId, query);
    total = page.total;
    summaries = page.rows;
  } else if (matches) {
    total = matches.length;
    summaries = (await store.trajectorySummaries(runId, { caseIndexes: matches.slice(offset, offset + limit) })).rows;
  } else {
    total = index.entries.length;
    summaries = (await store.trajectorySummaries(runId, { offset, limit })).rows;
  }
  const rows: TrajectoryRow[] = summaries.map((s) => {
    const e = index.entries[s.caseIndex];
    return {
      case_index: s.caseIndex,
      case_id: s.caseId,
      controller: e.controller,
      family: e.family,
      source: e.source,
      status: s.status,
      outcome: e.outcome,
      repeat_class: e.repeatClass,
      category: e.category,
      rounds: s.rounds,
      final_joint: s.finalJoint,
      final_energy: finite(s.finalEnergy),
      attempts: s.attempts,
      incomplete_reason: s.incompleteReason,
    };
  });
  return {
    ...(unverified ? { unverified } : {}),
    run_id: runId,
    simulated: index.simulated,
    total,
    offset,
    limit,
    facets: {
      all: index.entries.length,
      controller: facet(index.entries, 'controller'),
      family: facet(index.entries, 'family'),
      source: facet(index.entries, 'source'),
      outcome: facet(index.entries, 'outcome'),
      label: facet(index.entries, 'label'),
    },
    labels: reader.labels,
    rows,
  };
}
