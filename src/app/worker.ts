// `worker`: one of any number of processes, on any machines, sharing planned runs in a PostgreSQL
// store (docs/workers.md). Each run's model, protocol and families come from its stored plan; the
// worker rebuilds the plan from them and refuses a run whose plan it cannot reproduce (another
// revloop version, verifier or plugin), so every worker of a run runs the same plan.
import { PlanMismatchError, UserError, CapabilityError, NotFoundError, StoreError } from '../core/errors.ts';
import { getFamily } from '../core/verify/registry.ts';
import { protocolFromSpec } from '../engine/protocol.ts';
import { planRun } from '../engine/run.ts';
import type { RunContext } from '../engine/trajectory-task.ts';
import { runWorker, type WorkerProgress, type WorkerResult } from '../engine/worker.ts';
import { createModel } from '../models/index.ts';
import type { ModelOptions } from '../models/options.ts';
import type { Model } from '../models/types.ts';
import type { TrajectoryRunPlanned } from '../store/events.ts';
import { assertSamePlan, isTrajectoryPlan } from '../store/plan.ts';
import { isConnectionLoss } from '../store/connection-loss.ts';
import { openStore, redactLocation, type RunStore, type RunSummary } from '../store/store.ts';

export interface WorkerCommandOptions {
  /** A PostgreSQL store (postgres://…). */
  store: string;
  /** Only this run; the worker returns once it has no pending trajectory. Otherwise every run, until stopped. */
  runId?: string;
  /** Trajectories in flight at once (also each model's concurrency unless modelOptions sets one). Default 4. */
  concurrency?: number;
  /** Default 60. */
  leaseSeconds?: number;
  /** How the worker reaches providers (timeouts, retries, rate limits, key variable); never the plan's decoding. */
  modelOptions?: ModelOptions;
  maxConsecutiveFailures?: number;
  /** Operational settings recorded with each session. */
  sessionOptions?: Record<string, unknown>;
  signal?: AbortSignal;
  /**
   * After the connection to the database is lost (a server restart or failover, a network cut), keep
   * trying to reconnect for this long, in seconds, then give up (default 300; 0: give up at once).
   */
  reconnectSeconds?: number;
  /** Tests: heartbeat and poll intervals (ms). */
  heartbeatMs?: number;
  pollMs?: number;
}

export interface WorkerHooks {
  /** Registered as a worker (again, under a new number, after each reconnection). */
  onStart?(info: { worker: number; store: string }): void;
  /** A run this worker starts working on, with its model. */
  onRun?(info: { runId: string; model: string; simulated: boolean }): void;
  onProgress?(p: WorkerProgress): void;
  onNote?(text: string): void;
}

/** Counters a session carries into the next after a reconnection (the last session's number is the outcome's). */
const COUNTERS = ['claimed', 'done', 'successes', 'incomplete', 'rounds', 'lost', 'rejectedWrites'] as const;

export interface WorkerOutcome extends WorkerResult {
  /** The run after this worker (with --run). */
  summary: RunSummary | null;
  /** Writes the store refused from this worker, as the store counted them. */
  rejectedWrites: number;
}

