// `experiment`: the controlled experiments as typed commands (docs/experiments.md). Each opens the
// store, reads its frozen inputs (a source run's states, or a case set), builds the design's
// trajectory plan and runs it through the engine: the same command resumes, a changed plan is
// refused naming what differs, a states file with another SHA-256 is refused unless a subset is
// allowed. Progress arrives through hooks; nothing here prints.
import { writeFileAtomic } from '../core/util/atomic-file.ts';
import { loadCaseSet } from '../core/cases/load.ts';
import { UserError } from '../core/errors.ts';
import { getFamily } from '../core/verify/registry.ts';
import type { RunProgress, RunResult } from '../engine/trajectory-run.ts';
import { requireBan } from '../models/capabilities.ts';
import { createModel } from '../models/index.ts';
import type { Model } from '../models/types.ts';
import { openStore, withStore, type RunStore, type RunSummary } from '../store/store.ts';
import { DEFAULT_ARMS, formatArm, parseArms, type HistoryArm } from '../studies/experiments/arms.ts';
import {
  buildCrossover,
  buildHistory,
  buildPersist,
  buildSysid,
  DEFAULT_ERRORS,
  MIN_SYSID_TARGET,
  type ExperimentBuild,
  type SourceRun,
  type StatesInput,
  type SysidSplit,
} from '../studies/experiments/designs.ts';
import {
  contextGuardFor,
  executeExperiment,
  loadSourceRun,
  reconcileStates,
  storedExperiment,
} from '../studies/experiments/experiment-run.ts';
import {
  readStatesFile,
  selectStates,
  statesJsonl,
  statesSha256,
  type ExperimentState,
  type SelectRule,
  type StateDesign,
} from '../studies/experiments/states.ts';
import { freezePredictionSpec } from '../studies/experiments/sysid-spec.ts';
import { DESIGN_DEFAULTS } from '../studies/experiments/defaults.ts';
import { RUN_DEFAULTS } from './defaults.ts';
import { decodingFor, type RunCasesOptions } from './run.ts';

// ---- states -------------------------------------------------------------------------------------

export interface SelectStatesOptions {
  store: string;
  fromRun: string;
  design?: StateDesign;
  select?: SelectRule;
  maxStates?: number;
  /** Where to write the JSON Lines; null returns the text. */
  output: string | null;
}

export interface SelectStatesOutcome {
  states: ExperimentState[];
  sha256: string;
  /** Trajectories of the source run, and how many had a candidate state. */
  trajectories: number;
  text: string | null;
  simulated: boolean;
}

export async function selectExperimentStates(o: SelectStatesOptions): Promise<SelectStatesOutcome> {
  const { states, trajectories, simulated } = await withStore(o.store, { readonly: true }, async (store) => {
    const source = await loadSourceRun(store, o.fromRun);
    return {
      states: selectStates(source.planned, o.fromRun, source.trajectories, {
        design: o.design ?? DESIGN_DEFAULTS.design,
        select: o.select,
        maxStates: o.maxStates,
      }),
      trajectories: source.trajectories.length,
      simulated: source.planned.plan.controller.simulated,
    };
  });
  const text = statesJsonl(states);
  if (o.output !== null) await writeFileAtomic(o.output, text);
  return { states, sha256: statesSha256(states), trajectories, text: o.output === null ? text : null, simulated };
}

// ---- running ------------------------------------------------------------------------------------

/** Settings every experiment command shares: a run's (RunCasesOptions; defaults: RUN_DEFAULTS), its run id required. */
export interface ExperimentCommonOptions extends Pick<
  RunCasesOptions,
  'store' | 'model' | 'modelOptions' | 'concurrency' | 'maxConsecutiveFailures' | 'sessionOptions' | 'signal'
> {
  runId: string;
}

