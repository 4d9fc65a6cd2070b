// `probe`, `probe verify` and `probe items`: typed options in, typed outcomes out; the CLI parses
// flags and shows progress.
import { UserError } from '../core/errors.ts';
import { writeFileAtomicSync } from '../core/util/atomic-file.ts';
import { createModel } from '../models/index.ts';
import type { ModelOptions } from '../models/options.ts';
import type { Model } from '../models/types.ts';
import { openStore } from '../store/store.ts';
import { probeItemRecords, type ProbeItemRecord } from '../studies/probe/probe-analysis.ts';
import { probeScorerFor } from '../studies/probe/backend.ts';
import { describeSizing, sizeProbeContext } from '../studies/probe/context.ts';
import { itemsJsonl, readItemsFile } from '../studies/probe/items.ts';
import { runProbe, type ProbeProgress, type ProbeSessionResult } from '../studies/probe/runner.ts';
import { defaultProbeRunId, earlierProbeRunId, ProbeStore } from '../studies/probe/probe-store.ts';
import { resumableRunId } from '../studies/kit/run-id.ts';
import {
  conditionsOf,
  CORE_CONDITIONS,
  isCondition,
  type Condition,
  type ConditionSet,
  type ProbeItem,
} from '../studies/probe/probe-types.ts';
import { verifyProbeScoring, verifySample, type ProbeVerifyReport } from '../studies/probe/verify.ts';

/** Where items come from: a file, or built (ToolShed, or CodeRepair from a user-supplied MBPP file). */
export type ItemSource =
  { file: string; limit?: number } | { build: number; env?: 'toolshed' | 'coderepair'; mbpp?: string; python?: string; limit?: number };

export interface LoadedItems {
  items: ProbeItem[];
  source: string;
  sha256: string;
  /** Set when the pool yields fewer items than asked for. */
  note?: string;
}

/** `core`, `extended`, `all`, or a comma-separated list of condition names. */
export function parseConditions(spec: string | undefined): Condition[] {
  const s = (spec ?? 'core').trim();
  if (s === 'core' || s === 'extended' || s === 'all') return conditionsOf(s as ConditionSet);
  const names = s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!names.length) throw new UserError('--conditions is empty; use core, extended, all or a list such as pre,fail,neut');
  const bad = names.filter((n) => !isCondition(n));
  if (bad.length)
    throw new UserError(
      `--conditions: unknown condition(s) ${bad.join(', ')}; known: ${conditionsOf('all').join(', ')} (or core, extended, all)`,
    );
  return [...new Set(names)] as Condition[];
}

export async function loadProbeItems(
  source: ItemSource,
  onBuildProgress?: (done: number, total: number, python: string) => void,
): Promise<LoadedItems> {
  let loaded: LoadedItems;
  if ('file' in source) {
    const r = readItemsFile(source.file);
    loaded = { items: r.items, source: source.file, sha256: r.sha256 };
  } else {
    const env = source.env ?? 'toolshed';
    if (source.mbpp && env !== 'coderepair') throw new UserError('--mbpp is for CodeRepair items: add --env coderepair');
    const build = await import('../studies/probe/build.ts');
    if (env === 'toolshed') loaded = build.buildToolShedProbeItems(source.build);
    else {
      if (!source.mbpp)
        throw new UserError(
          'CodeRepair items are built from the sanitized MBPP file (sanitized-mbpp.json, google-research/mbpp), which revloop does not bundle: pass its path with --mbpp PATH',
        );
      loaded = await build.buildCodeRepairProbeItems(source.build, {
        mbpp: source.mbpp,
        python: source.python,
        onProgress: onBuildProgress,
      });
    }
    if (loaded.items.length < source.build)
      loaded.note = `--build ${source.build}: the ${env} pool yields ${loaded.items.length} items under the per-task cap; using all of them`;
  }
  if (source.limit !== undefined) loaded.items = loaded.items.slice(0, source.limit);
  return loaded;
}

/** Scoring failures (numeric guards, a server that keeps failing) are the user's to act on: no stack trace. */
async function asUserError<T>(fn: () => Promise<T>, note: string): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const name = (e as Error)?.name;
    if (name === 'NumericGuardError' || name === 'ScoreError') throw new UserError(`${(e as Error).message} (${note})`);
    throw e;
  }
}

export interface ProbeOptions {
  model: string;
  modelOptions?: ModelOptions;
  items: ItemSource;
  conditions: Condition[];
  store: string;
  /** Default: probe-<env>-<model label>. */
  runId?: string;
  signal?: AbortSignal;
  /** Return the item-level records of this session's items (for `--json`). */
  withItemRecords?: boolean;
}

export interface ProbeHooks {
  onNote?(text: string): void;
  onBuildProgress?(done: number, total: number, python: string): void;
  /** Once the model is up and the run is open. */
  onStart?(s: { runId: string; model: string; simulated: boolean }): void;
  onProgress?(p: ProbeProgress): void;
}

