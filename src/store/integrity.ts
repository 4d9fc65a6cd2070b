// Whether what a reader is about to show is what the events say: the run's hash chain intact, and
// every column of its derived rows (runs, trajectories, rounds) equal to what the events derive
// (derive.ts, the same owner that writes them). The audit runs it as its first and last steps;
// `analyze`, `report`, `export` and `view` run it on every run they read and refuse a run that
// fails (docs/store.md, "Readers verify what they read"). The verifier replay is the audit's alone.
import { chainVerifier, payloadProblem, rowToEvent, verifyChain, type ChainProblem, type RawEventRow } from './chain.ts';
import { deriveChanges, plannedRun, type PlannedRun } from './derive.ts';
import type { RunPlannedPayload, StoredEvent } from './events.ts';
import type { RunStore, RunSummary } from './store.ts';
import { decodeColumn } from './text-codec.ts';

/** A `runs` row as stored (flags as booleans where the backend stores 0/1). */
export interface RunRowValues {
  kind: unknown;
  controller: unknown;
  model_spec: unknown;
  simulated: unknown;
  budget: unknown;
  protocol: unknown;
  plan_sha256: unknown;
  n_cases: unknown;
  created_at: unknown;
  updated_at: unknown;
  /** PostgreSQL only: the plan event's global id. */
  position?: unknown;
}

/** A `trajectories` row as stored. */
export interface TrajectoryRowValues {
  case_index: number;
  case_id: unknown;
  status: unknown;
  reason: unknown;
  n_rounds: unknown;
  final_joint: unknown;
  attempts_started: unknown;
  attempts_finished: unknown;
  attempts_failed: unknown;
}

/** A `rounds` row as stored. */
export interface RoundRowValues {
  case_index: number;
  revision: number;
  text: unknown;
  state: unknown;
  energy: unknown;
  joint: unknown;
  feedback: unknown;
}

/** Every derived row of one run, exactly as the tables hold them. */
export interface DerivedRows {
  run: RunRowValues | null;
  trajectories: TrajectoryRowValues[];
  rounds: RoundRowValues[];
}

/**
 * The derived rows of the cases `from` ≤ case_index < `to` (case order; rounds by revision) and those
 * cases' event rows (seq order). SQLite's last slice may have `from` = `to` = Infinity: the rows whose
 * case index is not a whole number within ±2^53, which only a forged row has (no plan has such a case).
 */
export interface CaseRows {
  from: number;
  to: number;
  events: RawEventRow[];
  trajectories: TrajectoryRowValues[];
  rounds: RoundRowValues[];
}

/** What `RunStore.scanRunRows` hands over, in this order: the run's row, its log page by page, its cases range by range. */
export interface RunRowsVisitor {
  run(row: RunRowValues | null): void;
  /** The next page of the run's event rows (seq order; payloads as strings or their stored bytes). */
  log(rows: RawEventRow[]): void;
  /** The next range of cases; the ranges cover every case index a row of the run names, lowest first. */
  cases(slice: CaseRows): void;
}

/** Rows per page of a run's log, and cases per range, that `scanRunRows` reads at a time (by default). */
export const SCAN_LOG_PAGE = 1000;
export const SCAN_CASE_RANGE = 128;

/** Slice sizes of `scanRunRows` (tests use small ones to cross many boundaries). */
export interface ScanOptions {
  logPage?: number;
  caseRange?: number;
}

/** A run's event rows (seq order; payloads as strings or their stored bytes) and derived rows from one snapshot (`RunStore.runRows`). */
export interface RunRows extends DerivedRows {
  events: RawEventRow[];
}

/** A flag column as a boolean when it holds one of the backend's two values (0/1, false/true); anything else as it is. */
export function flagValue(v: unknown): unknown {
  if (v === 1 || v === true) return true;
  if (v === 0 || v === false) return false;
  return v;
}

/**
 * The derived rows a run's events give (decoded: as the events hold the values). A reader that goes
 * through a run a range of cases at a time gives the run's plan (`plan`, found in its log) and the
 * range (`from` ≤ case index < `to`): the trajectories are those of the range.
 */
