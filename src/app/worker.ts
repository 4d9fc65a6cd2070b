// `worker`: one of any number of processes, on any machines, sharing planned runs in a PostgreSQL
// store (docs/workers.md). Each run's model, protocol and families come from its stored plan; the
// worker rebuilds the plan from them and refuses a run whose plan it cannot reproduce (another
// revloop version, verifier or plugin), so every worker of a run runs the same plan. A worker on
// every run skips such a run (and one whose model it cannot build) and goes on with the others.
import { PlanMismatchError, UserError, CapabilityError, NotFoundError } from '../core/errors.ts';
import { getFamily } from '../core/verify/registry.ts';
import { protocolFromSpec } from '../engine/protocol.ts';
import { planRun } from '../engine/trajectory-run.ts';
import type { RunContext } from '../engine/trajectory-task.ts';
import { runWorker, type WorkerProgress, type WorkerResult } from '../engine/worker.ts';
import { createModel } from '../models/create.ts';
import type { ModelOptions } from '../models/options.ts';
import type { Model } from '../models/types.ts';
import type { TrajectoryRunPlanned } from '../store/events.ts';
import { assertSamePlan, isTrajectoryPlan } from '../store/plan.ts';
import { isConnectionLoss } from '../store/connection-loss.ts';
import type { RunStore, RunSummary } from '../store/store.ts';
import { RUN_DEFAULTS } from './defaults.ts';
import type { RunCasesOptions } from './run.ts';
import { withReconnection } from './reconnect.ts';

/** What `workCommand` takes; the settings it shares with `runCases` are RunCasesOptions' (defaults: RUN_DEFAULTS). */
export interface WorkerCommandOptions extends Pick<
  RunCasesOptions,
  'concurrency' | 'leaseSeconds' | 'maxConsecutiveFailures' | 'sessionOptions' | 'signal' | 'reconnectSeconds'
> {
  /** A PostgreSQL store (postgres://…). */
  store: string;
  /** Only this run; the worker returns once it has no pending trajectory. Otherwise every run, until stopped (or `untilDone`). */
  runId?: string;
  /** Without `runId`: return once no run planned for workers has a pending trajectory (a sweep planned beforehand is done). */
  untilDone?: boolean;
  /**
   * Without `runId`: work on one run at a time, and close a run's model before building the next
   * one's (a sweep of in-process models that do not fit in memory twice). Slots stay idle while a run's
   * last trajectories finish here.
   */
  oneRunAtATime?: boolean;
  /** How the worker reaches providers (timeouts, retries, rate limits, key variable); never the plan's decoding. */
  modelOptions?: ModelOptions;
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
  /** A run this worker cannot run (without `runId`): it goes on with the others. */
  onSkip?(info: { runId: string; reason: string }): void;
}

/** Counters a session carries into the next after a reconnection (the last session's number is the outcome's). */
const COUNTERS = ['claimed', 'done', 'successes', 'incomplete', 'rounds', 'lost', 'rejectedWrites'] as const;

export interface WorkerOutcome extends Omit<WorkerResult, 'skipped'> {
  /** The run after this worker (with --run). */
  summary: RunSummary | null;
  /**
   * Runs this worker could not run (without `runId`), with why, how many of their trajectories were
   * still pending when it stopped, and how many of those other live workers held then (null: the
   * store could not be read then).
   */
  skipped: Array<{ runId: string; reason: string; pending: number | null; leased: number | null }>;
  /** Writes the store refused from this worker, as the store counted them. */
  rejectedWrites: number;
}

/**
 * The skipped runs a worker leaves unattended: some of their trajectories were pending and held by no
 * other live worker when it stopped (or the store could not say). `revloop worker` exits 2 for them;
 * a skipped run that other workers finished, or are running, is not.
 */
export function unattendedRuns(skipped: WorkerOutcome['skipped']): string[] {
  return skipped.filter((s) => s.pending === null || s.pending > (s.leased ?? 0)).map((s) => s.runId);
}

