// The one kit every study uses to keep its runs in the store: a run with an immutable plan (the
// `run_planned` event), sessions (`session_started` / `session_finished`), one writing process at a
// time (the store's run locks), and results as keyed `record` events that are stored exactly once.
// Studies with trajectories use the trajectory events instead; the
// listing, audit and copy of runs work the same for all.
import { REVLOOP_VERSION } from '../core/version.ts';
import { namingOption, UserError } from '../core/errors.ts';
import { canonicalJson, sha256Hex } from '../core/util/hash.ts';
import { hostname } from 'node:os';
import type { NewEvent, RecordPayload, SessionFinishedPayload, SessionStartedPayload, StoredEvent, StudyRunPlanned } from './events.ts';
import { assertSamePlan, isTrajectoryPlan, type StudyController, type StudyPlan } from './plan.ts';
import { planFormat, runKind } from './run-kinds.ts';
import type { RunStore } from './store.ts';

/** What a study asks for when it opens a run. */
interface StudyRunRequest {
  runId: string;
  /** The study's run kind (one it registered, run-kinds.ts). */
  kind: string;
  controller: StudyController;
  /** Everything that decides what the run records (environment, harness, decoding, …). */
  settings: Record<string, unknown>;
}

/** One stored result of a study. */
interface StudyRecord<T = unknown> {
  key: string;
  data: T;
  session: number | null;
  at: string;
}

/** One session of a study run: what started it, and how it ended (absent while running or killed). */
export interface StudySession {
  session: number;
  startedAt: string;
  started: SessionStartedPayload;
  finishedAt: string | null;
  finished: SessionFinishedPayload | null;
}

/** The run_planned payload of a study run. */
function studyPlanned(req: StudyRunRequest): StudyRunPlanned {
  // The plan version its study registered (an unregistered kind is refused when the run is created).
  const format = planFormat(runKind(req.kind)?.planVersion ?? 1);
  const plan: StudyPlan = { format, kind: req.kind, controller: req.controller, settings: req.settings };
  return { plan, cases: [], per_case: null, plan_sha256: sha256Hex(canonicalJson({ plan, cases: [], per_case: null })) };
}

/**
 * Creates the run on first use; a later session must bring the same plan (kind, model, settings),
 * otherwise it is refused with the differing parts named.
 */
export async function openStudyRun(store: RunStore, req: StudyRunRequest, option = 'runId'): Promise<{ created: boolean }> {
  const requested = studyPlanned(req);
  const stored = await store.getPlanned(req.runId);
  if (stored) {
    if (isTrajectoryPlan(stored.plan) || stored.plan.kind !== req.kind) {
      const kind = stored.plan.kind;
      throw namingOption(
        option,
        (n) => new UserError(`run '${req.runId}' in ${store.location} is a ${kind} run, not a ${req.kind} run; choose another ${n}`),
      );
    }
    assertSamePlan(req.runId, stored, requested, option);
    return { created: false };
  }
  await store.createRun(req.runId, requested);
  return { created: true };
}

/** The study runs of one kind in a store, in creation order. */
export async function studyRuns(store: RunStore, kind: string): Promise<Array<{ runId: string; plan: StudyPlan }>> {
  const out: Array<{ runId: string; plan: StudyPlan }> = [];
  for (const runId of await store.runIds()) {
    const p = await store.getPlanned(runId);
    if (p && !isTrajectoryPlan(p.plan) && p.plan.kind === kind) out.push({ runId, plan: p.plan });
  }
  return out;
}

/** Appends a session_started event; returns the session's number (1, 2, …). */
export async function startStudySession(
  store: RunStore,
  runId: string,
  s: { kind: string; options: Record<string, unknown>; pending: number; source?: string | null },
): Promise<number> {
  const n = (await store.readEvents(runId, { types: ['session_started'] })).length + 1;
  await store.append(runId, [
    {
      type: 'session_started',
      payload: {
        kind: s.kind,
        revloop_version: REVLOOP_VERSION,
        pid: process.pid,
        host: hostname(),
        cases_path: s.source ?? null,
        options: s.options,
        pending: s.pending,
      },
    },
  ]);
  return n;
}

export async function finishStudySession(store: RunStore, runId: string, payload: SessionFinishedPayload): Promise<void> {
  await store.append(runId, [{ type: 'session_finished', payload }]);
}

/** Every session of a run, in order. */
export async function studySessions(store: RunStore, runId: string): Promise<StudySession[]> {
  const out: StudySession[] = [];
  for (const e of await store.readEvents(runId, { types: ['session_started', 'session_finished'] })) {
    if (e.type === 'session_started')
      out.push({ session: out.length + 1, startedAt: e.at, started: e.payload, finishedAt: null, finished: null });
    else if (e.type === 'session_finished') {
      const s = out[e.payload.session - 1];
      if (s) Object.assign(s, { finishedAt: e.at, finished: e.payload });
    }
  }
  return out;
}

/** The record events of a run (one kind, or all), in log order. */
export async function readRecords<T = unknown>(store: RunStore, runId: string, kind?: string): Promise<StudyRecord<T>[]> {
  const out: StudyRecord<T>[] = [];
  const only = kind === undefined ? {} : { keyPrefix: `${kind}:` };
  for (const e of await store.readEvents(runId, { types: ['record'], ...only })) {
    const p = (e as StoredEvent & { payload: RecordPayload }).payload;
    if (kind === undefined || p.kind === kind) out.push({ key: p.key, data: p.data as T, session: p.session, at: e.at });
  }
  return out;
}

/** The keys already recorded for a kind (what a resumed session skips). */
export async function recordKeys(store: RunStore, runId: string, kind: string): Promise<Set<string>> {
  return new Set((await readRecords(store, runId, kind)).map((r) => r.key));
}

/**
 * Appends records in one transaction, leaving out keys the run already has (`skip` when the caller
 * keeps them, otherwise read from the store; the store's unique key refuses a duplicate that slips
 * through). A record is written once: a second write of a key is a no-op. Returns how many were appended.
 */
export async function appendRecords(
  store: RunStore,
  runId: string,
  kind: string,
  session: number | null,
  records: ReadonlyArray<{ key: string; data: unknown }>,
  skip?: ReadonlySet<string>,
): Promise<number> {
  const present = skip ?? (await recordKeys(store, runId, kind));
  const seen = new Set<string>();
  const fresh = records.filter((r) => !present.has(r.key) && !seen.has(r.key) && seen.add(r.key));
  if (!fresh.length) return 0;
  const events: NewEvent[] = fresh.map((r) => ({ type: 'record', payload: { kind, key: r.key, session, data: r.data } }));
  await store.append(runId, events);
  return fresh.length;
}