export interface ExperimentStart {
  runId: string;
  design: string;
  resumed: boolean;
  alreadyComplete: number;
  trajectories: number;
  /** Trajectories worked on in this session (a subset with --allow-subset). */
  selected: number;
  states: number;
  statesSha256: string;
  model: string;
  simulated: boolean;
  budget: number;
  concurrency: number;
}

export interface ExperimentHooks {
  onStart?(s: ExperimentStart): void;
  onProgress?(p: RunProgress): void;
  onNote?(text: string): void;
}

export interface ExperimentOutcome {
  runId: string;
  simulated: boolean;
  result: RunResult;
  summary: RunSummary;
}

interface Prepared {
  build: ExperimentBuild;
  only: Set<string> | null;
  guard?: ReturnType<typeof contextGuardFor>;
}

/** The states a command works from: its --states file, or a fresh selection from the source run. */
async function statesFor(
  source: SourceRun,
  design: StateDesign,
  file: string | undefined,
  select: { select?: SelectRule; maxStates?: number },
): Promise<StatesInput> {
  if (file !== undefined) {
    const { states, sha256 } = await readStatesFile(file);
    return { states, sha256, path: file };
  }
  const states = selectStates(source.planned, source.runId, source.trajectories, { design, ...select });
  if (!states.length)
    throw new UserError(
      `run '${source.runId}' has no ${design === 'history' ? 'recurrence events' : design === 'persist' ? 'budget-end failures' : 'first drafts'} to start from`,
    );
  return { states, sha256: statesSha256(states), path: null };
}

async function runPrepared(
  store: RunStore,
  o: ExperimentCommonOptions,
  model: Model,
  decoding: ReturnType<typeof decodingFor>['decoding'],
  prepared: Prepared,
  hooks: ExperimentHooks,
  announced: { done: boolean },
  phase?: (t: { caseIndex: number }) => boolean,
): Promise<RunResult> {
  const { build, only } = prepared;
  const prior = await store.getRun(o.runId);
  const concurrency = o.concurrency ?? RUN_DEFAULTS.concurrency;
  const selected = build.experiment.trajectories.filter(
    (t, i) => (!only || only.has(t.state_id)) && (!phase || phase({ caseIndex: i })),
  ).length;
  return executeExperiment({
    store,
    runId: o.runId,
    build,
    model,
    decoding,
    resolveFamily: getFamily,
    guard: prepared.guard,
    only:
      only || phase
        ? (t) => (!only || only.has(build.experiment.trajectories[t.caseIndex].state_id)) && (!phase || phase({ caseIndex: t.caseIndex }))
        : undefined,
    concurrency,
    maxConsecutiveFailures: o.maxConsecutiveFailures ?? RUN_DEFAULTS.maxConsecutiveFailures,
    sessionOptions: o.sessionOptions,
    signal: o.signal,
    onProgress: (p) => {
      // Said once the plan is accepted (a refused plan is never announced), once per command.
      if (!announced.done) {
        announced.done = true;
        hooks.onStart?.({
          runId: o.runId,
          design: build.experiment.design,
          resumed: prior !== null,
          alreadyComplete: prior?.summary.complete ?? 0,
          trajectories: build.cases.length,
          selected,
          states: new Set(build.experiment.trajectories.map((t) => t.state_id)).size,
          statesSha256: build.experiment.states_sha256,
          model: model.label,
          simulated: model.capabilities.simulated,
          budget: build.budget,
          concurrency,
        });
      }
      hooks.onProgress?.(p);
    },
  });
}

/**
 * Creates the model, prepares the design from what it reads (a source run, opened read-only; a case
 * file), and only then opens the store for writing and runs it: a misspelt store or run, or cases
 * with nothing to run, are refused before anything is created.
 */
