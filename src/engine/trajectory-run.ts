// Plans and runs (or resumes) a run: binds a run id to an immutable plan, skips completed
// trajectories, continues the others from their last accepted draft with the history rebuilt from
// the store, and records every step. A different plan under an existing run id is refused.
import { REVLOOP_VERSION } from '../core/version.ts';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Model } from '../models/types.ts';
import { recordedCapabilities } from '../models/capabilities.ts';
import type { NewEvent, PerCase, RunPlannedPayload as RunPlannedPayloadAny, TrajectoryRunPlanned } from '../store/events.ts';
import { assertSamePlan, familyFingerprint, hashedPlan, isTrajectoryPlan, type RunPlan } from '../store/plan.ts';
import { planFormat, runKind } from '../store/run-kinds.ts';
import { RUN_KIND } from './trajectory-kinds.ts';
import { StoreRecorder } from './recorder.ts';
import { RunExistsError, type RunStore } from '../store/store.ts';
import type { TrajectoryRecord } from '../store/types.ts';
import { CapabilityError, namingOption, UserError } from '../core/errors.ts';
import type { ConstraintCase, Family } from '../core/verify/types.ts';
import { stopReason, type AcceptedRound, type EngineOptions, type TrajectoryOutcome } from './loop.ts';
import { banProviderNamed } from './round-policy.ts';
import { runPool } from './pool.ts';
import { protocolSpec } from './protocol.ts';
import { ENGINE_DEFAULTS } from './defaults.ts';
import { OutcomeTally } from './outcome-tally.ts';
import { recordTrajectory, type RunContext } from './trajectory-task.ts';
import { runWorker, type WorkerOptions } from './worker.ts';

/** Where a run's cases came from (format, counts, file hash, manifest, path); frozen in the run plan. */
export interface CaseSetInfo {
  format: string;
  /** Cases in the source before --limit. */
  total: number;
  limit: number | null;
  fileSha256: string | null;
  manifest: unknown;
  /** Where the cases were read from (recorded per session, not part of the plan). */
  path: string | null;
}

/**
 * What `executeRun` needs: the store and run id, the cases and where they came from, the model, the protocol, a family lookup, and
 * optionally concurrency, harness hooks, an abort signal and a progress callback. The protocol and harness hooks are
 * `runTrajectory`'s (EngineOptions), the session's settings a worker's (WorkerOptions; unset: ENGINE_DEFAULTS).
 */
export interface RunRequest
  extends
    Pick<EngineOptions, 'protocol' | 'messagePolicy' | 'banProvider' | 'guard'>,
    Partial<Pick<WorkerOptions, 'concurrency' | 'leaseSeconds'>>,
    Pick<WorkerOptions, 'signal' | 'maxConsecutiveFailures' | 'abandonAfterMs' | 'sessionOptions'> {
  store: RunStore;
  runId: string;
  /** The selected cases, in input order. */
  cases: ConstraintCase[];
  caseSet: CaseSetInfo;
  model: Model;
  resolveFamily: (name: string) => Family;
  extraBody?: Record<string, unknown> | null;
  /** The plan's kind (default `run`): another is a study's own, registered with the store (src/store/run-kinds.ts). */
  kind?: string;
  /**
   * The study's own keys in the plan (an experiment's `experiment` block: its frozen inputs),
   * written after the engine's; none may be one of the engine's.
   */
  studyPlan?: Readonly<Record<string, unknown>>;
  /**
   * An experiment's frozen prefix of each trajectory (case index → rounds, with the feedback the
   * model saw after each): written with the plan in one transaction, never generated.
   */
  frozenRounds?: (caseIndex: number) => AcceptedRound[];
  /** Only these unfinished trajectories are worked on in this session (default: all). */
  only?: (t: TrajectoryRecord) => boolean;
  onProgress?: (p: RunProgress) => void;
}

/**
 * Progress of a run, reported through `onProgress`: trajectories done, skipped (finished before this session), complete, incomplete and
 * successful.
 */
export interface RunProgress {
  total: number;
  /** Trajectories already finished before this session started. */
  skipped: number;
  /** Trajectories finished in this session. */
  done: number;
  /** Finished with a joint success (whole run, including skipped ones). */
  successes: number;
  incomplete: number;
  rounds: number;
  startedAtMs: number;
}

