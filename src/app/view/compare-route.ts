// GET /api/compare?a=&b=: two runs paired by case id, their 2×2 table of outcomes with the exact
// McNemar test (overall and per family), and one page of the pairs.
import { UsageError, UserError } from '../../core/errors.ts';
import { mcnemarExact } from '../../core/stats/binomial.ts';
import { simulatedMark } from '../../studies/kit/sections.ts';
import type { CompareCell, CompareQuery, CompareResponse, CompareRow } from '../../viewer/api.ts';
import type { IndexEntry, RunIndex } from '../view-index.ts';
import { DEFAULT_LIMIT, type BackendState } from './backend-state.ts';
import { finite } from './rows.ts';

const CELLS: CompareCell[] = ['both_success', 'a_only', 'b_only', 'both_failure', 'excluded'];

/** Two runs compared. */
export async function compareRuns(state: BackendState, q: CompareQuery): Promise<CompareResponse> {
  const { store, indexOf, rowOf } = state;
  if (q.a === q.b) throw new UsageError(`compare needs two different runs (both are '${q.a}')`, { option: 'b' });
  if (q.cell !== undefined && !CELLS.includes(q.cell as CompareCell))
    throw new UsageError(`cell must be one of ${CELLS.join(', ')} (got ${JSON.stringify(q.cell)})`, { option: 'cell' });
  const A = await indexOf(q.a);
  const B = await indexOf(q.b);
  const byId = (idx: RunIndex): Map<string, number> => {
    const m = new Map<string, number>();
    idx.entries.forEach((e, i) => {
      if (m.has(e.caseId))
        throw new UserError(
          `run '${idx.runId}' holds several trajectories of case '${e.caseId}' (several controllers); compare pairs one trajectory per case id`,
        );
      m.set(e.caseId, i);
    });
    return m;
  };
  const aIds = byId(A.index);
  const bIds = byId(B.index);
  const success = (e: IndexEntry) => e.outcome === 'success';
  const complete = (e: IndexEntry) => e.outcome === 'success' || e.outcome === 'failure';
  const cellOf = (ea: IndexEntry, eb: IndexEntry): CompareCell =>
    !complete(ea) || !complete(eb)
      ? 'excluded'
      : success(ea)
        ? success(eb)
          ? 'both_success'
          : 'a_only'
        : success(eb)
          ? 'b_only'
          : 'both_failure';
  const empty = () => ({ both_success: 0, a_only: 0, b_only: 0, both_failure: 0 });
  const cells = empty();
  const fam = new Map<string, { cells: ReturnType<typeof empty>; excluded: number }>();
  const pairs: Array<{ ia: number; ib: number; cell: CompareCell }> = [];
  let excluded = 0;
  for (const [id, ia] of aIds) {
    const ib = bIds.get(id);
    if (ib === undefined) continue;
    const ea = A.index.entries[ia];
    const cell = cellOf(ea, B.index.entries[ib]);
    pairs.push({ ia, ib, cell });
    let f = fam.get(ea.family);
    if (!f) fam.set(ea.family, (f = { cells: empty(), excluded: 0 }));
    if (cell === 'excluded') {
      excluded++;
      f.excluded++;
    } else {
      cells[cell]++;
      f.cells[cell]++;
    }
  }
  const offset = q.offset ?? 0;
  const limit = q.limit ?? DEFAULT_LIMIT;
  const selected = pairs.filter(
    (p) => (q.cell === undefined || p.cell === q.cell) && (q.family === undefined || A.index.entries[p.ia].family === q.family),
  );
  const page = selected.slice(offset, offset + limit);
  const energies = async (runId: string, ixs: number[]) =>
    new Map((await store.trajectorySummaries(runId, { caseIndexes: ixs })).rows.map((r) => [r.caseIndex, finite(r.finalEnergy)]));
  const ea = await energies(
    q.a,
    page.map((p) => p.ia),
  );
  const eb = await energies(
    q.b,
    page.map((p) => p.ib),
  );
  const side = (e: IndexEntry, i: number, energy: Map<number, number | null>) => ({
    case_index: i,
    outcome: e.outcome,
    repeat_class: e.repeatClass,
    category: e.category,
    rounds: Math.max(0, e.rounds),
    final_energy: energy.get(i) ?? null,
  });
  const rows: CompareRow[] = page.map((p) => {
    const e = A.index.entries[p.ia];
    return {
      case_id: e.caseId,
      family: e.family,
      source: e.source,
      cell: p.cell,
      a: side(e, p.ia, ea),
      b: side(B.index.entries[p.ib], p.ib, eb),
    };
  });
  return {
    a: await rowOf(A.summary),
    b: await rowOf(B.summary),
    paired: pairs.length,
    only_a: aIds.size - pairs.length,
    only_b: bIds.size - pairs.length,
    excluded,
    cells,
    mcnemar: {
      discordant: cells.a_only + cells.b_only,
      p: mcnemarExact(cells.a_only, cells.b_only),
      method: 'exact McNemar: two-sided binomial test on the discordant pairs (docs/protocol.md §4.2)',
    },
    families: [...fam.entries()].map(([family, f]) => ({
      family,
      cells: f.cells,
      excluded: f.excluded,
      p: mcnemarExact(f.cells.a_only, f.cells.b_only),
    })),
    simulated: simulatedMark([A.summary.simulated, B.summary.simulated]),
    labels: A.reader.labels,
    total: selected.length,
    offset,
    limit,
    rows,
  };
}
