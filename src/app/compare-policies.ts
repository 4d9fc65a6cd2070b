// `compare-policies`: the same cases under several revision policies, each policy one revision run
// per seed (resumable like any run, shown by analyze/report as `<model> · <harness>`), then the
// comparison read back from the store (src/revise/compare.ts), paired by (seed, case).
import { basename } from 'node:path';
import { slug } from '../core/util/slug.ts';
import { policyName } from '@revloop/revise';
import { comparePolicyRuns, type PolicyComparison, type PolicyRuns } from '../revise/compare.ts';
import { replayTruncations } from '../revise/replay.ts';
import type { Pricing } from '../revise/types.ts';
import type { ModelOptions } from '../models/options.ts';
import { parseSpec } from '../models/spec.ts';
import { loadCaseSet } from '../core/cases/load.ts';
import { openStore } from '../store/store.ts';
import { UsageError } from '../core/errors.ts';
import { RUN_DEFAULTS } from './defaults.ts';
import { runCases, type RunCasesHooks, type RunCasesOptions } from './run.ts';

/** The bans a policy entry can name after `+ban=` (the lab's `--ban`). */
export const ENTRY_BANS = ['none', 'failed-drafts', 'complete-repeats'] as const;
export type EntryBan = (typeof ENTRY_BANS)[number];

/** A `--policies` entry: a policy name, optionally with the ban replaced (`revloop-default+ban=none`). */
export interface PolicyEntry {
  /** As written (the row's name and the run id's tail). */
  entry: string;
  /** The harness (a canonical policy name). */
  harness: string;
  ban?: EntryBan;
}

/** Parses `NAME` or `NAME+ban=KIND`; a UsageError names the entry and what is allowed. */
export function parsePolicyEntry(entry: string, flag = '--policies'): PolicyEntry {
  const [name, ...mods] = entry.split('+');
  const harness = policyName(name, flag);
  let ban: EntryBan | undefined;
  for (const mod of mods) {
    const m = /^ban=(.*)$/.exec(mod);
    if (!m || !(ENTRY_BANS as readonly string[]).includes(m[1]))
      throw new UsageError(`${flag}: '${entry}': after '+' use ban=${ENTRY_BANS.join('|')}`, { option: flag });
    if (ban !== undefined) throw new UsageError(`${flag}: '${entry}' names the ban twice`, { option: flag });
    ban = m[1] as EntryBan;
  }
  return { entry, harness, ban };
}