/** What `executeRun` returns: the run id, whether it resumed an existing run, and its progress. */
export interface RunResult {
  runId: string;
  resumed: boolean;
  progress: RunProgress;
  /** Set when the run stopped before every trajectory finished. */
  stopped: null | { reason: 'interrupted' | 'provider-failures'; message: string };
}

/** The plan a request would bind its run id to. */
export function planRun(
  req: Pick<
    RunRequest,
    'cases' | 'caseSet' | 'model' | 'protocol' | 'resolveFamily' | 'extraBody' | 'messagePolicy' | 'banProvider' | 'studyPlan'
  >,
  kind: RunPlan['kind'] = RUN_KIND.kind,
  perCase: PerCase[] | null = null,
): TrajectoryRunPlanned {
  const byFamily = new Map<string, ConstraintCase[]>();
  for (const c of req.cases) {
    const list = byFamily.get(c.family) ?? [];
    list.push(c);
    byFamily.set(c.family, list);
  }
  const families: RunPlan['families'] = {};
  for (const name of [...byFamily.keys()].sort())
    families[name] = familyFingerprint(req.resolveFamily(name), byFamily.get(name)!, req.protocol.variant);
  const protocol = protocolSpec({
    ...req.protocol,
    messagePolicy: req.messagePolicy?.name ?? req.protocol.messagePolicy,
    banProvider: req.banProvider?.name ?? req.protocol.banProvider,
  });
  const { plan, plan_sha256 } = hashedPlan(req.cases, perCase, (cases_sha256): RunPlan => ({
    // The version its study writes; an unregistered kind is refused when the run is created.
    format: planFormat(runKind(kind)?.planVersion ?? 1),
    kind,
    case_set: {
      format: req.caseSet.format,
      total: req.caseSet.total,
      limit: req.caseSet.limit,
      count: req.cases.length,
      file_sha256: req.caseSet.fileSha256,
      cases_sha256,
      manifest: req.caseSet.manifest ?? null,
    },
    controller: {
      label: req.model.label,
      spec: req.model.spec,
      simulated: req.model.capabilities.simulated,
      capabilities: recordedCapabilities(req.model.capabilities),
      generation: { temperature: req.protocol.temperature, seed: req.protocol.seed, extra_body: req.extraBody ?? null },
    },
    protocol,
    families,
    // Only a study's runs carry keys of their own, so every other plan (and its hash) is as it always was.
    ...studyKeys(req.studyPlan),
  }));
  return { plan, cases: req.cases, per_case: perCase, plan_sha256 };
}

/** The engine's own keys of a trajectory plan: a study's keys must be others. */
const ENGINE_PLAN_KEYS = new Set(['format', 'kind', 'case_set', 'controller', 'protocol', 'families']);

function studyKeys(extra: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  if (!extra) return {};
  const taken = Object.keys(extra).filter((k) => ENGINE_PLAN_KEYS.has(k));
  if (taken.length) throw new TypeError(`studyPlan: ${taken.join(', ')} are the engine's keys of a plan`);
  return extra;
}

