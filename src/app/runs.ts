// `runs`: every run in a store, grouped by the study that owns it, as each study describes its
// runs. The store is opened read-only, so listing is safe while a run writes.
import type { StudyRunRow } from '../studies/kit/study.ts';
import { STUDIES, studyForKind } from '../studies/registry.ts';
import { openStore, type LockHolder, type RunStore, type RunSummary, type WorkerInfo } from '../store/store.ts';
import { NotFoundError, UserError } from '../core/errors.ts';
import { summaryProblems } from '../store/integrity.ts';
import { hostname } from 'node:os';

export interface RunListing {
  /** One group per study with runs, in registry order. */
  groups: Array<{ study: string; title: string; columns: readonly string[]; optional: readonly string[]; runs: StudyRunRow[] }>;
  /** Runs of kinds no registered study owns (listed by their store summary only). */
  unknown: StudyRunRow[];
  /** Workers sharing runs and the trajectories they hold (PostgreSQL; null on SQLite, which has none). */
  workers: WorkerInfo[] | null;
  /**
   * Runs whose `runs` row disagrees with their plan event, with the columns in words (`runs` only:
   * a cheap check, one event per run; the readers and the audit check everything).
   */
  disagree?: Map<string, string[]>;
}

export async function listRuns(store: string): Promise<RunListing> {
  const s = await openStore(store, { readonly: true });
  try {
    const summaries = await s.listRuns();
    const disagree = new Map<string, string[]>();
    for (const r of summaries) {
      const planned = await s.getPlanned(r.runId);
      const problems = planned ? summaryProblems(r, planned) : ['runs: a row for a run without a plan event'];
      if (problems.length) disagree.set(r.runId, problems);
    }
    return { ...(await describeStoreRuns(s, summaries)), disagree };
  } finally {
    await s.close();
  }
}

/** The runs of an open store as each study describes them (`runs` and the viewer's run list). */
export async function describeStoreRuns(s: RunStore, summaries: readonly RunSummary[]): Promise<RunListing> {
  const groups: RunListing['groups'] = [];
  for (const study of STUDIES) {
    const mine = summaries.filter((r) => study.kinds.includes(r.kind));
    if (mine.length)
      groups.push({
        study: study.id,
        title: study.title,
        columns: study.runColumns,
        optional: study.runColumnsOptional ?? [],
        runs: await study.describeRuns(s, mine),
      });
  }
  const unknown = summaries
    .filter((r) => !studyForKind(r.kind))
    .map((r) => ({
      runId: r.runId,
      kind: r.kind,
      status: r.status,
      controller: r.controller,
      simulated: r.simulated,
      cells: [],
      json: { ...r },
    }));
  const workers = s.leases ? await s.leases.workers() : null;
  return { groups, unknown, workers };
}

/** How long ago an ISO time was, in words ("3 h 12 min", "2 days"). */
export function ageOf(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(s)) return 'an unknown time';
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} days`;
}

/** Who holds a run's lock, in words (what the confirmation names). */
export function describeHolder(runId: string, h: LockHolder): string {
  const where = h.host === hostname() ? `this host (${h.host})` : `host ${h.host}`;
  return `run '${runId}' is locked by process ${h.pid} on ${where} since ${h.startedAt} (${ageOf(h.startedAt)} ago)`;
}

/**
 * `runs --release-lock`: clears a run lock whose holder is gone (a killed process whose PID was
 * reused, a container restarted on another host), after `confirm` has seen who holds it. A holder
 * known to be alive is never released; one on another host cannot be checked from here, which is
 * what the confirmation is for. Returns what happened, in words.
 */
export async function releaseRunLock(
  store: string,
  runId: string,
  confirm: (holder: LockHolder, described: string) => Promise<boolean>,
): Promise<{ released: boolean; message: string }> {
  const s = await openStore(store);
  try {
    if (!(await s.getPlanned(runId))) {
      const known = await s.runIds();
      throw new NotFoundError(`no run '${runId}' in ${s.location}${known.length ? `; runs: ${known.join(', ')}` : ''}`, {
        kind: 'run',
        target: runId,
      });
    }
    const holder = await s.lockHolder(runId);
    if (!holder) return { released: false, message: `run '${runId}' has no lock: nothing to release` };
    const described = describeHolder(runId, holder);
    if (holder.state === 'alive')
      throw new UserError(`${described}, and that process is alive: stop it (or wait for it) instead of releasing its lock`);
    if (!(await confirm(holder, described))) throw new UserError(`${described}; the lock was left as it is`);
    if (!(await s.clearStaleLock(runId, holder)))
      throw new UserError(`run '${runId}': the lock changed while you confirmed (another process took the run?); nothing was released`);
    return {
      released: true,
      message: `released the lock of run '${runId}' (process ${holder.pid} on ${holder.host}); the same command resumes the run`,
    };
  } finally {
    await s.close();
  }
}
