// The replay audit of one run. It trusts nothing stored: it re-hashes the event chain, replays
// every verifier state from the stored text, checks revision continuity, the stop rule (no
// continuation after success, the full budget when unresolved), final flags, that every accepted
// draft came from a successful attempt, that the messages sent were the protocol's, and that the
// derived tables equal a fresh reduction of the events. Each discrepancy names case, revision and
// field.
import { parseHistoryWindow, type HistoryWindow } from '../remedy/history-window.ts';
import { messagesSha256, toExchange, type AcceptedRound } from './loop.ts';
import {
  banProviderNamed,
  cycleOfRounds,
  messageBuilderNamed,
  verbatimMessages,
  type BanProvider,
  type MessageBuilder,
  type RoundContext,
} from './round-policy.ts';
import { canonicalJson } from '../core/util/hash.ts';
import { pyStrip } from '../core/py/format.ts';
import type { ConstraintCase, Family, PromptVariant } from '../core/verify/types.ts';
import { diffLeaves } from '../core/util/json-diff.ts';
import { terminationOf, type RunPlannedPayload, type StoredEvent, type TrajectoryRunPlanned } from '../store/events.ts';
import { frozenTextsSha256, isTrajectoryPlan, planSha256 } from '../store/plan.ts';
import { planProblems, runKind, type FrozenPrefix } from '../store/run-kinds.ts';
import { reduceRun } from '../store/reduce.ts';
import type { RawEventRow } from '../store/chain.ts';
import { checkRunIntegrity, sameStoredValue } from '../store/integrity.ts';
import type { RunStore } from '../store/store.ts';
import type { TrajectoryRecord } from '../store/types.ts';

/** One difference between what a run stored and what replaying its events recomputes: where (case, revision, field) and what. */
export interface Discrepancy {
  caseIndex: number | null;
  caseId: string | null;
  revision: number | null;
  field: string;
  problem: string;
}

/** What `auditRun` returns: the counts it checked, every discrepancy (empty when the run replays exactly), and notes on what it could not re-derive. */
export interface AuditReport {
  runId: string;
  events: number;
  trajectories: number;
  rounds: number;
  pending: number;
  discrepancies: Discrepancy[];
  notes: string[];
  passed: boolean;
  /** The log's head as audited (its last event; null: no events): keep it, and a later `--expect-head` finds a log shortened since. */
  head: { seq: number; hash: string } | null;
}

export function formatDiscrepancy(d: Discrepancy): string {
  const where = [
    d.caseId !== null ? `case ${d.caseId} (#${(d.caseIndex ?? 0) + 1})` : d.caseIndex !== null ? `case #${d.caseIndex + 1}` : 'run',
    d.revision !== null ? `revision ${d.revision}` : null,
  ]
    .filter(Boolean)
    .join(' ');
  return `${where}: ${d.field}: ${d.problem}`;
}

/** The first differing field of two verifier states, e.g. "observed_word_count: stored 11, replayed 12". */
function stateDiff(stored: unknown, replayed: unknown): { field: string; problem: string } | null {
  const diffs = diffLeaves(stored, replayed, ['stored', 'replayed'], 1);
  if (!diffs.length) return null;
  const [path, ...rest] = diffs[0].split(': ');
  return { field: `state.${path}`, problem: rest.join(': ') };
}

/** How the messages of a run that is not a plain verbatim `run` were built (an experiment's arms). */
export interface AuditReplay {
  messagePolicy: MessageBuilder;
  banProvider?: BanProvider;
  /** Compare each attempt's bans with the provider's (default true; an absent provider bans nothing). */
  checkBans?: boolean;
}

export interface AuditOptions {
  /**
   * The hash of an event the log must hold (a head printed by `export` or `report` earlier): a log
   * shortened since, or rewritten, no longer holds it.
   */
  expectHead?: string;
  /**
   * The run's message policy (and ban provider), re-created from its plan by the study that owns
   * it; with it the messages (and bans) of every attempt are re-derived. Without it only verbatim
   * `run` plans are re-derived.
   */
  replay?: (planned: TrajectoryRunPlanned) => AuditReplay | null;
}

