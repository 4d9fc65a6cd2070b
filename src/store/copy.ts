// Copying runs between stores (SQLite ↔ PostgreSQL, or any two stores): every event row moves
// verbatim — times, sequence numbers, hashes — so a copied run is the same evidence, and its chain
// is verified before anything is written. A run already at the destination must be the same run:
// same plan and the same history so far (the destination's log a prefix of the source's); then only
// the missing events are appended. Anything else is refused before any run is written.
import { StoreError } from '../core/errors.ts';
import { verifyChain, type EventRow } from './chain.ts';
import type { RunStore } from './store.ts';

/** One run `copyRuns` handled: copied whole, extended with the events the target lacked, or already up to date. */
export interface CopiedRun {
  runId: string;
  /** Events of the run at the source. */
  events: number;
  /** Events appended at the destination by this copy. */
  copied: number;
  status: 'copied' | 'extended' | 'up-to-date';
}

/** Which runs `copyRuns` copies (default: every run) and an optional progress callback. */
export interface CopyOptions {
  /** Only these runs (default: every run of the source, in creation order). */
  runIds?: readonly string[];
  onRun?(run: CopiedRun, index: number, total: number): void;
}

function planSha(rows: readonly EventRow[]): string | null {
  try {
    return (JSON.parse(rows[0].payload) as { plan_sha256?: string }).plan_sha256 ?? null;
  } catch {
    return null;
  }
}

/** Where an event sits in a run, in words: "event seq 7 (draft_accepted, case 3, revision 1)". */
function eventPlace(r: EventRow): string {
  const at = [r.type, r.case_index !== null ? `case ${r.case_index}` : '', r.revision !== null ? `revision ${r.revision}` : ''];
  return `event seq ${r.seq} (${at.filter(Boolean).join(', ')})`;
}

/**
 * Why two logs of the same plan part at one event. Any difference there changes the hash; name the
 * most telling one, so a user sees at once that these are two separate runs rather than a corrupt copy.
 */
function divergence(there: EventRow, here: EventRow, location: string): string {
  if (there.seq === 1)
    return `the plan was recorded separately in each store (at ${there.at} in ${location}, at ${here.at} here): two runs of one plan, not one run copied twice`;
  if (there.type !== here.type || there.case_index !== here.case_index || there.revision !== here.revision)
    return `${eventPlace(there)} in ${location} but ${eventPlace(here)} here: the runs went on separately`;
  if (there.payload !== here.payload) return `${eventPlace(here)} records different content on the two sides: the runs went on separately`;
  return `${eventPlace(here)} was written at ${there.at} in ${location} but at ${here.at} here: the runs went on separately`;
}

/** Copies runs from one store to another; refuses (writing nothing) if any run cannot be copied as it is. */
export async function copyRuns(from: RunStore, to: RunStore, o: CopyOptions = {}): Promise<CopiedRun[]> {
  const known = await from.runIds();
  const ids = o.runIds ?? known;
  const missing = ids.filter((id) => !known.includes(id));
  if (missing.length)
    throw new StoreError(
      from.location,
      'other',
      `${from.location}: no run ${missing.map((m) => `'${m}'`).join(', ')} (runs: ${known.join(', ') || 'none'})`,
    );
  // 1. Check everything first, so a refused run leaves the destination untouched.
  const plans: Array<{ runId: string; rows: EventRow[]; from: number }> = [];
  const problems: string[] = [];
  for (const runId of ids) {
    const rows = await from.rawEventRows(runId);
    const chain = verifyChain(rows);
    if (chain.problems.length) {
      problems.push(
        `run '${runId}' in ${from.location}: its chain is broken (${chain.problems[0].problem}${chain.problems.length > 1 ? `, and ${chain.problems.length - 1} more` : ''}); audit it, nothing copied`,
      );
      continue;
    }
    const there = await to.rawEventRows(runId);
    if (!there.length) {
      plans.push({ runId, rows, from: 0 });
      continue;
    }
    if (planSha(there) !== planSha(rows)) {
      problems.push(
        `run '${runId}' exists in ${to.location} with a different plan (plan_sha256 ${planSha(there)?.slice(0, 12)}… there, ${planSha(rows)?.slice(0, 12)}… here); a run's plan never changes: copy it under another store or remove it there`,
      );
      continue;
    }
    const common = Math.min(rows.length, there.length);
    const diverged = [...Array(common).keys()].find((i) => rows[i].hash !== there[i].hash);
    if (diverged !== undefined) {
      problems.push(
        `run '${runId}' exists in ${to.location} with the same plan but a different history from event seq ${diverged + 1} on (${divergence(there[diverged], rows[diverged], to.location)}); nothing copied: copy it into another store to keep both`,
      );
      continue;
    }
    plans.push({ runId, rows, from: there.length });
  }
  if (problems.length) throw new StoreError(to.location, 'other', `store copy refused:\n  ${problems.join('\n  ')}`);
  // 2. Copy (each run in one transaction at the destination, its chain checked again there).
  const out: CopiedRun[] = [];
  for (const [i, p] of plans.entries()) {
    const rest = p.rows.slice(p.from);
    if (rest.length) await to.appendRows(p.runId, rest);
    const run: CopiedRun = {
      runId: p.runId,
      events: p.rows.length,
      copied: rest.length,
      status: p.from === 0 ? 'copied' : rest.length ? 'extended' : 'up-to-date',
    };
    out.push(run);
    o.onRun?.(run, i, plans.length);
  }
  return out;
}