/** The model and protocol of a planned run, rebuilt from its plan and checked against it. */
export async function runContext(store: RunStore, runId: string, modelOptions: ModelOptions): Promise<RunContext> {
  const found = await store.getPlanned(runId);
  if (!found) throw new NotFoundError('run', runId, `no run '${runId}' in ${store.location} (plan it with \`revloop run … --workers 0\`)`);
  if (!isTrajectoryPlan(found.plan) || found.plan.kind !== 'run')
    throw new UserError(`run '${runId}' is a ${found.plan.kind} run; workers run revision runs planned by \`revloop run\``);
  const planned = found as TrajectoryRunPlanned;
  const plan = planned.plan;
  const protocol = protocolFromSpec(plan.protocol);
  const gen = plan.controller.generation;
  const model: Model = await createModel(plan.controller.spec, {
    ...modelOptions,
    temperature: gen.temperature,
    ...(gen.seed !== null ? { seed: gen.seed } : {}),
    ...(gen.extra_body ? { extraBody: gen.extra_body } : {}),
    label: plan.controller.label,
  });
  // Harness runs (--harness, --ban) rebuild too: the loop resolves the plan's named message policy and ban.
  if (protocol.banProvider && !model.capabilities.ban) {
    await model.close?.();
    throw new CapabilityError(
      `run '${runId}' bans failed drafts at decoding ('${protocol.banProvider}'); ${model.spec} has no decoder bans here`,
      'ban',
      model.label,
    );
  }
  const requested = planRun({
    cases: planned.cases,
    caseSet: {
      format: plan.case_set.format,
      total: plan.case_set.total,
      limit: plan.case_set.limit,
      fileSha256: plan.case_set.file_sha256,
      manifest: plan.case_set.manifest,
      path: null,
    },
    model,
    protocol,
    resolveFamily: getFamily,
    extraBody: gen.extra_body,
  });
  try {
    assertSamePlan(runId, planned, requested);
  } catch (e) {
    await model.close?.();
    if (!(e instanceof PlanMismatchError)) throw e;
    throw new PlanMismatchError(
      runId,
      e.differences,
      `this worker cannot run '${runId}': the plan it rebuilds differs from the stored one (another revloop version, verifier, plugin or model?).\n` +
        e.differences.map((d) => `  ${d}`).join('\n') +
        `\nRun the worker with the revloop version (and --plugin modules) that planned the run.`,
    );
  }
  return { runId, model, protocol, resolveFamily: getFamily, extraBody: gen.extra_body };
}

/**
 * Runs one worker until its run is done (with `runId`) or it is stopped. A lost database connection
 * ends the session: its in-flight generations are abandoned (their leases are free at once, since its
 * database session is gone) and the worker opens the store again, registers under a new number and
 * carries on, for up to `reconnectSeconds` without a connection. Progress counts every session.
 */
export async function workCommand(o: WorkerCommandOptions, hooks: WorkerHooks = {}): Promise<WorkerOutcome> {
  const concurrency = o.concurrency ?? 4;
  const modelOptions: ModelOptions = { concurrency, ...(o.modelOptions ?? {}) };
  const reconnectMs = (o.reconnectSeconds ?? 300) * 1000;
  // Models outlive a reconnection (an in-process model keeps its weights loaded).
  const contexts = new Map<string, Promise<RunContext>>();
  const carried = Object.fromEntries(COUNTERS.map((k) => [k, 0])) as Record<(typeof COUNTERS)[number], number>;
  const withCarried = (p: WorkerProgress): WorkerProgress => {
    const out = { ...p };
    for (const k of COUNTERS) out[k] += carried[k];
    return out;
  };
  const session = { progress: null as WorkerProgress | null, registered: false, worker: 0, startedAtMs: Date.now() };
  let lostSince: number | null = null;
  let retries = 0;
  try {
    for (;;) {
      let store: RunStore | null = null;
      try {
        store = await openStore(o.store);
        const opened = store;
        const outcome = await workSession(store, o, concurrency, {
          ...hooks,
          onStart: (info) => {
            if (!session.registered) session.startedAtMs = Date.now();
            session.registered = true;
            session.worker = info.worker;
            lostSince = null;
            retries = 0;
            hooks.onStart?.(info);
          },
          onProgress: (p) => {
            session.progress = p;
            hooks.onProgress?.(withCarried(p));
          },
          context: (runId) => {
            let c = contexts.get(runId);
            if (!c) {
              c = runContext(opened, runId, modelOptions).then(
                (ctx) => {
                  hooks.onRun?.({ runId, model: ctx.model.label, simulated: ctx.model.capabilities.simulated });
                  return ctx;
                },
                (e: unknown) => {
                  if (isConnectionLoss(e)) contexts.delete(runId); // tried again in the next session
                  throw e;
                },
              );
              contexts.set(runId, c);
            }
            return c;
          },
        });
        return { ...outcome, progress: withCarried(outcome.progress), rejectedWrites: outcome.rejectedWrites + carried.rejectedWrites };
      } catch (e) {
        // Reconnect only once the worker has run: a server that cannot be reached at start is an error to report now.
        if (!session.registered || !isConnectionLoss(e)) throw e;
        const stoppedWhileDown = (): WorkerOutcome => ({
          worker: session.worker,
          progress: { worker: session.worker, ...carried, inFlight: 0, startedAtMs: session.startedAtMs },
          stopped: { reason: 'interrupted', message: 'stopped by request while the database was unreachable' },
          summary: null,
          rejectedWrites: carried.rejectedWrites,
        });
        const message = rootMessage(e);
        const first = lostSince === null;
        lostSince ??= Date.now();
        if (Date.now() - lostSince >= reconnectMs)
          throw new StoreError(
            redactLocation(o.store),
            'unreachable',
            `${redactLocation(o.store)}: lost the connection to PostgreSQL and ${reconnectMs ? `could not reconnect within ${reconnectMs / 1000} s` : 'did not reconnect (--reconnect-seconds 0)'} (last: ${message}); the rounds committed so far are kept: start the worker again once the server is back`,
            { cause: e },
          );
        if (session.progress) for (const k of COUNTERS) carried[k] += session.progress[k];
        session.progress = null;
        if (o.signal?.aborted) return stoppedWhileDown();
        const waitMs = Math.min(1000 * 2 ** retries++, 15_000);
        hooks.onNote?.(
          first
            ? `lost the connection to the database (${message}); generations in flight are abandoned, committed rounds are kept; reconnecting in ${waitMs / 1000} s`
            : `still cannot reach the database (${message}); next try in ${waitMs / 1000} s`,
        );
        if (!(await pause(waitMs, o.signal))) return stoppedWhileDown();
      } finally {
        if (store) await closeWithin(store, 5000);
      }
    }
  } finally {
    for (const c of contexts.values()) await c.then((ctx) => ctx.model.close?.()).catch(() => undefined);
  }
}