/** Checks cases against their families before anything is written. */
function validateCases(cases: readonly ConstraintCase[], resolveFamily: (name: string) => Family, where: string): void {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  cases.forEach((c, i) => {
    const at = `${where}: case ${i + 1} (${c.id})`;
    const prev = seen.get(c.id);
    if (prev !== undefined) problems.push(`${at}: id: duplicate of case ${prev + 1}`);
    seen.set(c.id, i);
    let family: Family;
    try {
      family = resolveFamily(c.family);
    } catch (e) {
      problems.push(`${at}: family: ${(e as Error).message}`);
      return;
    }
    for (const [field, problem] of family.validateCase(c)) problems.push(`${at}: ${field}: ${problem}`);
  });
  if (problems.length) {
    const shown = problems.slice(0, 20).join('\n');
    throw new UserError(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the case set:\n${shown}${problems.length > 20 ? `\n… and ${problems.length - 20} more` : ''}`,
    );
  }
}

/** A run id already taken by a run of another kind: choose another `runId`. */
function notARevisionRun(runId: string, location: string, kind: string): UserError {
  return namingOption(
    'runId',
    (n) => new UserError(`run '${runId}' in ${location} is a ${kind} run, not a revision run; choose another ${n}`),
  );
}

/** Refuses a different plan under an existing run id, naming what differs. */
function checkSamePlan(runId: string, stored: TrajectoryRunPlanned | RunPlannedPayloadAny, requested: TrajectoryRunPlanned): void {
  assertSamePlan(runId, stored, requested);
}

/**
 * The events that put an experiment's frozen prefixes into a new run: each frozen round as an
 * accepted draft (no attempt: it was generated elsewhere), and the completion of a trajectory
 * whose prefix already reaches the stop rule.
 */
export function frozenRoundEvents(
  cases: readonly ConstraintCase[],
  budget: number,
  frozen: (caseIndex: number) => AcceptedRound[],
): NewEvent[] {
  const events: NewEvent[] = [];
  cases.forEach((_, caseIndex) => {
    const rounds = frozen(caseIndex);
    for (const r of rounds) {
      events.push({
        type: 'draft_accepted',
        caseIndex,
        revision: r.revision,
        payload: { text: r.text, state: r.state, energy: r.energy, joint: r.joint, feedback: r.feedback },
      });
    }
    const last = rounds[rounds.length - 1];
    const stop = last ? stopReason(last.joint, last.revision, budget) : null;
    if (stop)
      events.push({
        type: 'trajectory_completed',
        caseIndex,
        revision: last.revision,
        payload: { stop, rounds: rounds.length, final_joint: last.joint },
      });
  });
  return events;
}

/**
 * Checks a request before anything is written (its cases against their families; a ban needs a
 * model that can ban) and returns the plan it binds its run id to.
 */
function checkedPlan(req: RunRequest): TrajectoryRunPlanned {
  validateCases(req.cases, req.resolveFamily, req.caseSet.path ?? 'cases');
  const ban = req.banProvider?.name ?? req.protocol.banProvider;
  const answers = req.banProvider ? req.banProvider.answers === true : ban ? banProviderNamed(ban)?.answers === true : false;
  if (answers && !req.model.capabilities.banAnswers) {
    throw new CapabilityError(
      `the ban '${ban}' needs a model that can ban complete answers (gguf:, sim:); ${req.model.spec} cannot (vLLM's bad_words cannot name the end of an answer). Run without it, or with such a backend`,
      { capability: 'banAnswers', model: req.model.label },
    );
  }
  if (ban && !answers && !req.model.capabilities.ban) {
    throw namingOption(
      'banProvider',
      (n) =>
        new CapabilityError(
          `the ban '${ban}' needs a model with decoder bans (gguf:, vllm:, sim:); ${req.model.spec} has none. Run without ${n}, or with a backend that can ban`,
          { capability: 'ban', model: req.model.label },
        ),
    );
  }
  return planRun(req, req.kind ?? RUN_KIND.kind);
}

/** The events written with a new run's plan: an experiment's frozen prefixes (none for other runs). */
function frozenEvents(req: RunRequest): NewEvent[] {
  return req.frozenRounds ? frozenRoundEvents(req.cases, req.protocol.budget, req.frozenRounds) : [];
}

/** The request's model, protocol and families, as a worker needs them. */
function contextOf(req: RunRequest): RunContext {
  return {
    runId: req.runId,
    model: req.model,
    protocol: req.protocol,
    resolveFamily: req.resolveFamily,
    extraBody: req.extraBody,
    messagePolicy: req.messagePolicy,
    banProvider: req.banProvider,
    guard: req.guard,
  };
}

/**
 * Validates the request and binds the run id to its plan: creates the run, or checks that the
 * stored plan is the requested one (refusing a different plan, naming what differs). Nothing is
 * run. On a store with leases (PostgreSQL) it also reopens protocol-incomplete trajectories, so
 * workers retry them: planning again is how a shared run is retried (docs/workers.md).
 */
export async function prepareRun(req: RunRequest): Promise<{ planned: TrajectoryRunPlanned; created: boolean; reopened: number }> {
  const { store, runId } = req;
  const requested = checkedPlan(req);
  const check = async (): Promise<boolean> => {
    const stored = await store.getPlanned(runId);
    if (!stored) return false;
    if (!isTrajectoryPlan(stored.plan)) throw notARevisionRun(runId, store.location, stored.plan.kind);
    checkSamePlan(runId, stored, requested);
    return true;
  };
  let created = false;
  if (!(await check())) {
    try {
      await store.createRun(runId, requested, frozenEvents(req));
      created = true;
    } catch (e) {
      // Another planner created it first: then it must be the same plan.
      if (!(e instanceof RunExistsError) || !(await check())) throw e;
    }
  }
  let reopened = 0;
  if (store.leases && !created) {
    for (const t of await store.loadTrajectories([runId])) {
      if (t.status !== 'incomplete') continue;
      const done = await store.append(
        runId,
        [{ type: 'trajectory_reopened', caseIndex: t.caseIndex, payload: { previous_reason: t.incompleteReason ?? null } }],
        { ifStatus: 'incomplete' },
      );
      reopened += done.length;
    }
  }
  return { planned: requested, created, reopened };
}

/**
 * A run on a store with leases: this process is one worker among any others on the same run; it
 * claims trajectories, runs them, and returns once none is pending.
 */
async function executeLeasedRun(req: RunRequest): Promise<RunResult> {
  const { store, runId } = req;
  const prepared = await prepareRun(req);
  const before = await store.loadTrajectories([runId]);
  const complete = before.filter((t) => t.status === 'complete');
  const base: RunProgress = {
    total: before.length,
    skipped: before.length - before.filter((t) => t.status === 'pending').length,
    done: 0,
    successes: complete.filter((t) => t.rounds[t.rounds.length - 1]?.joint).length,
    incomplete: 0,
    rounds: 0,
    startedAtMs: Date.now(),
  };
  req.onProgress?.({ ...base });
  const result = await runWorker({
    store,
    runId,
    context: async () => contextOf(req),
    concurrency: req.concurrency ?? ENGINE_DEFAULTS.concurrency,
    leaseSeconds: req.leaseSeconds ?? ENGINE_DEFAULTS.leaseSeconds,
    untilDone: true,
    signal: req.signal,
    maxConsecutiveFailures: req.maxConsecutiveFailures,
    abandonAfterMs: req.abandonAfterMs,
    sessionKind: prepared.created ? 'run' : 'resume',
    openSession: true,
    casesPath: req.caseSet.path,
    sessionOptions: req.sessionOptions,
    onProgress: (p) =>
      req.onProgress?.({ ...base, done: p.done, successes: base.successes + p.successes, incomplete: p.incomplete, rounds: p.rounds }),
  });
  const p = result.progress;
  return {
    runId,
    resumed: !prepared.created,
    progress: { ...base, done: p.done, successes: base.successes + p.successes, incomplete: p.incomplete, rounds: p.rounds },
    stopped: result.stopped,
  };
}

/**
 * Plans, resumes and executes a run into the store: the first call writes the immutable plan, later calls with the same plan resume where
 * the last stopped (a changed plan throws a PlanMismatchError naming what differs). Throws a CapabilityError when a ban provider meets a
 * model without bans, before writing anything.
 */
export async function executeRun(req: RunRequest): Promise<RunResult> {
  // A plain run on a store with leases runs as one worker among any others. Experiments (their own
  // kinds, or a subset of trajectories) stay single-writer runs: workers never claim them.
  if (req.store.leases && (req.kind ?? RUN_KIND.kind) === RUN_KIND.kind && !req.only) return executeLeasedRun(req);
  const { store, runId } = req;
  const requested = checkedPlan(req);
  const stored = await store.getPlanned(runId);
  if (stored) {
    if (!isTrajectoryPlan(stored.plan)) throw notARevisionRun(runId, store.location, stored.plan.kind);
    checkSamePlan(runId, stored, requested);
  }

  await store.acquireLock(runId);
  try {
    if (!stored) await store.createRun(runId, requested, frozenEvents(req));
    const all = await store.loadTrajectories([runId]);
    const trajectories = req.only ? all.filter(req.only) : all;
    const open = trajectories.filter((t) => t.status !== 'complete');
    const progress: RunProgress = {
      total: trajectories.length,
      skipped: trajectories.length - open.length,
      done: 0,
      successes: trajectories.filter((t) => t.status === 'complete' && t.rounds[t.rounds.length - 1]?.joint).length,
      incomplete: 0,
      rounds: 0,
      startedAtMs: Date.now(),
    };
    await store.append(runId, [
      {
        type: 'session_started',
        payload: {
          kind: stored ? 'resume' : 'run',
          revloop_version: REVLOOP_VERSION,
          pid: process.pid,
          host: hostname(),
          cases_path: req.caseSet.path,
          options: { concurrency: req.concurrency ?? ENGINE_DEFAULTS.concurrency, ...(req.sessionOptions ?? {}) },
          pending: open.length,
        },
      },
    ]);
    req.onProgress?.({ ...progress });

    const controller = new AbortController();
    // Every call in flight listens on this one signal (timers, sockets): that is by design.
    setMaxListeners(4 * (req.concurrency ?? ENGINE_DEFAULTS.concurrency) + 16, controller.signal);
    let stopped: RunResult['stopped'] = null;
    const onExternalAbort = () => {
      stopped ??= { reason: 'interrupted', message: 'stopped by request' };
      controller.abort();
    };
    if (req.signal?.aborted) onExternalAbort();
    req.signal?.addEventListener('abort', onExternalAbort, { once: true });

    const recorders = new Set<StoreRecorder>();
    const tally = new OutcomeTally(progress, req.maxConsecutiveFailures ?? ENGINE_DEFAULTS.maxConsecutiveFailures);

    let fatal: { error: unknown } | null = null;
    const fail = (error: unknown) => {
      if (fatal) return;
      fatal = { error };
      controller.abort();
    };
    /** Final rounds still waiting for their commit (recordTrajectory's onFinalCommit). */
    const finals = new Set<Promise<void>>();

    const ctx = contextOf(req);
    const work = async (t: TrajectoryRecord): Promise<void> => {
      const recorder = new StoreRecorder(store, runId, t.caseIndex);
      recorders.add(recorder);
      try {
        if (t.status === 'incomplete') {
          await store.append(runId, [
            { type: 'trajectory_reopened', caseIndex: t.caseIndex, payload: { previous_reason: t.incompleteReason ?? null } },
          ]);
        }
        let committed: Promise<void> | null = null;
        const outcome: TrajectoryOutcome = await recordTrajectory(
          ctx,
          t,
          recorder,
          controller.signal,
          () => progress.rounds++,
          (c) => (committed = c),
        );
        const report = () => {
          if (recorder.closed || outcome.status === 'aborted') return;
          const stop = tally.count(outcome);
          if (stop && !controller.signal.aborted) {
            stopped = stop;
            controller.abort();
          }
          req.onProgress?.({ ...progress });
        };
        if (!committed) return report();
        // This slot takes its next trajectory now; the outcome counts once its last round is committed.
        const settled: Promise<void> = (committed as Promise<void>).then(report, fail).finally(() => finals.delete(settled));
        finals.add(settled);
      } finally {
        recorders.delete(recorder);
      }
    };

    const pool = runPool(open, req.concurrency ?? ENGINE_DEFAULTS.concurrency, controller.signal, work, fail);
    // Once stopping, nothing more is recorded, and calls that ignore the abort signal are abandoned
    // after a grace period (resuming repeats them).
    let timer: NodeJS.Timeout | undefined;
    const abandoned = new Promise<void>((resolve) => {
      const onAbort = () => {
        for (const r of recorders) r.closed = true;
        timer = setTimeout(resolve, req.abandonAfterMs ?? ENGINE_DEFAULTS.abandonAfterMs);
      };
      if (controller.signal.aborted) onAbort();
      else controller.signal.addEventListener('abort', onAbort, { once: true });
    });
    pool.catch(() => undefined); // an abandoned pool may still fail later; that is no longer news
    // Every final round's commit settles before the run reports (none is added once the pool is done).
    const finished = pool.then(() => Promise.all(finals));
    try {
      await Promise.race([finished, abandoned]);
    } finally {
      if (timer) clearTimeout(timer);
      req.signal?.removeEventListener('abort', onExternalAbort);
    }
    // A worker's error stops the run even when its siblings had to be abandoned.
    if (fatal) throw (fatal as { error: unknown }).error;
    return { runId, resumed: stored !== null, progress: { ...progress }, stopped };
  } finally {
    // Rounds of abandoned calls may still wait for their group commit: they are complete, keep them.
    await store.flush();
    await store.releaseLock(runId);
  }
}