/** The replay audit of a stored run (docs/store.md): re-hashes the event chain, re-reduces the events, recomputes every verifier state from the stored text with `resolveFamily`, and checks the stop rule, frozen prefixes, the messages and bans sent and the derived tables. It never throws for what it finds. */
export async function auditRun(
  store: RunStore,
  runId: string,
  resolveFamily: (name: string) => Family,
  options: AuditOptions = {},
): Promise<AuditReport> {
  const found: Discrepancy[] = [];
  const notes: string[] = [];
  const add = (caseIndex: number | null, caseId: string | null, revision: number | null, field: string, problem: string) =>
    found.push({ caseIndex, caseId, revision, field, problem });

  // 1. The event chain (contiguous sequence numbers, linked and unmodified hashes, parseable
  // payloads), every column of the derived rows against what the events derive, and the head
  // against the one the user kept (a shortened log leaves no trace in the store itself).
  const integrity = await checkRunIntegrity(store, runId, { full: true });
  const { rows, events } = integrity;
  for (const p of integrity.chain) add(p.caseIndex, null, p.revision, 'events', p.problem);
  for (const p of integrity.tables) add(p.caseIndex, null, p.revision, 'tables', p.problem);
  if (options.expectHead !== undefined) {
    const want = options.expectHead.trim().toLowerCase();
    const problem = headProblem(rows, want);
    if (problem) add(null, null, null, 'head', problem);
    else if (integrity.head && integrity.head.hash !== want)
      notes.push(
        `the expected head is event seq ${rows.find((r) => r.hash === want)!.seq}; the log continues past it to seq ${integrity.head.seq}`,
      );
  }
  const reduced = reduceRun(events);
  if (!reduced) {
    add(null, null, null, 'plan', rows.length ? 'the log has no run_planned event' : `no run '${runId}' in ${store.location}`);
    return finish();
  }

  // 2. The plan: first, unique, and its hash recomputes.
  const plannedEvents = events.filter((e) => e.type === 'run_planned');
  const anyPlanned = plannedEvents[0].payload;
  if (events[0]?.type !== 'run_planned') add(null, null, null, 'plan', 'run_planned is not the first event');
  if (plannedEvents.length > 1) add(null, null, null, 'plan', `${plannedEvents.length} run_planned events (a plan never changes)`);
  if (planSha256(anyPlanned.plan, anyPlanned.cases, anyPlanned.per_case) !== anyPlanned.plan_sha256)
    add(null, null, null, 'plan', 'plan_sha256 does not match the stored plan and cases');
  // The plan as the study that owns its kind judges it (src/store/run-kinds.ts), and the study's reduction.
  const problems = planProblems(anyPlanned);
  if (problems === null) notes.push(`no study registered run kind '${anyPlanned.plan.kind}' here: its plan was not checked by its study`);
  for (const p of problems ?? []) add(null, null, null, 'plan', p);
  if (reduced.resultsError !== undefined)
    add(null, null, null, 'results', `the study's reducer failed on this log: ${reduced.resultsError}`);
  else if ('results' in reduced) for (const p of studyAudit(anyPlanned, reduced.results)) add(null, null, null, 'results', p);
  if (!isTrajectoryPlan(anyPlanned.plan)) {
    // A study run's results are keyed records: the chain and the plan are what there is to check.
    notes.push(`a ${anyPlanned.plan.kind} run: its event chain and plan were checked; it has no trajectories to replay`);
    return finish();
  }
  const planned = anyPlanned as TrajectoryRunPlanned;

  const variant = planned.plan.protocol.variant as PromptVariant;
  let history: HistoryWindow | null = null;
  try {
    history = parseHistoryWindow(planned.plan.protocol.history);
  } catch {
    add(null, null, null, 'plan', `unknown history policy '${planned.plan.protocol.history}'`);
  }
  const kind = planned.plan.kind;
  const spec = runKind(kind);
  let replay: AuditReplay | null = options.replay?.(planned) ?? null;
  // A run under one of revloop's harnesses is rebuilt by its names (messages and bans); a policy of
  // someone else's cannot be.
  if (!replay && kind === 'run') {
    try {
      const p = planned.plan.protocol;
      replay = {
        messagePolicy: p.message_policy === 'verbatim' ? verbatimMessages : messageBuilderNamed(p.message_policy),
        banProvider: banProviderNamed(p.ban_provider),
      };
    } catch {
      replay = null;
    }
  }
  const checkMessages = kind !== 'import' && kind !== 'revise' && replay !== null && history !== null;
  if (kind === 'revise') notes.push("a revise() loop: its requests are the caller's prompt under its policy; messages are not re-derived");
  else if (kind !== 'import' && !checkMessages)
    notes.push(`messages not re-derived: message policy '${planned.plan.protocol.message_policy}' is not one this audit can rebuild`);
  const cycleStop = planned.plan.protocol.stop_rule === 'first-joint-success-budget-or-cycle';
  // A guard the plan sets (a context window) may end a trajectory before the stop rule.
  const guarded = spec?.guarded?.(planned) ?? false;

  // 3. Per trajectory: its events in order, then the replay of every round.
  const byCase = new Map<number, StoredEvent[]>();
  for (const e of events) {
    if (e.caseIndex === null) continue;
    if (e.caseIndex < 0 || e.caseIndex >= planned.cases.length) {
      add(e.caseIndex, null, e.revision, 'events', `event seq ${e.seq} (${e.type}) names a case outside the plan`);
      continue;
    }
    const list = byCase.get(e.caseIndex) ?? [];
    list.push(e);
    byCase.set(e.caseIndex, list);
  }
  const familyCache = new Map<string, Family | null>();
  const familyOf = (name: string): Family | null => {
    if (!familyCache.has(name)) {
      try {
        familyCache.set(name, resolveFamily(name));
      } catch (e) {
        familyCache.set(name, null);
        // A revise() loop verified by the caller's own function has no family to replay.
        if (kind === 'revise') notes.push(`family '${name}' is the caller's verifier: its states are not replayed`);
        else add(null, null, null, 'family', `cannot replay family '${name}': ${(e as Error).message}`);
      }
    }
    return familyCache.get(name)!;
  };
  for (const [name, fp] of Object.entries(planned.plan.families)) {
    const f = familyOf(name);
    if (f && f.version !== fp.version)
      notes.push(`family ${name}: run planned with verifier version ${fp.version}, replayed with ${f.version}`);
  }

  reduced.trajectories.forEach((t) => {
    const family = familyOf(t.family);
    const prefix = kind === 'import' ? null : (spec?.frozenPrefix?.(planned, t.caseIndex) ?? null);
    const frozen = kind === 'import' ? Infinity : (prefix?.rounds ?? 0);
    const events = byCase.get(t.caseIndex) ?? [];
    auditEvents(t, events, frozen, guarded, add);
    if (prefix) auditFrozen(t, prefix, add);
    if (family) auditRounds(t, family, variant, kind, cycleStop, add);
    if (family && checkMessages && history && replay) auditMessages(t, events, family, variant, history, replay, add);
  });

  // 4. The derived tables equal a fresh reduction.
  const mat = await store.materialized(runId);
  reduced.trajectories.forEach((t, i) => {
    const m = mat.trajectories[i];
    const diffs = diffLeaves(t, m, ['events', 'tables'], 3, sameStoredValue);
    for (const d of diffs) add(i, t.caseId, null, 'tables', `derived tables disagree with the events: ${d}`);
    const a = reduced.attempts[i];
    const ma = mat.attempts[i];
    if (ma && canonicalJson(a) !== canonicalJson(ma))
      add(i, t.caseId, null, 'tables', `attempt counts: events ${canonicalJson(a)}, tables ${canonicalJson(ma)}`);
    if (mat.nRounds[i] !== t.rounds.length)
      add(i, t.caseId, null, 'tables', `n_rounds: events ${t.rounds.length}, tables ${mat.nRounds[i]}`);
  });
  const pendingCount = reduced.trajectories.filter((t) => t.status === 'pending').length;
  if (pendingCount) notes.push(`${pendingCount} trajectories not finished (the run was interrupted or is running; resume it to finish)`);
  return finish();

  function finish(): AuditReport {
    const ts = reduced?.trajectories ?? [];
    for (const d of found) if (d.caseId === null && d.caseIndex !== null && ts[d.caseIndex]) d.caseId = ts[d.caseIndex].caseId;
    return {
      runId,
      events: rows.length,
      trajectories: ts.length,
      rounds: ts.reduce((n, t) => n + t.rounds.length, 0),
      pending: ts.filter((t) => t.status === 'pending').length,
      discrepancies: found,
      notes,
      passed: found.length === 0,
      head: rows.length ? { seq: rows[rows.length - 1].seq, hash: rows[rows.length - 1].hash } : null,
    };
  }
}

