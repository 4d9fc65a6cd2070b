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
  /**
   * Events the destination holds beyond the source's last one (0 when none): the run went on there
   * after an earlier copy, or the source's log was shortened since (docs/store.md). Said, never hidden.
   */
  ahead: number;
  /** The run's head as copied (its last event at the source): what `audit --expect-head` holds a later log against. */
  head: { seq: number; hash: string } | null;
}

/** What a copy needs of its destination (app/store-copy.ts opens it only once there is something to write). */
export type CopyDestination = Pick<RunStore, 'location' | 'rawEventRows' | 'appendRows'>;

/** Which runs `copyRuns` copies (default: every run) and optional progress callbacks, one per pass. */
export interface CopyOptions {
  /** Only these runs (default: every run of the source, in creation order). */
  runIds?: readonly string[];
  /**
   * Payload characters the first pass may keep for the second instead of reading those runs again
   * (default 64 Mi); 0 reads every run twice, holding one run at a time.
   */
  retainedPayloadChars?: number;
  /**
   * Heads kept from an earlier `export`, `report`, `run` or `audit` (event hashes): each must be an
   * event of one of the runs copied, or the copy is refused before anything is written (a source log
   * shortened or rewritten since that head was printed).
   */
  expectHeads?: readonly string[];
  /** A run's chain was verified and compared with the destination (first pass). */
  onChecked?(runId: string, index: number, total: number): void;
  /** A run was written at the destination, or found up to date there (second pass). */
  onRun?(run: CopiedRun, index: number, total: number): void;
}

/** What the first pass learnt of a run it may copy: the events checked, and where the destination's log ends. */
interface CheckedRun {
  runId: string;
  /** Events of the run at the source when it was checked: exactly these are copied. */
  events: number;
  /** Events the destination already holds (its log a prefix of the source's). */
  from: number;
  /** Hash of the last event checked, to recognise the same log in the second pass. */
  lastHash: string;
  /** Events the destination holds beyond the source's end. */
  ahead: number;
  /** The seq of the last event checked. */
  lastSeq: number;
  /** The rows, kept from the first pass while the kept payloads stay within the retention budget. */
  rows: EventRow[] | null;
}

/**
 * Payload characters the first pass keeps for the second by default: a store this size copies with
 * one read per run, a larger one in the memory of its largest run plus this.
 */
const RETAINED_PAYLOAD_CHARS = 64 * 1024 * 1024;

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

/**
 * Copies runs from one store to another; refuses (writing nothing) if any run cannot be copied as it
 * is. Two passes: the first verifies every chain and compares it with the destination, the second
 * appends exactly the events the first checked (a source still being written keeps its checked
 * prefix; events added since wait for the next copy). The first pass keeps runs for the second only
 * up to `retainedPayloadChars` and the second reads the rest again, one run at a time, so a
 * paper-scale store copies in the memory of its largest run rather than of the whole store.
 */
export async function copyRuns(from: RunStore, to: CopyDestination, o: CopyOptions = {}): Promise<CopiedRun[]> {
  const known = await from.runIds();
  const ids = o.runIds ?? known;
  const missing = ids.filter((id) => !known.includes(id));
  if (missing.length)
    throw new StoreError(`${from.location}: no run ${missing.map((m) => `'${m}'`).join(', ')} (runs: ${known.join(', ') || 'none'})`, {
      location: from.location,
      reason: 'other',
    });
  // 1. Check everything first, so a refused run leaves the destination untouched.
  const checked: CheckedRun[] = [];
  const problems: string[] = [];
  const budget = o.retainedPayloadChars ?? RETAINED_PAYLOAD_CHARS;
  let retained = 0;
  const heads = new Set((o.expectHeads ?? []).map((h) => h.trim().toLowerCase()));
  for (const [i, runId] of ids.entries()) {
    const c = await checkRun(from, to, runId);
    if (typeof c === 'string') problems.push(c);
    else {
      if (heads.size) for (const r of c.rows!) heads.delete(r.hash);
      const chars = c.rows!.reduce((n, r) => n + r.payload.length, 0);
      // Kept only when it will be written, and within the budget.
      if (problems.length || c.events === c.from || retained + chars > budget) c.rows = null;
      else retained += chars;
      checked.push(c);
    }
    o.onChecked?.(runId, i, ids.length);
  }
  for (const h of heads)
    problems.push(
      `no run copied holds the expected head ${h.slice(0, 16)}…: the source's log was shortened or rewritten since that head was printed (or it belongs to a run not copied); nothing copied`,
    );
  if (problems.length) throw new StoreError(`store copy refused:\n  ${problems.join('\n  ')}`, { location: to.location, reason: 'other' });
  // 2. Copy (each run in one transaction at the destination, its chain checked again there).
  const out: CopiedRun[] = [];
  for (const [i, c] of checked.entries()) {
    if (c.events > c.from) {
      const rows = c.rows ?? (await from.rawEventRows(c.runId));
      c.rows = null;
      if (rows.length < c.events || rows[c.events - 1].hash !== c.lastHash)
        throw new StoreError(
          `run '${c.runId}' in ${from.location} changed while it was being copied (event seq ${c.events} is no longer the one checked); runs before it were copied, run the copy again`,
          { location: from.location, reason: 'other' },
        );
      await to.appendRows(c.runId, rows.slice(c.from, c.events));
    }
    const run: CopiedRun = {
      runId: c.runId,
      events: c.events,
      copied: c.events - c.from,
      status: c.from === 0 ? 'copied' : c.events > c.from ? 'extended' : 'up-to-date',
      ahead: c.ahead,
      head: c.events ? { seq: c.lastSeq, hash: c.lastHash } : null,
    };
    out.push(run);
    o.onRun?.(run, i, checked.length);
  }
  return out;
}

/** Verifies a run's chain and compares it with the destination's: what to copy, or the problem in words. */
async function checkRun(from: RunStore, to: CopyDestination, runId: string): Promise<CheckedRun | string> {
  const rows = await from.rawEventRows(runId);
  const chain = verifyChain(rows);
  if (chain.problems.length)
    return `run '${runId}' in ${from.location}: its chain is broken (${chain.problems[0].problem}${chain.problems.length > 1 ? `, and ${chain.problems.length - 1} more` : ''}); audit it, nothing copied`;
  const there = await to.rawEventRows(runId);
  if (there.length) {
    if (planSha(there) !== planSha(rows))
      return `run '${runId}' exists in ${to.location} with a different plan (plan_sha256 ${planSha(there)?.slice(0, 12)}… there, ${planSha(rows)?.slice(0, 12)}… here); a run's plan never changes: copy it under another store or remove it there`;
    const common = Math.min(rows.length, there.length);
    const diverged = [...Array(common).keys()].find((i) => rows[i].hash !== there[i].hash);
    if (diverged !== undefined)
      return `run '${runId}' exists in ${to.location} with the same plan but a different history from event seq ${diverged + 1} on (${divergence(there[diverged], rows[diverged], to.location)}); nothing copied: copy it into another store to keep both`;
  }
  // A destination ahead of the source (a copy newer than its origin, or a source shortened since) has nothing to receive.
  return {
    runId,
    events: rows.length,
    from: Math.min(there.length, rows.length),
    lastHash: rows[rows.length - 1]?.hash ?? '',
    ahead: Math.max(0, there.length - rows.length),
    lastSeq: rows[rows.length - 1]?.seq ?? 0,
    rows,
  };
}
