// A worker: claims trajectories of planned runs through the store's leases and runs them with the
// engine, any number of workers on any number of machines sharing one run (docs/workers.md). Every
// write carries its lease, which the store checks in the transaction that appends, so a worker
// whose lease was taken over (it stalled, or lost its database session) can never add to that
// trajectory again; the round it was writing is refused and counted. A heartbeat renews the leases
// and notices lost ones, abandoning their generations. The queue is the log itself: a trajectory
// is claimable while its derived status is pending.
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { CapabilityError, NotFoundError, StoreError, UserError } from '../core/errors.ts';
import { REVLOOP_VERSION } from '../core/version.ts';
import { isConnectionLoss } from '../store/connection-loss.ts';
import { LeaseLostError, type Lease, type RunStore } from '../store/store.ts';
import { StoreRecorder } from './recorder.ts';
import { ENGINE_DEFAULTS } from './defaults.ts';
import { OutcomeTally } from './outcome-tally.ts';
import { recordTrajectory, type RunContext } from './trajectory-task.ts';

/** What `runWorker` needs: the store (with leases), which run (or every run), how to build a run's context, concurrency and lease length. */
export interface WorkerOptions {
  /** A store with leases (PostgreSQL). */
  store: RunStore;
  /** Work on this run only (otherwise on every run with pending trajectories, oldest first). */
  runId?: string;
  /**
   * Model, protocol and families of a run, asked for by each of its trajectories (cache it). A
   * UserError (not a store's) refuses the run: a worker on every run skips it (see `onSkip`), a
   * worker on `runId` stops with that error.
   */
  context(runId: string): Promise<RunContext>;
  /**
   * Called once for every `context(runId)` call, when that trajectory is over here (whether the
   * context was built or not): a caller that caches contexts can tell when none of a run's is in use.
   */
  contextDone?(runId: string): void;
  /** Trajectories in flight at once. */
  concurrency: number;
  /** Stores with leases (PostgreSQL): how long this process's claim on a trajectory lasts without renewal, in seconds. */
  leaseSeconds: number;
  /** Renewal interval (default a third of the lease). */
  heartbeatMs?: number;
  /** How often to look for claimable work when there is none (default min(1 s, a quarter of the lease)). */
  pollMs?: number;
  /** Return once nothing is pending: in `runId`, or (without it) in any run planned for workers but the skipped ones. Otherwise work until stopped. */
  untilDone?: boolean;
  /**
   * Without `runId`: claim from one run at a time. While trajectories of a run are in flight here,
   * claim only that run's; take up the next run once they are all over (so a sweep of in-process
   * models never needs two of them at once, at the cost of idle slots while a run drains).
   */
  oneRunAtATime?: boolean;
  signal?: AbortSignal;
  /** Stop after this many trajectories in a row end protocol-incomplete (0 = never). */
  maxConsecutiveFailures?: number;
  /** How long to wait for in-flight calls once stopping, before abandoning them (ms). */
  abandonAfterMs?: number;
  /** Operational settings recorded with the session (timeouts, retries, rate limits, …), in each run it works on. */
  sessionOptions?: Record<string, unknown>;
  /** The session's kind in each run (default `worker`; `run`/`resume` when `revloop run` works on its own run). */
  sessionKind?: string;
  /** Where the cases were read from, when the session read them (`revloop run`). */
  casesPath?: string | null;
  /** Record the session in `runId` at once, even if nothing is left to claim (`revloop run` always records its session). */
  openSession?: boolean;
  /** Without `runId`: runs not to claim from, with why (skipped by an earlier session of the same worker). */
  skipRuns?: ReadonlyMap<string, string>;
  /**
   * Without `runId`: this worker cannot run `runId` (its context was refused: a plan it cannot
   * reproduce, a model it cannot build here). The worker gives back that run's leases, claims none
   * of it again and goes on with the other runs; other workers may run it.
   */
  onSkip?(runId: string, reason: string): void;
  /** Called once registered, with the worker's number. */
  onStart?(worker: number): void;
  onProgress?(p: WorkerProgress): void;
  /** Something worth saying (a lease lost, a run started). */
  onNote?(text: string): void;
}

/** A worker's progress, reported through `onProgress`: trajectories claimed and finished, successes, incomplete, rounds. */
export interface WorkerProgress {
  worker: number;
  /** Trajectories claimed by this worker. */
  claimed: number;
  /** Finished here (complete or protocol-incomplete). */
  done: number;
  successes: number;
  incomplete: number;
  /** Rounds committed here. */
  rounds: number;
  /** Trajectories whose lease was taken over while this worker held them. */
  lost: number;
  /** Writes the store refused because their lease had been taken over. */
  rejectedWrites: number;
  inFlight: number;
  startedAtMs: number;
}

/** What `runWorker` returns: its final progress, why it stopped (null when the work ran out), and the runs it skipped. */
export interface WorkerResult {
  worker: number;
  progress: WorkerProgress;
  stopped: null | { reason: 'interrupted' | 'provider-failures'; message: string };
  /** Runs this worker could not run (`skipRuns` included), in the order it met them, with why. */
  skipped: Array<{ runId: string; reason: string }>;
}

