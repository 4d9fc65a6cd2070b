// The viewer's per-run trajectory index: for every case of a run its family, source, status and
// filter labels (outcome, repeat class, failure category), small enough to filter tens of thousands
// of trajectories in memory without holding a single draft. It is built from the derived tables
// (rows without texts) and the study's classifier, reading full records only for the trajectories
// whose label needs their drafts (complete failures), and refreshed incrementally: when the run has
// new events, only the trajectories whose status or round count changed are read again.
import type { RunPlannedPayload } from '../store/events.ts';
import { isTrajectoryPlan } from '../store/plan.ts';
import type { RunStore, TrajectorySummary } from '../store/store.ts';
import type { TrajectoryReader } from '../studies/kit/study.ts';
import type { OutcomeValue } from '../viewer/api.ts';

export interface IndexEntry {
  caseId: string;
  /** The run's model, or an imported line's controller (imports may hold several). */
  controller: string;
  family: string;
  source: string;
  status: TrajectorySummary['status'];
  rounds: number;
  outcome: OutcomeValue;
  repeatClass: string | null;
  category: string | null;
}

export interface RunIndex {
  runId: string;
  simulated: boolean;
  /** The run's latest event id when the index was last brought up to date. */
  through: number;
  entries: IndexEntry[];
}

/** Full records read per query while labelling (bounds the memory of a refresh). */
const LABEL_CHUNK = 256;

/** A least-recently-used cache bounded by the total weight of its values (at least the newest stays). */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private total = 0;
  constructor(
    private readonly maxWeight: number,
    private readonly weight: (v: V) => number = () => 1,
  ) {}
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    this.total += this.weight(value);
    while (this.total > this.maxWeight && this.map.size > 1) this.delete(this.map.keys().next().value as K);
  }
  delete(key: K): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.total -= this.weight(v);
  }
}

/**
 * Brings a run's index up to date (creating it when `index` is null): `through` is the run's
 * latest event id now; nothing is read when it has not moved.
 */
export async function refreshIndex(
  store: RunStore,
  runId: string,
  planned: RunPlannedPayload,
  reader: TrajectoryReader,
  through: number,
  index: RunIndex | null,
): Promise<RunIndex> {
  if (index?.through === through) return index;
  if (!isTrajectoryPlan(planned.plan)) throw new Error(`run ${runId} has no trajectories`);
  const idx: RunIndex = index ?? {
    runId,
    simulated: planned.plan.controller.simulated,
    through: -1,
    entries: planned.cases.map((c, i) => ({
      caseId: c.id,
      controller: planned.per_case?.[i]?.controller ?? planned.plan.controller.label,
      family: c.family,
      source: c.source,
      status: 'pending',
      rounds: -1,
      outcome: 'pending',
      repeatClass: null,
      category: null,
    })),
  };
  const { rows } = await store.trajectorySummaries(runId);
  const needTexts: number[] = [];
  for (const r of rows) {
    const e = idx.entries[r.caseIndex];
    if (!e || (e.status === r.status && e.rounds === r.rounds)) continue;
    e.status = r.status;
    e.rounds = r.rounds;
    e.repeatClass = e.category = null;
    // Only a complete failure's labels depend on its drafts; the rest follow from the row.
    if (r.status === 'pending') e.outcome = 'pending';
    else if (r.status === 'incomplete' || r.rounds === 0) e.outcome = 'incomplete';
    else if (r.finalJoint) e.outcome = 'success';
    else needTexts.push(r.caseIndex);
  }
  for (let i = 0; i < needTexts.length; i += LABEL_CHUNK) {
    // Let other requests and the event stream in between chunks (the SQLite reads are synchronous).
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const t of await store.trajectoriesAt(runId, needTexts.slice(i, i + LABEL_CHUNK))) {
      const label = reader.label(t);
      const e = idx.entries[t.caseIndex];
      e.outcome = t.status === 'pending' ? 'pending' : label.outcome;
      e.repeatClass = label.repeatClass;
      e.category = label.category;
    }
  }
  idx.through = through;
  return idx;
}

export interface EntryFilter {
  controller?: string;
  family?: string;
  source?: string;
  outcome?: string;
  label?: string;
}

/** Case indexes of the entries that pass every given filter, in case order. */
export function matchingCases(entries: readonly IndexEntry[], f: EntryFilter): number[] {
  const out: number[] = [];
  entries.forEach((e, i) => {
    if (f.controller !== undefined && e.controller !== f.controller) return;
    if (f.family !== undefined && e.family !== f.family) return;
    if (f.source !== undefined && e.source !== f.source) return;
    if (f.outcome !== undefined && e.outcome !== f.outcome) return;
    if (f.label !== undefined && e.repeatClass !== f.label && e.category !== f.label) return;
    out.push(i);
  });
  return out;
}

/** How many entries carry each value of one field (labels: repeat classes and categories together). */
export function facet(
  entries: readonly IndexEntry[],
  field: 'controller' | 'family' | 'source' | 'outcome' | 'label',
): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (v: string | null) => {
    if (v !== null) counts[v] = (counts[v] ?? 0) + 1;
  };
  for (const e of entries) {
    if (field === 'label') {
      add(e.repeatClass);
      add(e.category);
    } else add(e[field]);
  }
  return counts;
}