async function withExperiment(
  o: ExperimentCommonOptions,
  hooks: ExperimentHooks,
  prepare: (source: () => Promise<RunStore>, model: Model) => Promise<Prepared>,
  run?: (
    store: RunStore,
    model: Model,
    prepared: Prepared,
    go: (phase?: (t: { caseIndex: number }) => boolean) => Promise<RunResult>,
  ) => Promise<RunResult>,
): Promise<ExperimentOutcome> {
  const { modelOptions, decoding } = decodingFor(o.model, o.modelOptions, o.concurrency ?? RUN_DEFAULTS.concurrency);
  let model: Model | null = null;
  // The read-only store the design is prepared from, opened only when it reads one.
  const read: { store: Promise<RunStore> | null } = { store: null };
  const closeRead = async () => {
    const pending = read.store;
    read.store = null;
    if (pending) await (await pending.catch(() => null))?.close();
  };
  let store: RunStore | null = null;
  try {
    model = await createModel(o.model, modelOptions);
    const prepared = await prepare(() => (read.store ??= openStore(o.store, { readonly: true })), model);
    await closeRead();
    store = await openStore(o.store);
    const writer = store;
    const announced = { done: false };
    const go = (phase?: (t: { caseIndex: number }) => boolean) =>
      runPrepared(writer, o, model!, decoding, prepared, hooks, announced, phase);
    const result = run ? await run(writer, model, prepared, go) : await go();
    const summary = (await writer.getRun(o.runId))!.summary;
    return { runId: o.runId, simulated: model.capabilities.simulated, result, summary };
  } finally {
    await model?.close?.();
    await closeRead();
    await store?.close();
  }
}

export interface HistoryExperimentOptions extends ExperimentCommonOptions {
  fromRun: string;
  arms?: HistoryArm[];
  states?: string;
  allowSubset?: boolean;
  budget?: number;
  select?: SelectRule;
  maxStates?: number;
}

export async function runHistoryExperiment(o: HistoryExperimentOptions, hooks: ExperimentHooks = {}): Promise<ExperimentOutcome> {
  return withExperiment(o, hooks, async (readStore, model) => {
    const store = await readStore();
    const arms = o.arms ?? parseArms(DEFAULT_ARMS);
    if (arms.some((a) => a.kind === 'ban')) requireBan(model, "the 'ban' arm (earlier failed drafts banned at decoding)");
    const source = await loadSourceRun(store, o.fromRun);
    const stored = await storedExperiment(store, o.runId, 'experiment:history');
    const given = await statesFor(source, 'history', o.states, { select: o.select, maxStates: o.maxStates });
    const states = reconcileStates(o.runId, stored, given, o.allowSubset ?? false);
    const build = buildHistory(source, states, { arms, budget: o.budget ?? RUN_DEFAULTS.budget, resolveFamily: getFamily });
    hooks.onNote?.(`${states.states.length} states × ${arms.length} arms (${arms.map(formatArm).join(', ')}) from run '${o.fromRun}'`);
    return { build, only: states.only };
  });
}

export interface CrossoverExperimentOptions extends ExperimentCommonOptions {
  plannerRun: string;
  budget?: number;
  states?: string;
  allowSubset?: boolean;
}

export async function runCrossoverExperiment(o: CrossoverExperimentOptions, hooks: ExperimentHooks = {}): Promise<ExperimentOutcome> {
  return withExperiment(o, hooks, async (readStore, model) => {
    const store = await readStore();
    const planner = await loadSourceRun(store, o.plannerRun, 'plannerRun');
    const stored = await storedExperiment(store, o.runId, 'experiment:crossover');
    const given = await statesFor(planner, 'crossover', o.states, {});
    const states = reconcileStates(o.runId, stored, given, o.allowSubset ?? false);
    const build = buildCrossover(planner, states, {
      controller: model.label,
      budget: o.budget ?? RUN_DEFAULTS.budget,
      resolveFamily: getFamily,
    });
    const skipped = planner.trajectories.length - states.states.length;
    if (skipped > 0) hooks.onNote?.(`${skipped} trajectories of '${o.plannerRun}' have no finished first draft and are not crossed`);
    return { build, only: states.only };
  });
}