function expectedRows(events: readonly StoredEvent[], o: { plan?: PlannedRun | null; from?: number; to?: number } = {}): DerivedRows {
  const c = deriveChanges(events);
  const plan = o.plan !== undefined ? o.plan : c.plans[0];
  const run: RunRowValues | null = plan
    ? {
        kind: decodeColumn(plan.kind),
        controller: decodeColumn(plan.controller),
        model_spec: decodeColumn(plan.modelSpec),
        simulated: plan.simulated,
        budget: plan.budget,
        protocol: decodeColumn(plan.protocol),
        plan_sha256: plan.planSha256,
        n_cases: plan.caseIds.length,
        created_at: plan.at,
        updated_at: plan.at,
        position: plan.position,
      }
    : null;
  const caseIds = plan?.caseIds ?? [];
  const lo = Math.max(o.from ?? 0, 0);
  const hi = Math.min(o.to ?? caseIds.length, caseIds.length);
  const trajectories: TrajectoryRowValues[] = [];
  for (let i = lo; i < hi; i++)
    trajectories.push({
      case_index: i,
      case_id: decodeColumn(caseIds[i]),
      status: 'pending',
      reason: null,
      n_rounds: 0,
      final_joint: null,
      attempts_started: 0,
      attempts_finished: 0,
      attempts_failed: 0,
    });
  const [dRun, dCase, started, finished, failed, rounds, finalJoint, status, reason] = c.deltas;
  for (let i = 0; i < dRun.length; i++) {
    const t = dCase[i] >= lo && dCase[i] < hi ? trajectories[dCase[i] - lo] : undefined;
    if (!t) continue; // an event naming a case outside the plan: the audit reports it
    t.attempts_started = (t.attempts_started as number) + started[i];
    t.attempts_finished = (t.attempts_finished as number) + finished[i];
    t.attempts_failed = (t.attempts_failed as number) + failed[i];
    t.n_rounds = (t.n_rounds as number) + rounds[i];
    if (rounds[i] > 0) t.final_joint = finalJoint[i];
    if (status[i] !== null) {
      t.status = status[i];
      t.reason = decodeColumn(reason[i]);
    }
  }
  const [rRun, rCase, rRev, rText, rState, rEnergy, rJoint, rFeedback] = c.rounds;
  const byKey = new Map<string, RoundRowValues>();
  for (let i = 0; i < rRun.length; i++) {
    // A round written twice (the unique key refuses it) keeps its first row; the audit names the duplicate.
    const key = `${rCase[i]}:${rRev[i]}`;
    if (!byKey.has(key))
      byKey.set(key, {
        case_index: rCase[i],
        revision: rRev[i],
        text: decodeColumn(rText[i]),
        state: decodeColumn(rState[i]),
        energy: rEnergy[i],
        joint: rJoint[i],
        feedback: decodeColumn(rFeedback[i]),
      });
  }
  return { run, trajectories, rounds: [...byKey.values()] };
}

/** A lone UTF-16 surrogate (one without its pair). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Whether a stored column equals what the events say. One legacy difference is no disagreement:
 * before text-codec.ts, a lone surrogate in a derived text column was stored as U+FFFD (PostgreSQL)
 * or as its three WTF-8 bytes, read back as three U+FFFD (SQLite); the events, which the hashes
 * vouch for, hold it exactly. Stores written by earlier releases read without a false alarm.
 */
export function sameStoredValue(expected: unknown, stored: unknown): boolean {
  if (Object.is(expected, stored)) return true;
  if (typeof expected !== 'string' || typeof stored !== 'string' || !LONE_SURROGATE.test(expected)) return false;
  LONE_SURROGATE.lastIndex = 0;
  return expected.replace(LONE_SURROGATE, '\ufffd') === stored || expected.replace(LONE_SURROGATE, '\ufffd\ufffd\ufffd') === stored;
}

