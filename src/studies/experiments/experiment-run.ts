// Running an experiment: its build handed to the engine as a trajectory run (plan, frozen prefixes,
// resume, recorder, audit all the engine's own), with the arms' message policy, the ban arm's
// provider and the context-window guard. Also the two refusals every experiment shares: a states
// file whose hash differs from the run's (unless --allow-subset), and a backend that cannot count
// tokens asked for a context window.
import { namingOption, PlanMismatchError, UserError } from '../../core/errors.ts';
import type { Family } from '../../core/verify/types.ts';
import type { GenerationGuard } from '../../engine/loop.ts';
import type { ProtocolConfig } from '../../engine/protocol.ts';
import { executeRun, type RunProgress, type RunResult } from '../../engine/trajectory-run.ts';
import { canTokenize, tokenizerRefusal, type TokenizingModel } from '../../models/capabilities.ts';
import type { Model } from '../../models/types.ts';
import type { TrajectoryRunPlanned } from '../../store/events.ts';
import { isTrajectoryPlan } from '../../store/plan.ts';
import type { RunStore } from '../../store/store.ts';
import type { TrajectoryRecord } from '../../store/types.ts';
import { experimentPolicies } from './arms.ts';
import type { ExperimentBuild, SourceRun } from './designs.ts';
import { experimentOf, type ExperimentPlan } from './plan.ts';
import { statesSha256, withEarlierStateIds, type ExperimentState } from './states.ts';

/** Decoding settings that go into the plan (as `revloop run` freezes them). */
export interface Decoding {
  temperature: number | null;
  seed: number | null;
  extraBody: Record<string, unknown> | null;
}

/** What `executeExperiment` takes: the store, run id, design, model, frozen trajectories and settings. */
export interface ExperimentRunRequest {
  store: RunStore;
  runId: string;
  build: ExperimentBuild;
  model: Model;
  decoding: Decoding;
  resolveFamily: (name: string) => Family;
  guard?: GenerationGuard;
  /** Only these unfinished trajectories in this session (a subset, or one phase). */
  only?: (t: TrajectoryRecord) => boolean;
  concurrency?: number;
  maxConsecutiveFailures?: number;
  sessionOptions?: Record<string, unknown>;
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
}

/** The protocol of an experiment's trajectories: the paper's loop with the design's budget and messages. */
export function experimentProtocol(build: ExperimentBuild, decoding: Decoding): ProtocolConfig {
  const { messagePolicy, banProvider } = experimentPolicies(
    build.experiment,
    build.cases.map((c) => c.id),
  );
  return {
    budget: build.budget,
    history: { kind: 'full' },
    variant: build.variant,
    temperature: decoding.temperature,
    seed: decoding.seed,
    messagePolicy: messagePolicy.name,
    banProvider: banProvider?.name ?? null,
  };
}

/** Plans or resumes an experiment run and runs its trajectories through the engine (resumable, auditable). */
export async function executeExperiment(req: ExperimentRunRequest): Promise<RunResult> {
  const { build } = req;
  const { messagePolicy, banProvider } = experimentPolicies(
    build.experiment,
    build.cases.map((c) => c.id),
  );
  return executeRun({
    store: req.store,
    runId: req.runId,
    cases: build.cases,
    caseSet: build.caseSet,
    model: req.model,
    protocol: experimentProtocol(build, req.decoding),
    resolveFamily: req.resolveFamily,
    extraBody: req.decoding.extraBody,
    messagePolicy,
    banProvider,
    guard: req.guard,
    kind: build.kind,
    studyPlan: { experiment: build.experiment },
    frozenRounds: (i) => build.frozen[i],
    only: req.only,
    concurrency: req.concurrency,
    maxConsecutiveFailures: req.maxConsecutiveFailures,
    sessionOptions: req.sessionOptions,
    signal: req.signal,
    onProgress: req.onProgress,
  });
}

/**
 * A stored trajectory run to start from (revision runs and imports; not another experiment). Errors
 * name the option that chose it (`fromRun`; a crossover's `plannerRun`).
 */
export async function loadSourceRun(store: RunStore, runId: string, option = 'fromRun'): Promise<SourceRun> {
  const planned = await store.getPlanned(runId);
  if (!planned) {
    const known = await store.runIds();
    const runs = known.length ? `; runs: ${known.join(', ')}` : ' (the store has no runs)';
    throw namingOption(option, (n) => new UserError(`${n}: no run '${runId}' in ${store.location}${runs}`));
  }
  const kind = planned.plan.kind;
  if (!isTrajectoryPlan(planned.plan) || (kind !== 'run' && kind !== 'import'))
    throw namingOption(
      option,
      (n) => new UserError(`${n}: run '${runId}' is a ${kind} run; experiments start from revision runs and imported trajectories`),
    );
  return { runId, planned: planned as TrajectoryRunPlanned, trajectories: await store.loadTrajectories([runId]) };
}