/** The model and protocol of a planned run, rebuilt from its plan and checked against it. */
export async function runContext(store: RunStore, runId: string, modelOptions: ModelOptions): Promise<RunContext> {
  const found = await store.getPlanned(runId);
  if (!found)
    throw new NotFoundError(`no run '${runId}' in ${store.location} (plan it with \`revloop run … --workers 0\`)`, {
      kind: 'run',
      target: runId,
    });
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
      { capability: 'ban', model: model.label },
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
      `this worker cannot run '${runId}': the plan it rebuilds differs from the stored one (another revloop version, verifier, plugin or model?).\n` +
        e.differences.map((d) => `  ${d}`).join('\n') +
        `\nRun the worker with the revloop version (and --plugin modules) that planned the run.`,
      { runId, differences: e.differences },
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
  const concurrency = o.concurrency ?? RUN_DEFAULTS.concurrency;
  const modelOptions: ModelOptions = { concurrency, ...(o.modelOptions ?? {}) };
  // Models outlive a reconnection (an in-process model keeps its weights loaded). A worker on every
  // run moves from run to run: a run's model is closed once none of its trajectories is in flight
  // here while another run's are (a sweep of GGUF models holds one or two models, not all of them),
  // and built again if that run needs this worker later. With one run in use nothing is closed.
  // One run at a time (oneRunAtATime): the previous run's model is closed before the next is built.
  const contexts = new Map<string, Promise<RunContext>>();
  const users = new Map<string, number>();
  const closing: Array<Promise<unknown>> = [];
  const closeIdle = (always = false) => {
    if (!always && ![...users.values()].some((n) => n > 0)) return;
    for (const [runId, c] of contexts) {
      if (users.get(runId)) continue;
      contexts.delete(runId);
      users.delete(runId);
      closing.push(
        c
          .then(async (ctx) => {
            await ctx.model.close?.();
            hooks.onNote?.(`run '${runId}': none of its trajectories is in flight here; its model (${ctx.model.label}) is closed`);
          })
          .catch(() => undefined),
      );
    }
  };
  const carried = Object.fromEntries(COUNTERS.map((k) => [k, 0])) as Record<(typeof COUNTERS)[number], number>;
  const withCarried = (p: WorkerProgress): WorkerProgress => {
    const out = { ...p };
    for (const k of COUNTERS) out[k] += carried[k];
    return out;
  };
  const session = { progress: null as WorkerProgress | null, worker: 0, startedAtMs: null as number | null };
  // Runs this worker cannot run, kept across reconnections so a new session does not try them again.
  const skipped = new Map<string, string>();
  try {
    return await withReconnection(
      // The command's store, reconnectSeconds and signal.
      { ...o, restart: 'start the worker again', onNote: hooks.onNote },
      async (store, control) => {
        const outcome = await workSession(store, o, concurrency, {
          ...hooks,
          onStart: (info) => {
            session.startedAtMs ??= Date.now();
            session.worker = info.worker;
            control.connected();
            hooks.onStart?.(info);
          },
          onProgress: (p) => {
            session.progress = p;
            hooks.onProgress?.(withCarried(p));
          },
          skipRuns: skipped,
          onSkip: (runId, reason) => {
            skipped.set(runId, reason);
            hooks.onSkip?.({ runId, reason });
          },
          context: (runId) => {
            users.set(runId, (users.get(runId) ?? 0) + 1);
            let c = contexts.get(runId);
            if (!c) {
              // One run at a time: no other run's trajectory is in flight here, so its model can go first.
              if (o.oneRunAtATime) closeIdle(true);
              const build = () => runContext(store, runId, modelOptions);
              c = (o.oneRunAtATime ? Promise.all(closing).then(build) : build()).then(
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
              closeIdle();
            }
            return c;
          },
          contextDone: (runId) => {
            const n = (users.get(runId) ?? 0) - 1;
            if (n > 0 || contexts.has(runId)) users.set(runId, Math.max(n, 0));
            else users.delete(runId);
            closeIdle();
          },
        });
        return { ...outcome, progress: withCarried(outcome.progress), rejectedWrites: outcome.rejectedWrites + carried.rejectedWrites };
      },
      {
        lost: () => {
          if (session.progress) for (const k of COUNTERS) carried[k] += session.progress[k];
          session.progress = null;
        },
        stoppedWhileDown: () => ({
          worker: session.worker,
          progress: { worker: session.worker, ...carried, inFlight: 0, startedAtMs: session.startedAtMs ?? Date.now() },
          stopped: { reason: 'interrupted', message: 'stopped by request while the database was unreachable' },
          summary: null,
          rejectedWrites: carried.rejectedWrites,
          skipped: [...skipped].map(([runId, reason]) => ({ runId, reason, pending: null, leased: null })),
        }),
      },
    );
  } finally {
    for (const c of contexts.values()) await c.then((ctx) => ctx.model.close?.()).catch(() => undefined);
    await Promise.all(closing);
  }
}

/** One registration of the worker on one open store: runs until done, stopped, or the store fails. */
async function workSession(
  store: RunStore,
  o: WorkerCommandOptions,
  concurrency: number,
  hooks: Omit<WorkerHooks, 'onSkip'> & {
    context(runId: string): Promise<RunContext>;
    contextDone(runId: string): void;
    skipRuns: ReadonlyMap<string, string>;
    onSkip(runId: string, reason: string): void;
  },
): Promise<WorkerOutcome> {
  if (!store.leases)
    throw new UserError(
      `${store.location}: \`revloop worker\` needs a PostgreSQL store (--store postgres://user@host:port/db); a SQLite store has one writer per run, use \`revloop run\``,
    );
  if (o.runId && !(await store.getPlanned(o.runId)))
    throw new NotFoundError(`no run '${o.runId}' in ${store.location} (plan it with \`revloop run … --workers 0\`)`, {
      kind: 'run',
      target: o.runId,
    });
  const result = await runWorker({
    store,
    runId: o.runId,
    concurrency,
    leaseSeconds: o.leaseSeconds ?? RUN_DEFAULTS.leaseSeconds,
    heartbeatMs: o.heartbeatMs,
    pollMs: o.pollMs,
    untilDone: o.runId !== undefined || o.untilDone === true,
    oneRunAtATime: o.oneRunAtATime,
    signal: o.signal,
    maxConsecutiveFailures: o.maxConsecutiveFailures ?? RUN_DEFAULTS.maxConsecutiveFailures,
    sessionOptions: o.sessionOptions,
    context: hooks.context,
    contextDone: hooks.contextDone,
    skipRuns: hooks.skipRuns,
    onSkip: hooks.onSkip,
    onStart: (worker) => hooks.onStart?.({ worker, store: store.location }),
    onProgress: hooks.onProgress,
    onNote: hooks.onNote,
  });
  const summary = o.runId ? ((await store.getRun(o.runId))?.summary ?? null) : null;
  const me = (await store.leases.workers()).find((w) => w.worker === result.worker);
  const skipped = await Promise.all(
    result.skipped.map(async (s) => {
      const summary = (await store.getRun(s.runId))?.summary;
      return { ...s, pending: summary?.pending ?? null, leased: summary?.leased ?? null };
    }),
  );
  return { ...result, summary, skipped, rejectedWrites: me?.rejectedWrites ?? result.progress.rejectedWrites };
}