/** The innermost message of an error and the errors it wraps (`cause`): what the driver or the socket said. */
function rootMessage(e: unknown): string {
  let err = e as { message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; depth < 8 && err && typeof err === 'object' && err.cause && typeof err.cause === 'object'; depth++)
    err = err.cause as typeof err;
  return typeof err?.message === 'string' ? err.message : String(e);
}

/** Closes a store, waiting at most `ms`: a server that went away may never answer the goodbye. */
async function closeWithin(store: RunStore, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([store.close().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Waits `ms`; false when `signal` aborts first. */
function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One registration of the worker on one open store: runs until done, stopped, or the store fails. */
async function workSession(
  store: RunStore,
  o: WorkerCommandOptions,
  concurrency: number,
  hooks: WorkerHooks & { context(runId: string): Promise<RunContext> },
): Promise<WorkerOutcome> {
  if (!store.leases)
    throw new UserError(
      `${store.location}: \`revloop worker\` needs a PostgreSQL store (--store postgres://user@host:port/db); a SQLite store has one writer per run, use \`revloop run\``,
    );
  if (o.runId && !(await store.getPlanned(o.runId)))
    throw new NotFoundError('run', o.runId, `no run '${o.runId}' in ${store.location} (plan it with \`revloop run … --workers 0\`)`);
  const result = await runWorker({
    store,
    runId: o.runId,
    concurrency,
    leaseSeconds: o.leaseSeconds ?? 60,
    heartbeatMs: o.heartbeatMs,
    pollMs: o.pollMs,
    untilDone: o.runId !== undefined,
    signal: o.signal,
    maxConsecutiveFailures: o.maxConsecutiveFailures ?? 3,
    sessionOptions: o.sessionOptions,
    context: hooks.context,
    onStart: (worker) => hooks.onStart?.({ worker, store: store.location }),
    onProgress: hooks.onProgress,
    onNote: hooks.onNote,
  });
  const summary = o.runId ? ((await store.getRun(o.runId))?.summary ?? null) : null;
  const me = (await store.leases.workers()).find((w) => w.worker === result.worker);
  return { ...result, summary, rejectedWrites: me?.rejectedWrites ?? result.progress.rejectedWrites };
}