/** The experiment block of an existing run, or null when the run does not exist yet. */
export async function storedExperiment(store: RunStore, runId: string, kind: string): Promise<ExperimentPlan | null> {
  const planned = await store.getPlanned(runId);
  if (!planned) return null;
  const experiment = experimentOf(planned.plan);
  if (planned.plan.kind !== kind || !experiment) {
    const stored = planned.plan.kind;
    throw namingOption(
      'runId',
      (n) => new UserError(`run '${runId}' in ${store.location} is a ${stored} run, not an ${kind} run; choose another ${n}`),
    );
  }
  return experiment;
}

/**
 * The states a session works with when a run exists: the same hash → as given; a different hash
 * → refused, unless `allowSubset` and every given state is one of the run's, in which case the
 * run's own selection (and hash) is used and only the given states are worked on.
 */
export function reconcileStates(
  runId: string,
  stored: ExperimentPlan | null,
  given: { states: ExperimentState[]; sha256: string; path: string | null },
  allowSubset: boolean,
): { states: ExperimentState[]; sha256: string; path: string | null; only: Set<string> | null } {
  if (!stored || stored.states_sha256 === given.sha256) return { ...given, only: null };
  // Selected again by the command (no states file): a run planned before state ids lost their
  // label's spaces and brackets holds the same states under the earlier ids.
  if (given.path === null) {
    const earlier = withEarlierStateIds(given.states);
    const sha256 = statesSha256(earlier);
    if (sha256 === stored.states_sha256) return { states: earlier, sha256, path: null, only: null };
  }
  const where = given.path ?? 'the selection';
  if (!allowSubset) {
    const storedSha = stored.states_sha256;
    throw namingOption(
      ['allowSubset', 'runId'],
      (subset, id) =>
        new PlanMismatchError(
          `run '${runId}' was planned with another state selection (SHA-256 ${storedSha.slice(0, 12)}…; ${where} has ${given.sha256.slice(0, 12)}…).\n` +
            `Repeat the original command to resume, pass ${subset} to work on a subset of the run's states, or use a new ${id}.`,
          { runId, differences: [`states_sha256: stored ${storedSha}, requested ${given.sha256}`] },
        ),
    );
  }
  const known = new Set((stored.selection as ExperimentState[]).map((s) => s.state_id));
  const foreign = given.states.filter((s) => !known.has(s.state_id));
  if (foreign.length)
    throw namingOption(
      'allowSubset',
      (n) =>
        new PlanMismatchError(
          `${n}: ${foreign.length} state${foreign.length === 1 ? '' : 's'} of ${where} ${foreign.length === 1 ? 'is' : 'are'} not in run '${runId}' (e.g. ${foreign[0].state_id}); a subset must come from the run's own selection`,
          { runId, differences: foreign.map((s) => `state ${s.state_id}: not in the run`) },
        ),
    );
  return {
    states: stored.selection as ExperimentState[],
    sha256: stored.states_sha256,
    path: given.path,
    only: new Set(given.states.map((s) => s.state_id)),
  };
}

/** The guard that ends a trajectory whose next prompt + max new tokens exceed `window` tokens (docs/protocol.md §3.13). */
export function contextWindowGuard(model: TokenizingModel, window: number): GenerationGuard {
  return {
    name: `context-window:${window}`,
    async check(messages, maxTokens, revision) {
      const prompt = await model.countPromptTokens(messages);
      if (prompt + maxTokens <= window) return null;
      return {
        stop: 'context_limit',
        detail: `revision ${revision}: ${prompt} prompt tokens + ${maxTokens} max new tokens > context window ${window}`,
      };
    },
  };
}

/** The guard for the option `contextWindow`, refusing a backend that cannot count its prompt tokens (never estimated). */
export function contextGuardFor(model: Model, window: number | null): GenerationGuard | undefined {
  if (window === null) return undefined;
  if (!canTokenize(model))
    throw namingOption('contextWindow', (n) =>
      tokenizerRefusal(model, `${n} (prompt tokens are counted with the backend's own tokenizer, never estimated)`),
    );
  return contextWindowGuard(model, window);
}