/** What the study that owns the run's kind finds wrong in its reduced results (a throw is one problem). */
function studyAudit(planned: RunPlannedPayload, results: unknown): string[] {
  const audit = runKind(planned.plan.kind)?.audit;
  if (!audit) return [];
  try {
    return audit(results, planned);
  } catch (e) {
    return [`the study's audit failed: ${e instanceof Error ? e.message : String(e)}`];
  }
}

/** Why a log does not hold the expected head, or null when it does. */
function headProblem(rows: readonly RawEventRow[], want: string): string | null {
  if (!/^[0-9a-f]{64}$/.test(want)) return `expectHead must be a 64-digit hex SHA-256 (a head printed by export or report), got '${want}'`;
  if (rows.some((r) => r.hash === want)) return null;
  const last = rows[rows.length - 1];
  return `the log does not hold the expected head ${want.slice(0, 16)}…: it was shortened or rewritten since that head was printed (it now ends at seq ${last?.seq ?? 0}, ${last ? `${last.hash.slice(0, 16)}…` : 'no events'})`;
}

type Add = (caseIndex: number | null, caseId: string | null, revision: number | null, field: string, problem: string) => void;

/** A trajectory's frozen prefix (its study's, src/store/run-kinds.ts) is there, whole, and exactly the texts its plan hashed. */
function auditFrozen(t: TrajectoryRecord, prefix: FrozenPrefix, add: Add): void {
  if (!Number.isFinite(prefix.rounds)) return;
  const texts = t.rounds.slice(0, prefix.rounds).map((r) => r.text);
  if (texts.length < prefix.rounds)
    add(t.caseIndex, t.caseId, null, 'frozen', `${texts.length} of the ${prefix.rounds} frozen rounds are in the log`);
  else if (prefix.textsSha256 !== null && frozenTextsSha256(texts) !== prefix.textsSha256)
    add(t.caseIndex, t.caseId, null, 'frozen', "the frozen rounds' texts differ from the ones the plan hashed");
}