export interface ProbeOutcome extends ProbeSessionResult {
  model: string;
  simulated: boolean;
  itemRecords: ProbeItemRecord[] | null;
}

async function openModel(spec: string, options: ModelOptions | undefined): Promise<Model> {
  return createModel(spec, options ?? {});
}

export async function probeCommand(o: ProbeOptions, hooks: ProbeHooks = {}): Promise<ProbeOutcome> {
  const { items, source, sha256, note } = await loadProbeItems(o.items, hooks.onBuildProgress);
  if (note) hooks.onNote?.(note);
  const envs = [...new Set(items.map((i) => i.env))];
  if (envs.length !== 1)
    throw new UserError(`${source}: items from several environments (${envs.join(', ')}); probe one environment per run`);
  const model = await openModel(o.model, o.modelOptions);
  try {
    const scorer = await probeScorerFor(model);
    // Sized before anything is written, and said up front (docs/probe.md, context window).
    const sizing = await sizeProbeContext(scorer, items, o.conditions);
    if (sizing) hooks.onNote?.(describeSizing(sizing));
    const store = await openStore(o.store);
    const probe = new ProbeStore(store);
    let runId: string;
    try {
      runId = o.runId ?? (await resumableRunId(store, defaultProbeRunId(envs[0], model.label), earlierProbeRunId(envs[0], model.label)));
    } catch (e) {
      await store.close();
      throw e;
    }
    try {
      await probe.openRun(runId, envs[0], model);
      await store.acquireLock(runId);
      await probe.addItems(runId, items, source);
      if (!o.conditions.includes('pre') || !o.conditions.includes('fail'))
        hooks.onNote?.('G and every paired delta need the pre and fail scores; score --conditions core into the same --run as well');
      hooks.onStart?.({ runId, model: model.label, simulated: model.capabilities.simulated });
      const result = await asUserError(
        () =>
          runProbe(scorer, probe, items, {
            runId,
            conditions: o.conditions,
            itemsSource: source,
            itemsSha256: sha256,
            signal: o.signal,
            onProgress: hooks.onProgress,
          }),
        'scores recorded so far are stored; rerun the same command to resume',
      );
      let itemRecords: ProbeItemRecord[] | null = null;
      if (o.withItemRecords) {
        const ids = new Set(items.map((i) => i.item_id));
        const scores = (await probe.scores(runId)).filter((s) => ids.has(s.item_id));
        itemRecords = probeItemRecords(runId, model.label, model.capabilities.simulated, items, scores);
      }
      return { ...result, model: model.label, simulated: model.capabilities.simulated, itemRecords };
    } finally {
      await store.releaseLock(runId);
      await store.close();
    }
  } finally {
    await model.close?.();
  }
}

export interface ProbeVerifyOptions {
  model: string;
  modelOptions?: ModelOptions;
  items: ItemSource;
  /** Items to sample (Python random.Random(0).sample). */
  n: number;
  /** Largest allowed |cached − fresh| in nats. */
  tolerance: number;
}

export interface ProbeVerifyOutcome extends ProbeVerifyReport {
  model: string;
  simulated: boolean;
}

export async function probeVerify(
  o: ProbeVerifyOptions,
  hooks: Pick<ProbeHooks, 'onNote' | 'onBuildProgress'> = {},
): Promise<ProbeVerifyOutcome> {
  const { items, note } = await loadProbeItems(o.items, hooks.onBuildProgress);
  if (note) hooks.onNote?.(note);
  const model = await openModel(o.model, o.modelOptions);
  try {
    const scorer = await probeScorerFor(model);
    const sizing = await sizeProbeContext(scorer, verifySample(items, o.n), CORE_CONDITIONS);
    if (sizing) hooks.onNote?.(describeSizing(sizing));
    const report = await asUserError(() => verifyProbeScoring(scorer, items, { n: o.n, tolerance: o.tolerance }), 'nothing was recorded');
    return { ...report, model: model.label, simulated: model.capabilities.simulated };
  } finally {
    await model.close?.();
  }
}

/** `probe items`: write built items (or a filtered items file) as JSON Lines; `out` null returns the text instead. */
export async function writeProbeItems(
  source: ItemSource,
  out: string | null,
  hooks: Pick<ProbeHooks, 'onNote' | 'onBuildProgress'> = {},
): Promise<{ items: number; tasks: number; operators: number; source: string; text?: string }> {
  const { items, source: from, note } = await loadProbeItems(source, hooks.onBuildProgress);
  if (note) hooks.onNote?.(note);
  const text = itemsJsonl(items);
  if (out !== null) writeFileAtomicSync(out, text);
  return {
    items: items.length,
    tasks: new Set(items.map((i) => i.task_id)).size,
    operators: new Set(items.map((i) => i.operator)).size,
    source: from,
    ...(out === null ? { text } : {}),
  };
}