const show = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}…` : v) : String(v));

/** One derived column that disagrees with the events: where, and both values. */
export interface TableProblem {
  caseIndex: number | null;
  revision: number | null;
  problem: string;
}

type Differ = (caseIndex: number | null, revision: number | null, column: string, expected: unknown, actual: unknown) => void;
const differ =
  (out: TableProblem[]): Differ =>
  (caseIndex, revision, column, expected, actual) =>
    out.push({ caseIndex, revision, problem: `${column}: the events say ${show(expected)}, the table holds ${show(actual)}` });
const text = (v: unknown) => (typeof v === 'string' ? decodeColumn(v) : v);

/** The run's row against its plan; `eventAt(t)`: whether one of the run's events has time `t`. */
function compareRunRow(
  want: RunRowValues | null,
  stored: RunRowValues | null,
  eventAt: (t: unknown) => boolean,
  out: TableProblem[],
): void {
  if (want && !stored) out.push({ caseIndex: null, revision: null, problem: 'runs: the run has no row' });
  if (!want && stored) out.push({ caseIndex: null, revision: null, problem: 'runs: a row for a run without a plan event' });
  if (want && stored) {
    const s = stored;
    const cols: Array<[string, unknown, unknown]> = [
      ['kind', want.kind, text(s.kind)],
      ['controller', want.controller, text(s.controller)],
      ['model_spec', want.model_spec, text(s.model_spec)],
      ['simulated', want.simulated, flagValue(s.simulated)],
      ['budget', want.budget, s.budget],
      ['protocol', want.protocol, text(s.protocol)],
      ['plan_sha256', want.plan_sha256, s.plan_sha256],
      ['n_cases', want.n_cases, s.n_cases],
      ['created_at', want.created_at, s.created_at],
    ];
    if (s.position !== undefined) cols.push(['position', want.position, s.position]);
    for (const [col, a, b] of cols) if (!sameStoredValue(a, b)) differ(out)(null, null, `runs.${col}`, a, b);
    // Older SQLite stores rewrote updated_at on each commit: it is the time of one of the run's events.
    if (s.updated_at !== s.created_at && !eventAt(s.updated_at))
      differ(out)(null, null, 'runs.updated_at', 'the planning time or an event time', s.updated_at);
  }
}

/** Trajectory rows against what the events give: differences to `out`, rows the plan does not have to `extra`. */
function compareTrajectoryRows(
  want: readonly TrajectoryRowValues[],
  stored: readonly TrajectoryRowValues[],
  out: TableProblem[],
  extra: TableProblem[],
): void {
  const rows = new Map(stored.map((r) => [r.case_index, r]));
  for (const t of want) {
    const s = rows.get(t.case_index);
    rows.delete(t.case_index);
    if (!s) {
      out.push({ caseIndex: t.case_index, revision: null, problem: 'trajectories: the trajectory has no row' });
      continue;
    }
    const cols: Array<[string, unknown, unknown]> = [
      ['case_id', t.case_id, text(s.case_id)],
      ['status', t.status, s.status],
      ['reason', t.reason, text(s.reason)],
      ['n_rounds', t.n_rounds, s.n_rounds],
      ['final_joint', t.final_joint, flagValue(s.final_joint)],
      ['attempts_started', t.attempts_started, s.attempts_started],
      ['attempts_finished', t.attempts_finished, s.attempts_finished],
      ['attempts_failed', t.attempts_failed, s.attempts_failed],
    ];
    for (const [col, a, b] of cols) if (!sameStoredValue(a, b)) differ(out)(t.case_index, null, `trajectories.${col}`, a, b);
  }
  for (const extraCase of rows.keys())
    extra.push({ caseIndex: extraCase, revision: null, problem: 'trajectories: a row for a case the plan does not have' });
}

/** Round rows against the accepted drafts: differences to `out`, rows without a draft to `extra`. */
function compareRoundRows(
  want: readonly RoundRowValues[],
  stored: readonly RoundRowValues[],
  out: TableProblem[],
  extra: TableProblem[],
): void {
  const rounds = new Map(stored.map((r) => [`${r.case_index}:${r.revision}`, r]));
  for (const r of want) {
    const key = `${r.case_index}:${r.revision}`;
    const s = rounds.get(key);
    rounds.delete(key);
    if (!s) {
      out.push({ caseIndex: r.case_index, revision: r.revision, problem: 'rounds: the accepted draft has no row' });
      continue;
    }
    const cols: Array<[string, unknown, unknown]> = [
      ['text', r.text, text(s.text)],
      ['state', r.state, text(s.state)],
      ['energy', r.energy, s.energy],
      ['joint', r.joint, flagValue(s.joint)],
      ['feedback', r.feedback, text(s.feedback)],
    ];
    for (const [col, a, b] of cols) if (!sameStoredValue(a, b)) differ(out)(r.case_index, r.revision, `rounds.${col}`, a, b);
  }
  for (const s of rounds.values())
    extra.push({ caseIndex: s.case_index, revision: s.revision, problem: 'rounds: a row with no accepted draft in the events' });
}

/** Every difference between the stored derived rows and what the events give (values decoded). */
export function compareDerived(events: readonly StoredEvent[], stored: DerivedRows): TableProblem[] {
  const want = expectedRows(events);
  const run: TableProblem[] = [];
  compareRunRow(want.run, stored.run, (t) => events.some((e) => e.at === t), run);
  const [trajectories, extraTrajectories, rounds, extraRounds]: TableProblem[][] = [[], [], [], []];
  compareTrajectoryRows(want.trajectories, stored.trajectories, trajectories, extraTrajectories);
  compareRoundRows(want.rounds, stored.rounds, rounds, extraRounds);
  return [...run, ...trajectories, ...extraTrajectories, ...rounds, ...extraRounds];
}

/** A run's head: its last event's place and hash (what `export` and `report` print, `audit --expect-head` checks). */
export interface LogHead {
  seq: number;
  hash: string;
}

/** What `checkRunIntegrity` found for one run. */
export interface IntegrityReport {
  runId: string;
  rows: RawEventRow[];
  events: StoredEvent[];
  chain: ChainProblem[];
  tables: TableProblem[];
  /** The last event (null for a run with no events). */
  head: LogHead | null;
  ok: boolean;
}

/** Event types whose payloads the derived rows come from. */
const DERIVING = new Set(['run_planned', 'draft_accepted', 'trajectory_completed', 'trajectory_incomplete', 'trajectory_reopened']);
/** The start of an attempt_finished payload as revloop writes it: whether the attempt succeeded, without parsing its reply. */
const ATTEMPT_HEAD = /^\{"attempt":\d+,"record":\{"ok":(true|false),/;

/**
 * An event with only what the derived rows need parsed: a reader's check (the hash already vouches
 * for every byte). An attempt's outcome is read from the head of its payload (the reply it may
 * carry is not parsed); other events that derive nothing keep an empty payload.
 */
function derivingEvent(r: RawEventRow): StoredEvent {
  if (DERIVING.has(r.type)) return rowToEvent(r);
  const e = rowToEvent({ ...r, payload: 'null' });
  if (r.type === 'attempt_finished') {
    const head = typeof r.payload === 'string' ? r.payload.slice(0, 64) : r.payload.toString('latin1', 0, 64);
    const m = ATTEMPT_HEAD.exec(head);
    (e as { payload: unknown }).payload = m ? { attempt: 0, record: { ok: m[1] === 'true' } } : rowToEvent(r).payload;
  }
  return e;
}

/**
 * The run's chain and derived rows checked against its events (nothing replayed: see the audit for
 * that). `full`: every payload parsed (the audit replays them); otherwise only those the derived rows
 * come from (what the readers need, about a third of the work).
 */
export async function checkRunIntegrity(store: RunStore, runId: string, o: { full?: boolean } = {}): Promise<IntegrityReport> {
  const snapshot = await store.runRows(runId);
  const rows = snapshot.events;
  const { events, problems } = verifyChain(rows, o.full ? rowToEvent : derivingEvent);
  const tables = compareDerived(events, snapshot);
  const last = rows[rows.length - 1];
  return {
    runId,
    rows,
    events,
    chain: problems,
    tables,
    head: last ? { seq: last.seq, hash: last.hash } : null,
    ok: problems.length === 0 && tables.length === 0,
  };
}

/** What a reader's check of one run found (`checkRunSlices`): an IntegrityReport without the rows and events. */
export type ReadCheck = Omit<IntegrityReport, 'rows' | 'events'>;

/**
 * The readers' check (`checkRunIntegrity` without `full`: the same problems, in the same order)
 * holding one slice of the run at a time (`RunStore.scanRunRows`): a page of its log, then a range of
 * cases with their events and derived rows. Read whole, a paper-size run (27,360 trajectories) took
 * about 1 GB in the viewer's checker thread; here its plan and a slice.
 */
export async function checkRunSlices(store: RunStore, runId: string, o: ScanOptions = {}): Promise<ReadCheck> {
  let stored: RunRowValues | null = null;
  let plan: PlannedRun | null = null;
  let updatedAtSeen = false;
  let head: LogHead | null = null;
  // The log pass hashes every row and parses only the events without a case (the plan); a case's
  // events are parsed with its range, where a payload that does not parse is found.
  const chain = chainVerifier((r) => (r.case_index !== null && r.type !== 'run_planned' ? null : derivingEvent(r)));
  const unparsed: ChainProblem[] = [];
  const caseless: StoredEvent[] = [];
  const [trajectories, extraTrajectories, rounds, extraRounds]: TableProblem[][] = [[], [], [], []];
  await store.scanRunRows(
    runId,
    {
      run(row) {
        stored = row;
      },
      log(rows) {
        for (const r of rows) {
          const e = chain.push(r);
          if (stored && r.at === stored.updated_at) updatedAtSeen = true;
          head = { seq: r.seq, hash: r.hash };
          if (e?.type === 'run_planned') plan ??= plannedRun(e);
          // An event of a trajectory without a case (a forged log's): its round is compared after the ranges.
          else if (e && DERIVING.has(e.type)) caseless.push(e);
        }
      },
      cases(slice) {
        const events: StoredEvent[] = [];
        for (const r of slice.events) {
          if (r.type === 'run_planned') continue; // parsed (or found unparseable) in the log pass
          try {
            events.push(derivingEvent(r));
          } catch {
            unparsed.push(payloadProblem(r));
          }
        }
        const want = expectedRows(events, { plan, from: slice.from, to: slice.to });
        compareTrajectoryRows(want.trajectories, slice.trajectories, trajectories, extraTrajectories);
        compareRoundRows(want.rounds, slice.rounds, rounds, extraRounds);
      },
    },
    o,
  );
  if (caseless.length) compareRoundRows(expectedRows(caseless, { plan, from: 0, to: 0 }).rounds, [], rounds, extraRounds);
  const run: TableProblem[] = [];
  compareRunRow(expectedRows([], { plan, from: 0, to: 0 }).run, stored, () => updatedAtSeen, run);
  // In log order, as verifyChain lists them (a stable sort: a row's payload problem after its others).
  const problems = [...chain.problems, ...unparsed].sort((a, b) => a.seq - b.seq);
  const tables = [...run, ...trajectories, ...extraTrajectories, ...rounds, ...extraRounds];
  return { runId, chain: problems, tables, head, ok: problems.length === 0 && tables.length === 0 };
}

/** One line per problem of a report (case numbers 1-based, as the audit prints them), at most `max`. */
export function integrityLines(r: Pick<IntegrityReport, 'chain' | 'tables'>, max = 5): string[] {
  const where = (caseIndex: number | null, revision: number | null) =>
    [caseIndex !== null ? `case #${caseIndex + 1}` : null, revision !== null ? `revision ${revision}` : null].filter(Boolean).join(' ');
  const all = [
    ...r.chain.map((p) => `${p.problem}`),
    ...r.tables.map((p) => {
      const w = where(p.caseIndex, p.revision);
      return w ? `${w}: ${p.problem}` : p.problem;
    }),
  ];
  return all.length > max ? [...all.slice(0, max), `… and ${all.length - max} more`] : all;
}

/**
 * What a listing shows of a run (`runs`) checked against its plan event alone: one event per run,
 * so a listing of a large store stays quick. The counts a listing shows come from the trajectories
 * table; the readers' full check (checkRunIntegrity) and the audit cover those. Problems in words.
 */
export function summaryProblems(summary: RunSummary, planned: RunPlannedPayload): string[] {
  const want = plannedRun({ type: 'run_planned', payload: planned, runId: summary.runId, id: 0 } as StoredEvent & { type: 'run_planned' });
  const cols: Array<[string, unknown, unknown]> = [
    ['kind', decodeColumn(want.kind), summary.kind],
    ['controller', decodeColumn(want.controller), summary.controller],
    ['model_spec', decodeColumn(want.modelSpec), summary.modelSpec],
    ['simulated', want.simulated, summary.simulated],
    ['budget', want.budget, summary.budget],
    ['protocol', decodeColumn(want.protocol), summary.protocol],
    ['plan_sha256', want.planSha256, summary.planSha256],
    ['n_cases', want.caseIds.length, summary.cases],
  ];
  return cols
    .filter(([, a, b]) => !Object.is(a, b))
    .map(([col, a, b]) => `runs.${col}: the events say ${show(a)}, the table holds ${show(b)}`);
}