/** `1-10`, `1,3,5`, `1-3,7`: distinct non-negative integer seeds in the order given. */
export function parseSeeds(text: string, flag = '--seeds'): number[] {
  const out: number[] = [];
  for (const part of text.split(',').map((s) => s.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new UsageError(`${flag}: '${part}' is not a seed or a range like 1-10`, { option: flag });
    const [lo, hi] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (hi < lo) throw new UsageError(`${flag}: the range '${part}' runs backwards`, { option: flag });
    if (hi - lo >= 1000) throw new UsageError(`${flag}: '${part}' is more than 1000 seeds`, { option: flag });
    for (let s = lo; s <= hi; s++) {
      if (out.includes(s)) throw new UsageError(`${flag}: seed ${s} is listed twice`, { option: flag });
      out.push(s);
    }
  }
  if (!out.length) throw new UsageError(`${flag}: name at least one seed`, { option: flag });
  return out;
}

/**
 * The model of one replicate: a simulated controller takes the seed as its `seed` parameter (all its
 * randomness); any other model takes it as the sampling seed, which needs a temperature above 0.
 */
export function seededModel(spec: string, options: ModelOptions | undefined, seed: number): { model: string; modelOptions?: ModelOptions } {
  const parsed = parseSpec(spec);
  if (parsed.scheme === 'sim') {
    if (parsed.params.seed !== undefined)
      throw new UsageError(`--seeds: the model spec ${spec} already sets seed=; leave it out`, { option: '--seeds' });
    return { model: `${spec}${spec.includes('?') ? '&' : '?'}seed=${seed}`, modelOptions: options };
  }
  if (parsed.params.seed !== undefined || options?.seed !== undefined)
    throw new UsageError('--seeds: the model already has a fixed --seed; give one or the other', { option: '--seeds' });
  if (!(typeof options?.temperature === 'number' && options.temperature > 0))
    throw new UsageError(
      '--seeds: at temperature 0 every seed gives the same trajectories; set --temperature above 0 to replicate a sampled model',
      { option: '--seeds' },
    );
  return { model: spec, modelOptions: { ...options, seed } };
}

export interface ComparePoliciesOptions {
  cases: string;
  model: string;
  modelOptions?: ModelOptions;
  /** Policy entries (`verbatim-full`, `abstract`, `drop`, `reset-on-recurrence`, `revloop-default`, each optionally `+ban=KIND`); the first is the reference. */
  policies: string[];
  /** Replicates: each policy runs once per seed, and pairs are (seed, case). */
  seeds?: number[];
  budget?: number;
  store: string;
  limit?: number;
  concurrency?: number;
  pricing?: Pricing;
  /** Run ids are `<prefix>__<policy>[__seed<N>]` (default: `compare__<cases>__<model>`). */
  runIdPrefix?: string;
  signal?: AbortSignal;
}

export interface ComparePoliciesHooks {
  /** A run starts (index, total): one per policy and seed. */
  onPolicy?(policy: string, index: number, total: number, runId: string): void;
  run?: RunCasesHooks;
}

export async function comparePolicies(
  o: ComparePoliciesOptions,
  hooks: ComparePoliciesHooks = {},
): Promise<PolicyComparison & { stopped: boolean }> {
  if (!o.policies.length) throw new UsageError('--policies: name at least one policy', { option: '--policies' });
  const seen = new Set<string>();
  const entries = o.policies.map((p) => {
    const e = parsePolicyEntry(p);
    if (seen.has(p)) throw new UsageError(`--policies: '${p}' is listed twice`, { option: '--policies' });
    seen.add(p);
    return e;
  });
  const seeds: Array<number | null> = o.seeds?.length ? o.seeds : [null];
  // Every replicate's model is checked before the first run starts.
  const models = seeds.map((s) =>
    s === null ? { model: o.model, modelOptions: o.modelOptions } : seededModel(o.model, o.modelOptions, s),
  );
  // A limit beyond the file is no limit (as in `run`): said once, and left out of the run ids.
  let limit = o.limit;
  if (limit !== undefined) {
    const caseCount = (await loadCaseSet(o.cases)).cases.length;
    if (limit > caseCount) {
      hooks.run?.onNote?.(
        `${o.cases} has ${caseCount} cases, fewer than the limit of ${limit}: all ${caseCount} are run, as without a limit`,
      );
      limit = undefined;
    }
  }
  const prefix = o.runIdPrefix ?? `compare__${slug(basename(o.cases).replace(/\.jsonl?$/i, ''))}__${slug(o.model)}`;
  const tail = `${o.budget !== undefined && o.budget !== RUN_DEFAULTS.budget ? `__T${o.budget}` : ''}${limit !== undefined ? `__n${limit}` : ''}`;
  const done: PolicyRuns[] = [];
  const total = entries.length * seeds.length;
  // With seeds, the title names the model without any one seed (each run's label carries its own).
  const label = o.seeds?.length ? o.model : undefined;
  const finish = async (stopped: boolean) => {
    const store = await openStore(o.store, { readonly: true });
    try {
      return { ...(await comparePolicyRuns(store, done, { pricing: o.pricing, model: label })), stopped };
    } finally {
      await store.close();
    }
  };
  let index = 0;
  for (const e of entries) {
    const runs: Array<{ seed: number | null; runId: string }> = [];
    done.push({ policy: e.entry, runs });
    for (const [k, seed] of seeds.entries()) {
      const runId = `${prefix}__${slug(e.entry)}${seed === null ? '' : `__seed${seed}`}${tail}`;
      hooks.onPolicy?.(e.entry, index++, total, runId);
      const run: RunCasesOptions = {
        cases: o.cases,
        model: models[k].model,
        modelOptions: models[k].modelOptions,
        store: o.store,
        runId,
        budget: o.budget,
        harness: e.harness,
        ban: e.ban,
        limit,
        concurrency: o.concurrency,
        maxConsecutiveFailures: 3,
        signal: o.signal,
      };
      const out = await runCases(run, hooks.run);
      runs.push({ seed, runId });
      if (out.result.stopped) return finish(true);
    }
  }
  return finish(false);
}

export interface ReplayPoliciesOptions {
  store: string;
  /** The stored run whose recorded trajectories are cut. */
  runId: string;
  /** `budget=T`, `on-cycle=stop`, `stop=recurrence`, or several joined with `+`; default: every smaller budget, then the two stop rules. */
  truncations?: string[];
  pricing?: Pricing;
}

/** Truncating policies evaluated on a stored run's trajectories (src/revise/replay.ts); no model is called. */
export async function replayPolicies(o: ReplayPoliciesOptions): Promise<PolicyComparison> {
  const store = await openStore(o.store, { readonly: true });
  try {
    let truncations = o.truncations;
    if (!truncations?.length) {
      const planned = await store.getPlanned(o.runId);
      const budget = planned && 'protocol' in planned.plan ? planned.plan.protocol.budget : 0;
      truncations = [...Array.from({ length: budget }, (_, t) => `budget=${t}`), 'on-cycle=stop', 'stop=recurrence'];
    }
    return await replayTruncations(store, o.runId, truncations, { pricing: o.pricing });
  } finally {
    await store.close();
  }
}
