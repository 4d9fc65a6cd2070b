// `compare-policies`: the same cases under several revision policies, each policy one revision run
// (resumable like any run, shown by analyze/report as `<model> · <harness>`), then the comparison
// read back from the store (src/revise/compare.ts).
import { basename } from 'node:path';
import { slug } from '../core/util/slug.ts';
import { policyName } from '../remedy/revision-policy.ts';
import { comparePolicyRuns, type PolicyComparison } from '../revise/compare.ts';
import type { Pricing } from '../revise/types.ts';
import type { ModelOptions } from '../models/options.ts';
import { loadCaseSet } from '../core/cases/load.ts';
import { openStore } from '../store/store.ts';
import { UsageError } from '../core/errors.ts';
import { runCases, type RunCasesHooks } from './run.ts';

export interface ComparePoliciesOptions {
  cases: string;
  model: string;
  modelOptions?: ModelOptions;
  /** Policy names (`verbatim-full`, `abstract`, `drop`, `reset-on-recurrence`, `revloop-default`); the first is the reference. */
  policies: string[];
  budget?: number;
  store: string;
  limit?: number;
  concurrency?: number;
  pricing?: Pricing;
  /** Run ids are `<prefix>__<policy>` (default: `compare__<cases>__<model>`). */
  runIdPrefix?: string;
  signal?: AbortSignal;
}

export interface ComparePoliciesHooks {
  /** A policy's run starts (index, total). */
  onPolicy?(policy: string, index: number, total: number, runId: string): void;
  run?: RunCasesHooks;
}

export async function comparePolicies(
  o: ComparePoliciesOptions,
  hooks: ComparePoliciesHooks = {},
): Promise<PolicyComparison & { stopped: boolean }> {
  if (!o.policies.length) throw new UsageError('--policies', '--policies: name at least one policy');
  const seen = new Set<string>();
  for (const p of o.policies) {
    policyName(p, '--policies');
    if (seen.has(p)) throw new UsageError('--policies', `--policies: '${p}' is listed twice`);
    seen.add(p);
  }
  // A limit beyond the file is no limit (as in `run`): said once, and left out of the run ids.
  let limit = o.limit;
  if (limit !== undefined) {
    const total = (await loadCaseSet(o.cases)).cases.length;
    if (limit > total) {
      hooks.run?.onNote?.(`${o.cases} has ${total} cases, fewer than the limit of ${limit}: all ${total} are run, as without a limit`);
      limit = undefined;
    }
  }
  const prefix = o.runIdPrefix ?? `compare__${slug(basename(o.cases).replace(/\.jsonl?$/i, ''))}__${slug(o.model)}`;
  const entries: Array<{ policy: string; runId: string }> = [];
  for (const [i, policy] of o.policies.entries()) {
    const runId = `${prefix}__${slug(policy)}${o.budget !== undefined && o.budget !== 8 ? `__T${o.budget}` : ''}${limit !== undefined ? `__n${limit}` : ''}`;
    hooks.onPolicy?.(policy, i, o.policies.length, runId);
    const out = await runCases(
      {
        cases: o.cases,
        model: o.model,
        modelOptions: o.modelOptions,
        store: o.store,
        runId,
        budget: o.budget,
        harness: policy,
        limit,
        concurrency: o.concurrency,
        maxConsecutiveFailures: 3,
        signal: o.signal,
      },
      hooks.run,
    );
    entries.push({ policy, runId });
    if (out.result.stopped) {
      const store = await openStore(o.store, { readonly: true });
      try {
        return { ...(await comparePolicyRuns(store, entries, o.pricing)), stopped: true };
      } finally {
        await store.close();
      }
    }
  }
  const store = await openStore(o.store, { readonly: true });
  try {
    return { ...(await comparePolicyRuns(store, entries, o.pricing)), stopped: false };
  } finally {
    await store.close();
  }
}
