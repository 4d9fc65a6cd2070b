// The viewer API's rows, as src/viewer/api.ts types them (snake_case keys): a run, a worker, an
// event of the live stream, an attempt; and the small conversions the handlers share.
import type { StoredEvent } from '../../store/events.ts';
import type { EventSummary, RunSummary, WorkerInfo } from '../../store/store.ts';
import type { Section, SimulatedMark } from '../../studies/kit/sections.ts';
import { studyForKind } from '../../studies/registry.ts';
import { snakeKeys } from '../../core/util/json-keys.ts';
import type { ApiSection, AttemptRow, LiveEvent, RunRow, WorkerRow } from '../../viewer/api.ts';

/** A run's row in the run list and on its pages; `cells` are its study's listing columns. */
export function runRow(s: RunSummary, cells: string[], unverified?: string[]): RunRow {
  const study = studyForKind(s.kind);
  const row: RunRow = {
    run_id: s.runId,
    kind: s.kind,
    study: study?.id ?? null,
    status: s.status,
    model: s.controller,
    model_spec: s.modelSpec,
    simulated: s.simulated,
    protocol: s.protocol,
    budget: s.budget,
    planned: s.cases,
    done: s.complete + s.incomplete,
    complete: s.complete,
    incomplete: s.incomplete,
    pending: s.pending,
    successes: s.successes,
    rounds: s.rounds,
    attempts: s.attempts,
    failed_attempts: s.failedAttempts,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    last_event_id: s.lastEventId,
    has_trajectories: s.cases > 0 && !!study?.trajectories,
    cells,
  };
  if (unverified) row.unverified = unverified;
  return row;
}

/** A worker's row in the run list (PostgreSQL stores). */
export function workerRow(w: WorkerInfo): WorkerRow {
  return {
    worker: w.worker,
    name: w.name,
    state: w.stoppedAt ? 'stopped' : w.alive ? 'alive' : 'gone',
    heartbeat_at: w.heartbeatAt,
    concurrency: w.concurrency,
    lease_seconds: w.leaseSeconds,
    rejected_writes: w.rejectedWrites,
    leases: w.leases.map((l) => ({ run_id: l.runId, case_index: l.caseIndex, expires_at: l.expiresAt, expired: l.expired })),
    released: w.released.map((l) => ({ run_id: l.runId, case_index: l.caseIndex })),
  };
}

/**
 * What a live page needs of an event: where it happened and its outcome, never a text. The
 * stream's form of an event summary (the store reads it without parsing payloads).
 */
export function liveEvent(e: EventSummary): LiveEvent {
  const out: LiveEvent = {
    id: e.id,
    run_id: e.runId,
    seq: e.seq,
    type: e.type,
    case_index: e.caseIndex,
    revision: e.revision,
    at: e.at,
  };
  if (e.joint !== undefined) out.joint = e.joint;
  if (e.stop !== undefined) out.stop = e.stop;
  if (e.ok !== undefined) out.ok = e.ok;
  if (e.errorKind !== undefined) out.error_kind = e.errorKind;
  return out;
}

/** One model call of a trajectory, as its page lists it. */
export function attemptRow(e: StoredEvent & { type: 'attempt_finished' }): AttemptRow {
  const r = e.payload.record;
  const n = (x: number | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return {
    revision: e.revision,
    attempt: e.payload.attempt,
    ok: r.ok,
    at: e.at,
    started_at: r.startedAt,
    latency_ms: r.latencyMs,
    status: r.status ?? null,
    finish_reason: r.finishReason ?? null,
    prompt_tokens: n(r.usage?.promptTokens),
    completion_tokens: n(r.usage?.completionTokens),
    total_tokens: n(r.usage?.totalTokens),
    error_kind: r.error?.kind ?? null,
    error: r.error?.message ?? null,
    retryable: r.error?.retryable ?? null,
  };
}

/** A finite number, or null (JSON has no NaN or infinity). */
export function finite(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

/** How much of a page is simulated: its sections' marks, or the run's own flag when it has none. */
export function sectionsMark(sections: readonly Section[], runSimulated: boolean): SimulatedMark {
  if (!sections.length) return runSimulated ? 'all' : 'none';
  if (sections.every((s) => s.simulated === 'all')) return 'all';
  return sections.every((s) => s.simulated === 'none') ? 'none' : 'some';
}

/**
 * Sections with snake_case keys, as every other key of the API; until the next release each renamed
 * key also keeps its old camelCase name (`tocLabel`, …) for scripts written against it. A run's
 * `details` map keeps its own keys (they are names, not fields).
 */
export function apiSections(sections: readonly Section[]): ApiSection[] {
  return snakeKeys(sections, { dataMaps: ['details'], aliases: true });
}