export interface PersistExperimentOptions extends ExperimentCommonOptions {
  fromRun: string;
  budget?: number;
  maxStates?: number;
  contextWindow?: number | null;
  states?: string;
  allowSubset?: boolean;
}

export async function runPersistExperiment(o: PersistExperimentOptions, hooks: ExperimentHooks = {}): Promise<ExperimentOutcome> {
  return withExperiment(o, hooks, async (readStore, model) => {
    const store = await readStore();
    const guard = contextGuardFor(model, o.contextWindow ?? null);
    const source = await loadSourceRun(store, o.fromRun);
    const stored = await storedExperiment(store, o.runId, 'experiment:persist');
    const given = await statesFor(source, 'persist', o.states, { maxStates: o.maxStates });
    const states = reconcileStates(o.runId, stored, given, o.allowSubset ?? false);
    const build = buildPersist(source, states, {
      budget: o.budget ?? DESIGN_DEFAULTS.persistBudget,
      contextWindow: o.contextWindow ?? null,
      resolveFamily: getFamily,
    });
    return { build, only: states.only, guard };
  });
}

export interface SysidExperimentOptions extends ExperimentCommonOptions {
  cases: string;
  /** Only the first n cases of the file (more than it holds: all, said in a note). */
  limit?: number;
  errors?: number[];
  draftField?: string;
  split?: SysidSplit;
}

export async function runSysidExperiment(o: SysidExperimentOptions, hooks: ExperimentHooks = {}): Promise<ExperimentOutcome> {
  return withExperiment(
    o,
    hooks,
    async () => {
      const loaded = await loadCaseSet(o.cases);
      const limit = o.limit !== undefined && o.limit < loaded.cases.length ? o.limit : undefined;
      if (o.limit !== undefined && limit === undefined && o.limit > loaded.cases.length)
        hooks.onNote?.(`${o.cases} has ${loaded.cases.length} cases, fewer than the limit of ${o.limit}: all of them are used`);
      const cases = limit !== undefined ? loaded.cases.slice(0, limit) : loaded.cases;
      if (!cases.length) throw new UserError(`${o.cases}: no cases to start from`);
      const build = buildSysid(
        { cases, path: o.cases, fileSha256: loaded.manifest.file_sha256, manifest: loaded.manifest, format: loaded.format },
        {
          errors: o.errors ?? DEFAULT_ERRORS,
          draftField: o.draftField ?? DESIGN_DEFAULTS.draftField,
          split: o.split ?? DESIGN_DEFAULTS.split,
          resolveFamily: getFamily,
        },
      );
      if (build.excluded.length)
        hooks.onNote?.(
          `${build.excluded.length} cells excluded (shifted target below ${MIN_SYSID_TARGET}): ${build.excluded.map((e) => e.state_id).join(', ')}`,
        );
      return { build, only: null };
    },
    async (store, _model, prepared, go) => {
      // Discovery first; the prediction spec is frozen before any confirmation state is generated.
      const split = (i: number) => prepared.build.experiment.trajectories[i].facts.split;
      if (!prepared.build.experiment.trajectories.some((t) => t.facts.split === 'discovery')) {
        hooks.onNote?.(
          'no discovery states in this run: no prediction spec is frozen here (its confirmation states are analysed without one)',
        );
        return go();
      }
      const discovery = await go((t) => split(t.caseIndex) === 'discovery');
      if (discovery.stopped) return discovery;
      const frozen = await freezePredictionSpec(store, o.runId);
      if (frozen.status === 'waiting') {
        hooks.onNote?.(
          `${frozen.pending} discovery states are not complete (protocol-incomplete); the prediction spec is frozen once they are`,
        );
        return discovery;
      }
      hooks.onNote?.(`prediction spec ${frozen.status === 'frozen' ? 'frozen' : 'unchanged'}: SHA-256 ${frozen.sha256}`);
      return go((t) => split(t.caseIndex) === 'confirmation');
    },
  );
}
