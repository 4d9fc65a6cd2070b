// The hash chain of a run's event log: each event's SHA-256 covers its predecessor's hash, its
// place in the log and its payload bytes, so an edited, inserted or deleted event is detectable by
// re-hashing alone. Every backend links new events, stores the same rows and verifies them the same way.
import { createHash } from 'node:crypto';
import { StoreError } from '../core/errors.ts';
import { eventKey, type NewEvent, type StoredEvent } from './events.ts';
import { runExists } from './store.ts';

/** The `prev_hash` of a run's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** An event row exactly as stored (payload unparsed: the audit re-hashes these bytes). */
export interface EventRow {
  id: number;
  run_id: string;
  seq: number;
  type: string;
  case_index: number | null;
  revision: number | null;
  at: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

/**
 * An event row whose payload may be its stored UTF-8 bytes (a reader's check reads them as bytes:
 * no string to decode and collect for payloads it only hashes).
 */
export type RawEventRow = Omit<EventRow, 'payload'> & { payload: string | Buffer };

/** SHA-256 of the event's fields and payload joined by newlines (the payload hashed in place, not copied; as a string, its UTF-8 bytes). */
export function eventHash(
  prevHash: string,
  runId: string,
  seq: number,
  type: string,
  caseIndex: number | null,
  revision: number | null,
  at: string,
  payload: string | Buffer,
): string {
  return createHash('sha256')
    .update(`${prevHash}\n${runId}\n${seq}\n${type}\n${caseIndex ?? ''}\n${revision ?? ''}\n${at}\n`)
    .update(typeof payload === 'string' && payload.length > LARGE_PAYLOAD ? Buffer.from(payload) : payload)
    .digest('hex');
}

/** Above this many characters a payload is hashed as Buffer.from's bytes (the same bytes: docs/performance.md#the-plans-hash). */
const LARGE_PAYLOAD = 1 << 16;

export function rowToEvent(r: RawEventRow): StoredEvent {
  return {
    id: r.id,
    runId: r.run_id,
    seq: r.seq,
    type: r.type,
    caseIndex: r.case_index,
    revision: r.revision,
    at: r.at,
    payload: JSON.parse(typeof r.payload === 'string' ? r.payload : r.payload.toString('utf8')),
    prevHash: r.prev_hash,
    hash: r.hash,
  } as StoredEvent;
}

/** A run's last event: where its next one links. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** The columns of an inserted event row, in order: run_id, seq, type, case_index, revision, at, payload, prev_hash, hash, key. */
export type EventInsert = [string, number, string, number | null, number | null, string, string, string, string, string | null];

/**
 * Links a group of new events onto a run's chain after `head` (none: a new run), each stamped with
 * `clock()`. A run's first event must be its plan, and a run has one plan: a second run_planned
 * (two planners racing) is refused whole. `insert` writes each row as it is made and returns its id.
 */
export function linkEvents(
  runId: string,
  head: ChainHead | null | undefined,
  events: readonly NewEvent[],
  clock: () => string,
  location: string,
  insert: (row: EventInsert) => number,
): { stored: StoredEvent[]; head: ChainHead } {
  let seq = head?.seq ?? 0;
  let prev = head?.hash ?? GENESIS_HASH;
  const stored: StoredEvent[] = [];
  for (const e of events) {
    if (seq === 0 && e.type !== 'run_planned') throw new Error(`run ${runId}: the first event must be run_planned`);
    if (seq > 0 && e.type === 'run_planned') throw runExists(runId, location);
    seq++;
    const at = clock();
    const payload = JSON.stringify(e.payload);
    const caseIndex = e.caseIndex ?? null;
    const revision = e.revision ?? null;
    const hash = eventHash(prev, runId, seq, e.type, caseIndex, revision, at, payload);
    const id = insert([runId, seq, e.type, caseIndex, revision, at, payload, prev, hash, eventKey(e)]);
    // Spelled out, not `{ ...e, id, … }`: docs/performance.md#hidden-classes
    stored.push({ type: e.type, caseIndex, revision, payload: e.payload, id, runId, seq, at, prevHash: prev, hash } as StoredEvent);
    prev = hash;
  }
  return { stored, head: { seq, hash: prev } };
}

/** One break in a chain: which event, and what is wrong with it. */
export interface ChainProblem {
  seq: number;
  type: string;
  caseIndex: number | null;
  revision: number | null;
  problem: string;
}

/** A run's chain checked one row at a time (in seq order): what `verifyChain` does, for a reader that holds no more than a page of rows. */
export interface ChainVerifier {
  /** Every problem found so far. */
  readonly problems: ChainProblem[];
  /** Checks the next row; its event (null when `toEvent` makes none or its payload is not JSON). */
  push(r: RawEventRow): StoredEvent | null;
}

/** A ChainVerifier; `toEvent` makes the events (null: this row's event is not wanted, and its payload is not parsed here). */
export function chainVerifier(toEvent: (r: RawEventRow) => StoredEvent | null = rowToEvent): ChainVerifier {
  const problems: ChainProblem[] = [];
  let prev = GENESIS_HASH;
  let expectSeq = 1;
  return {
    problems,
    push(r) {
      const at = { seq: r.seq, type: r.type, caseIndex: r.case_index, revision: r.revision };
      if (r.seq !== expectSeq)
        problems.push({
          ...at,
          caseIndex: null,
          revision: null,
          problem: `event${r.seq - expectSeq === 1 ? '' : 's'} seq ${expectSeq}${r.seq - 1 > expectSeq ? `–${r.seq - 1}` : ''} missing (deleted from the log)`,
        });
      if (r.prev_hash !== prev && r.seq === expectSeq)
        problems.push({ ...at, problem: `event seq ${r.seq} (${r.type}) does not link to its predecessor` });
      if (eventHash(r.prev_hash, r.run_id, r.seq, r.type, r.case_index, r.revision, r.at, r.payload) !== r.hash)
        problems.push({ ...at, problem: `event seq ${r.seq} (${r.type}) was modified after it was written (hash mismatch)` });
      prev = r.hash;
      expectSeq = r.seq + 1;
      try {
        return toEvent(r);
      } catch {
        problems.push(payloadProblem(r));
        return null;
      }
    },
  };
}

/** The problem of an event whose payload does not parse. */
export function payloadProblem(r: RawEventRow): ChainProblem {
  return {
    seq: r.seq,
    type: r.type,
    caseIndex: r.case_index,
    revision: r.revision,
    problem: `event seq ${r.seq} (${r.type}) has a payload that is not JSON`,
  };
}

/**
 * Checks a run's rows (in seq order): contiguous sequence numbers from 1, each linked to its
 * predecessor, each hash recomputing, each payload parseable. Returns the parsed events and every
 * problem found. `toEvent` makes the events (a reader that needs only some payloads parses only those).
 */
export function verifyChain(
  rows: readonly RawEventRow[],
  toEvent: (r: RawEventRow) => StoredEvent = rowToEvent,
): { events: StoredEvent[]; problems: ChainProblem[] } {
  const chain = chainVerifier(toEvent);
  const events: StoredEvent[] = [];
  for (const r of rows) {
    const e = chain.push(r);
    if (e) events.push(e);
  }
  return { events, problems: chain.problems };
}

/**
 * Checks rows copied from another store before they are appended (`appendRows`): they continue the
 * run's chain from `head` (its last event here, null for a new run) without gaps, and each hash
 * recomputes. Throws a StoreError naming the first row that does not fit.
 */
export function checkCopiedRows(
  runId: string,
  head: { seq: number; hash: string } | null,
  rows: readonly EventRow[],
  location: string,
): void {
  let seq = head?.seq ?? 0;
  let prev = head?.hash ?? GENESIS_HASH;
  for (const r of rows) {
    const where = `${location}: run '${runId}' event seq ${r.seq} (${r.type})`;
    if (r.run_id !== runId) throw new StoreError(`${where}: belongs to run '${r.run_id}'`, { location, reason: 'other' });
    if (r.seq !== seq + 1) throw new StoreError(`${where}: expected seq ${seq + 1} next in the chain`, { location, reason: 'other' });
    if (r.prev_hash !== prev) throw new StoreError(`${where}: does not link to the run's last event here`, { location, reason: 'other' });
    if (eventHash(r.prev_hash, r.run_id, r.seq, r.type, r.case_index, r.revision, r.at, r.payload) !== r.hash)
      throw new StoreError(`${where}: its hash does not recompute (modified)`, { location, reason: 'other' });
    if (seq === 0 && r.type !== 'run_planned')
      throw new StoreError(`${where}: the first event must be run_planned`, { location, reason: 'other' });
    seq = r.seq;
    prev = r.hash;
  }
}
