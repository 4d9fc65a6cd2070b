// How `revloop runs` words and lists a study run from its sessions (the one rule for every study
// without trajectories): a live process → running; otherwise the last session decides, and a
// session that never finished belongs to a process that died (interrupted).
import type { StudySession } from '../../store/study-runs.ts';
import type { RunSummary } from '../../store/store.ts';
import type { StudyRunRow } from './study.ts';

type StudyRunStatus = 'complete' | 'incomplete' | 'running' | 'interrupted' | 'failed';

export function studyRunStatus(summary: RunSummary, sessions: readonly StudySession[]): StudyRunStatus {
  if (summary.status === 'running') return 'running';
  const last = sessions.at(-1);
  if (!last?.finished) return 'interrupted';
  return last.finished.status;
}

/** The latest moment anything happened to the run. */
export function lastUpdate(summary: RunSummary, sessions: readonly StudySession[]): string {
  let t = summary.updatedAt;
  for (const s of sessions) for (const x of [s.startedAt, s.finishedAt]) if (x && x > t) t = x;
  return t;
}

/** `2026-12-01 15:49:33` from an ISO timestamp. */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').slice(0, 19);
}

/** `k/n (p%)`: a count over what it is a share of, with the percentage. */
export function shareOf(k: number, n: number): string {
  return `${k}/${n} (${n ? ((100 * k) / n).toFixed(1) : '0.0'}%)`;
}

/**
 * A session-kept study run as `revloop runs` lists it: the run, its status and model, the study's
 * cells, and its JSON — the run's identity, then the study's own `fields`, then its times.
 */
export function sessionRunRow(
  r: RunSummary,
  kind: string,
  status: StudyRunStatus,
  updatedAt: string,
  cells: string[],
  fields: Record<string, unknown>,
): StudyRunRow {
  return {
    runId: r.runId,
    kind: r.kind,
    status,
    controller: r.controller,
    simulated: r.simulated,
    cells,
    json: {
      runId: r.runId,
      kind,
      status,
      controller: r.controller,
      modelSpec: r.modelSpec,
      simulated: r.simulated,
      ...fields,
      createdAt: r.createdAt,
      updatedAt,
    },
  };
}