/** Whether building a run's context failed because of the run (a refusal), not because of the store or a bug. */
function refusesRun(e: unknown): boolean {
  return e instanceof UserError && !(e instanceof StoreError) && !isConnectionLoss(e);
}

interface Task {
  lease: Lease;
  abort: AbortController;
  recorder: StoreRecorder | null;
  lost: boolean;
}

const leaseKey = (l: { runId: string; caseIndex: number }) => `${l.caseIndex}\u0000${l.runId}`;

/**
 * Runs trajectories of shared runs as one worker among any others (PostgreSQL stores, docs/workers.md):
 * registers, claims trajectories under leases, runs and records them, renews its leases, and returns
 * when its signal aborts (or, with `untilDone`, once nothing is pending). Throws a CapabilityError on a
 * store without leases (SQLite).
 */
export async function runWorker(o: WorkerOptions): Promise<WorkerResult> {
  const { store } = o;
  const leases = store.leases;
  if (!leases)
    throw new CapabilityError(
      `${store.location}: workers share runs through a PostgreSQL store (postgres://…); a SQLite store has one writer per run (use \`revloop run\`)`,
      { capability: 'leases' },
    );
  const worker = await leases.register({ concurrency: o.concurrency, leaseSeconds: o.leaseSeconds });
  o.onStart?.(worker);
  const progress: WorkerProgress = {
    worker,
    claimed: 0,
    done: 0,
    successes: 0,
    incomplete: 0,
    rounds: 0,
    lost: 0,
    rejectedWrites: 0,
    inFlight: 0,
    startedAtMs: Date.now(),
  };
  const report = () => o.onProgress?.({ ...progress, inFlight: tasks.size });
  const controller = new AbortController();
  setMaxListeners(4 * o.concurrency + 16, controller.signal);
  let stopped: WorkerResult['stopped'] = null;
  let fatal: { error: unknown } | null = null;
  const tasks = new Map<string, Task>();
  const sessions = new Map<string, Promise<void>>();
  const tally = new OutcomeTally(progress, o.maxConsecutiveFailures ?? ENGINE_DEFAULTS.maxConsecutiveFailures);
  const skipped = new Map(o.runId ? [] : (o.skipRuns ?? []));

  // The main loop sleeps until a slot frees, a poll interval passes, or the worker stops.
  let dirty: boolean;
  let wake: (() => void) | null = null;
  const kick = () => {
    dirty = true;
    const w = wake;
    wake = null;
    w?.();
  };
  const fail = (error: unknown) => {
    fatal ??= { error };
    controller.abort();
    kick();
  };
  const onExternalAbort = () => {
    stopped ??= { reason: 'interrupted', message: 'stopped by request' };
    controller.abort();
    kick();
  };
  if (o.signal?.aborted) onExternalAbort();
  o.signal?.addEventListener('abort', onExternalAbort, { once: true });

  const lose = (t: Task) => {
    if (t.lost) return;
    t.lost = true;
    progress.lost++;
    if (t.recorder) t.recorder.closed = true;
    t.abort.abort();
    o.onNote?.(`run '${t.lease.runId}' case #${t.lease.caseIndex + 1}: lease taken over by another worker; its generation is abandoned`);
  };

  // Heartbeat: renew every lease still ours; a trajectory missing from the answer was taken over.
  // Only trajectories claimed before the renewal was sent are judged by its answer: a claim that
  // commits while the renewal runs may be invisible to it, and taking that trajectory for lost would
  // abandon it while the heartbeat kept renewing its lease (the run would never finish).
  let beating = false;
  const heartbeat = setInterval(
    () => {
      if (beating) return;
      beating = true;
      const asked = [...tasks.values()];
      leases
        .renew(worker, o.leaseSeconds)
        .then((held) => {
          const current = new Set(held.map((l) => `${leaseKey(l)}\u0000${l.epoch}`));
          for (const t of asked)
            if (tasks.get(leaseKey(t.lease)) === t && !current.has(`${leaseKey(t.lease)}\u0000${t.lease.epoch}`)) lose(t);
        })
        .catch(fail)
        .finally(() => (beating = false));
    },
    o.heartbeatMs ?? Math.max(100, (o.leaseSeconds * 1000) / 3),
  );

  const session = (runId: string): Promise<void> => {
    let p = sessions.get(runId);
    if (!p) {
      p = (async () => {
        const run = await store.getRun(runId);
        await store.append(runId, [
          {
            type: 'session_started',
            payload: {
              kind: o.sessionKind ?? 'worker',
              revloop_version: REVLOOP_VERSION,
              pid: process.pid,
              host: hostname(),
              cases_path: o.casesPath ?? null,
              options: { worker, concurrency: o.concurrency, lease_seconds: o.leaseSeconds, ...(o.sessionOptions ?? {}) },
              pending: run?.summary.pending ?? 0,
            },
          },
        ]);
      })();
      sessions.set(runId, p);
    }
    return p;
  };

  const runTask = async (lease: Lease): Promise<void> => {
    const task: Task = { lease, abort: new AbortController(), recorder: null, lost: false };
    const onStop = () => task.abort.abort();
    controller.signal.addEventListener('abort', onStop, { once: true });
    tasks.set(leaseKey(lease), task);
    try {
      let ctx: RunContext;
      try {
        ctx = await o.context(lease.runId);
      } catch (e) {
        if (o.runId || !refusesRun(e)) throw e;
        progress.claimed--; // given back untouched: not taken up here
        // Its other trajectories claimed meanwhile fail the same way; the run is skipped once.
        if (!skipped.has(lease.runId)) {
          const reason = (e as Error).message;
          skipped.set(lease.runId, reason);
          o.onSkip?.(lease.runId, reason);
        }
        return;
      }
      await session(lease.runId);
      // Read after the claim: everything the previous holder committed is here, and it can add no more.
      const [t] = await store.loadTrajectories([lease.runId], { cases: [lease.caseIndex] });
      if (!t || t.status !== 'pending' || task.lost || controller.signal.aborted) return;
      const recorder = new StoreRecorder(store, lease.runId, lease.caseIndex, lease);
      task.recorder = recorder;
      const outcome = await recordTrajectory(ctx, t, recorder, task.abort.signal, () => progress.rounds++);
      if (recorder.closed || outcome.status === 'aborted') return;
      const stop = tally.count(outcome);
      if (stop && !controller.signal.aborted) {
        stopped ??= stop;
        controller.abort();
        kick();
      }
    } catch (e) {
      if (e instanceof LeaseLostError) {
        progress.rejectedWrites++;
        lose(task);
        return;
      }
      // Errors of a trajectory already given up (lost, or the worker stopping) are no longer news.
      if (task.lost || controller.signal.aborted) return;
      fail(e);
    } finally {
      o.contextDone?.(lease.runId);
      controller.signal.removeEventListener('abort', onStop);
      tasks.delete(leaseKey(lease));
      report();
      // The slot is refilled while the lease goes back: a claim never takes a trajectory leased
      // here, and a release that comes late (after a takeover) changes nothing (its epoch is past).
      kick();
      if (!task.lost) await leases.release(lease).catch(() => undefined);
    }
  };

  const pollMs = o.pollMs ?? Math.min(1000, (o.leaseSeconds * 1000) / 4);
  try {
    if (o.openSession && o.runId) await session(o.runId);
    while (!controller.signal.aborted) {
      dirty = false;
      const free = o.concurrency - tasks.size;
      let claimed: Lease[] = [];
      if (free > 0) {
        const exceptRuns = [...skipped.keys()];
        const claim = (runId: string | undefined, limit: number) =>
          leases.claim(worker, { runId, limit, leaseSeconds: o.leaseSeconds, exceptRuns });
        if (o.runId || !o.oneRunAtATime) claimed = await claim(o.runId, free);
        else {
          // One run at a time: the run in flight here, or (none) one trajectory of the next run, then more of that run.
          const current = tasks.values().next().value?.lease.runId;
          claimed = await claim(current, current ? free : 1);
          if (!current && claimed.length && free > 1) claimed.push(...(await claim(claimed[0].runId, free - 1)));
        }
        progress.claimed += claimed.length;
        for (const l of claimed) void runTask(l);
        if (claimed.length) report();
      }
      if (!claimed.length && !tasks.size && o.untilDone) {
        if (o.runId) {
          const run = await store.getRun(o.runId);
          if (!run) throw new NotFoundError(`no run '${o.runId}' in ${store.location}`, { kind: 'run', target: o.runId });
          if (run.summary.pending === 0) break;
        } else if ((await leases.pending([...skipped.keys()])) === 0) break;
      }
      // More may be claimable at once when every free slot was filled and one freed meanwhile.
      if (dirty || (free > 0 && claimed.length === free && tasks.size < o.concurrency)) continue;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, pollMs);
      });
      clearTimeout(timer);
      wake = null;
    }
  } catch (e) {
    fail(e);
  }

  // Stopping: nothing more is recorded; calls that ignore the abort are abandoned after a grace period.
  for (const t of tasks.values()) if (t.recorder) t.recorder.closed = true;
  const deadline = Date.now() + (o.abandonAfterMs ?? ENGINE_DEFAULTS.abandonAfterMs);
  while (tasks.size && Date.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
    });
    clearTimeout(timer);
  }
  clearInterval(heartbeat);
  o.signal?.removeEventListener('abort', onExternalAbort);
  try {
    // Rounds of abandoned calls may still wait for their group commit: they are complete, keep them.
    await store.flush();
  } finally {
    await leases.unregister(worker).catch(() => undefined);
  }
  if (fatal) throw (fatal as { error: unknown }).error;
  return {
    worker,
    progress: { ...progress, inFlight: tasks.size },
    stopped,
    skipped: [...skipped].map(([runId, reason]) => ({ runId, reason })),
  };
}