/** Event order within one trajectory: continuity, attempts behind generated drafts, stop markers. */
function auditEvents(t: TrajectoryRecord, events: StoredEvent[], frozen: number, guarded: boolean, add: Add): void {
  const id = t.caseId;
  let rounds = 0;
  let ended: 'success' | 'complete' | null = null;
  let okTexts: string[] = [];
  let started = false;
  for (const e of events) {
    switch (e.type) {
      case 'attempt_started':
        started = true;
        okTexts = [];
        if (e.revision !== rounds)
          add(t.caseIndex, id, e.revision, 'revision', `attempt started for revision ${e.revision} when revision ${rounds} was next`);
        break;
      case 'attempt_finished':
        if (!started) add(t.caseIndex, id, e.revision, 'attempts', `attempt ${e.payload.attempt} finished without being started`);
        if (e.payload.record.ok && typeof e.payload.record.text === 'string') okTexts.push(pyStrip(e.payload.record.text));
        break;
      case 'draft_accepted': {
        const r = e.revision ?? -1;
        if (ended)
          add(
            t.caseIndex,
            id,
            r,
            'stop rule',
            ended === 'success' ? 'continuation after success' : 'draft accepted after the trajectory was completed',
          );
        if (r !== rounds)
          add(t.caseIndex, id, r, 'revision', `expected revision ${rounds}, found ${r} (revisions must be contiguous from 0)`);
        if (r >= frozen) {
          if (!started) add(t.caseIndex, id, r, 'attempts', 'draft accepted without an attempt');
          else if (!okTexts.includes(e.payload.text))
            add(t.caseIndex, id, r, 'text', 'accepted text is not the stripped text of a successful attempt');
        }
        if (e.payload.joint) ended = 'success';
        rounds++;
        started = false;
        okTexts = [];
        break;
      }
      case 'trajectory_completed': {
        const p = e.payload;
        if (p.rounds !== rounds) add(t.caseIndex, id, null, 'rounds', `completion says ${p.rounds} rounds, the log holds ${rounds}`);
        if (terminationOf(p.stop) !== undefined && !guarded)
          add(t.caseIndex, id, null, 'stop rule', `ended early (${p.stop}), but the plan sets no guard that ends trajectories early`);
        ended ??= 'complete';
        break;
      }
      case 'trajectory_reopened':
        break;
      default:
        break;
    }
  }
}

/** Replays every round and checks the stop rule and final flags against the budget. */
function auditRounds(t: TrajectoryRecord, family: Family, variant: PromptVariant, kind: string, cycleStop: boolean, add: Add): void {
  const id = t.caseId;
  const c: ConstraintCase = t.case;
  t.rounds.forEach((r, i) => {
    if (r.text !== pyStrip(r.text)) add(t.caseIndex, id, r.revision, 'text', 'stored text is not stripped');
    let state;
    try {
      state = family.verify(r.text, c);
    } catch (e) {
      add(t.caseIndex, id, r.revision, 'state', `verifier failed on the stored text: ${(e as Error).message}`);
      return;
    }
    const d = stateDiff(r.state, state);
    if (d) add(t.caseIndex, id, r.revision, d.field, d.problem);
    const energy = family.energy(state);
    if (!Object.is(energy, r.energy)) add(t.caseIndex, id, r.revision, 'energy', `stored ${r.energy}, replayed ${energy}`);
    if (r.joint !== (state.joint_success === true))
      add(t.caseIndex, id, r.revision, 'joint', `stored ${r.joint}, replayed ${state.joint_success}`);
    const last = i === t.rounds.length - 1;
    if (r.joint && !last)
      add(t.caseIndex, id, t.rounds[i + 1].revision, 'stop rule', `continuation after success at revision ${r.revision}`);
    if (r.feedback !== null && r.feedback !== undefined) {
      const expected = family.feedback(state, c, variant);
      if (r.feedback !== expected)
        add(t.caseIndex, id, r.revision, 'feedback', 'stored feedback differs from the report rendered from the replayed state');
    } else if (!last && kind !== 'import') {
      add(t.caseIndex, id, r.revision, 'feedback', 'the loop continued but no feedback was recorded');
    }
  });
  const n = t.rounds.length;
  const lastRound = t.rounds[n - 1];
  if (n > t.budget + 1) add(t.caseIndex, id, lastRound.revision, 'stop rule', `${n} rounds exceed the budget of ${t.budget} revisions`);
  // Under a harness that stops at persistent cycles, the replayed drafts must show the cycle.
  const cycled =
    cycleStop && !!lastRound && cycleOfRounds(t.rounds.map((r) => ({ draft: r.text, state: r.state, energy: r.energy }))) !== null;
  const stopReached = !!lastRound && (lastRound.joint || n >= t.budget + 1 || cycled);
  const endedEarly = t.status === 'complete' && t.termination !== undefined;
  if (endedEarly) {
    // Ended by the plan's guard before a generation (a prompt that would not fit the context window;
    // token counts need the backend, so taken as recorded).
    if (!lastRound) add(t.caseIndex, id, null, 'status', 'complete without any round');
    else if (stopReached)
      add(t.caseIndex, id, lastRound.revision, 'stop rule', `ended early (${t.termination}) after the stop rule was reached`);
  } else if (t.status === 'complete') {
    if (!lastRound) add(t.caseIndex, id, null, 'status', 'complete without any round');
    // revise() also stops at its token, money and time budgets (docs/revise.md §1).
    else if (!lastRound.joint && n < t.budget + 1 && !cycled && kind !== 'revise')
      add(t.caseIndex, id, lastRound.revision, 'stop rule', `unresolved but stopped after ${n} of ${t.budget + 1} rounds`);
    else if (lastRound.feedback !== null && lastRound.feedback !== undefined)
      add(t.caseIndex, id, lastRound.revision, 'feedback', 'feedback recorded after the final round');
  } else if (stopReached) {
    add(t.caseIndex, id, lastRound.revision, 'status', `the stop rule was reached but the trajectory is ${t.status}`);
  }
  if (t.status === 'incomplete' && !t.incompleteReason) add(t.caseIndex, id, null, 'status', 'protocol-incomplete without a reason');
}

/**
 * Each attempt's message list (and ban list) must be the one the run's message policy (and ban
 * provider) builds from the accepted rounds before it.
 */
function auditMessages(
  t: TrajectoryRecord,
  events: StoredEvent[],
  family: Family,
  variant: PromptVariant,
  history: HistoryWindow,
  replay: AuditReplay,
  add: Add,
): void {
  const initialPrompt = family.initialPrompt(t.case, variant);
  for (const e of events) {
    if (e.type !== 'attempt_started' || e.revision === null) continue;
    const prior = t.rounds.slice(0, e.revision);
    if (prior.length !== e.revision || prior.some((r) => r.feedback === null || r.feedback === undefined)) continue; // reported elsewhere
    const ctx: RoundContext = {
      case: t.case,
      family,
      variant,
      history,
      revision: e.revision,
      initialPrompt,
      exchanges: prior.map((r) => toExchange(r as AcceptedRound)),
    };
    if (messagesSha256(replay.messagePolicy.build(ctx)) !== e.payload.messages_sha256) {
      add(
        t.caseIndex,
        t.caseId,
        e.revision,
        'messages',
        `the messages sent (seq ${e.seq}) are not the protocol's for the accepted history`,
      );
    }
    if (replay.checkBans === false) continue;
    const banned = replay.banProvider?.sequences(ctx);
    const expected = banned && banned.length ? banned : undefined;
    const recorded = replay.banProvider?.answers ? e.payload.banned_answers : e.payload.banned_sequences;
    const other = replay.banProvider?.answers ? e.payload.banned_sequences : e.payload.banned_answers;
    if (canonicalJson(expected ?? null) !== canonicalJson(recorded ?? null) || other !== undefined)
      add(
        t.caseIndex,
        t.caseId,
        e.revision,
        'bans',
        `the sequences banned (seq ${e.seq}) are not the ban provider's for the accepted history`,
      );
  }
}
