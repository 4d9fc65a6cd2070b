// Agent-study analysis (docs/harness.md §5.3): per run (model × harness) cluster-bootstrap
// means of the rollout metrics, and paired contrasts of every harness against `verbatim` on the
// same tasks (inner join on task_id; at least 5 common tasks and 5 finite differences). Repeat
// rates are per-rollout means over rollouts with at least one failure (not pooled ratios).
import { PRNG_NAME } from '../../core/stats/prng.ts';
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, clusterBootstrap, type Estimate } from '../../core/stats/cluster-bootstrap.ts';
import type { AgentHarnessName } from '../../remedy/agent-harness.ts';
import { STUDY_HARNESSES } from './study-harnesses.ts';
import type { RolloutRecord } from './engine.ts';
import type { AgentRunRow, AgentStore } from './agent-store.ts';

const AGENT_ANALYSIS_SCHEMA = 'revloop.agent-analysis/1';

const AGENT_METRICS: Readonly<Record<string, string>> = {
  solved: 'task success (goal predicate)',
  stuck: 'ended in a loop: step limit reached with ≥ 2 canonical repeats among failed actions',
  exact_repeat_rate: 'failed actions repeating an earlier failed action byte for byte (stripped)',
  canonical_repeat_rate: 'the same after parsing and normalising the call',
  ok_call_rate: 'valid-call rate over all steps (finish counts)',
  n_steps: 'steps used',
  gen_tokens: 'generated tokens per rollout',
  prompt_tokens: 'prompt tokens per rollout (full context per step, summed)',
  prompt_tokens_per_step: 'prompt tokens per step',
  truncated_rate: 'actions cut off by the token budget (unbalanced call)',
  prose_rate: 'prose where a call was expected',
  n_banned_masked: 'ban mask applications per rollout',
};

/** One metric's estimate (mean and 95% cluster-bootstrap interval), or the reason there is none. */
export interface MetricSummary extends Partial<Estimate> {
  metric: string;
  reason?: string;
}

/** One agent run's analysis: its model (labelled when simulated), environment and metric summaries per harness. */
export interface AgentRunAnalysis {
  run_id: string;
  model: string;
  simulated: boolean;
  env: string;
  harness: AgentHarnessName;
  settings: AgentRunRow['settings'];
  n_rollouts: number;
  metrics: MetricSummary[];
}

/** A paired contrast of one metric between a harness and the verbatim baseline, with its bootstrap interval. */
export interface AgentContrast extends Partial<Estimate> {
  model: string;
  env: string;
  harness: AgentHarnessName;
  baseline_run: string;
  run_id: string;
  metric: string;
  n_paired: number;
  reason?: string;
}

/**
 * The analysis of a store's agent runs: per run and harness, each metric's mean with a cluster-bootstrap interval over tasks, and the
 * paired contrasts between harnesses.
 */
export interface AgentAnalysis {
  schema: typeof AGENT_ANALYSIS_SCHEMA;
  bootstrap: { resamples: number; seed: number; prng: string; cluster: 'task_id' };
  metric_doc: Record<string, string>;
  runs: AgentRunAnalysis[];
  contrasts: AgentContrast[];
  simulated_models: string[];
}

function metricValue(r: RolloutRecord, metric: string): number {
  const v = (r as unknown as Record<string, unknown>)[metric];
  if (typeof v === 'boolean') return v ? 1 : 0;
  return typeof v === 'number' && Number.isFinite(v) ? v : NaN;
}

function strict<T extends Partial<Estimate>>(s: T): T {
  const o = { ...s } as Record<string, unknown>;
  for (const k of ['mean', 'ci_lo', 'ci_hi', 'dz', 'p']) if (typeof o[k] === 'number' && !Number.isFinite(o[k] as number)) o[k] = null;
  return o as T;
}

export function summariseRollouts(
  rollouts: readonly RolloutRecord[],
  options: { resamples?: number; seed?: number } = {},
): MetricSummary[] {
  const clusters = rollouts.map((r) => r.task_id);
  return Object.keys(AGENT_METRICS).map((metric) => {
    const values = rollouts.map((r) => metricValue(r, metric));
    const est = clusterBootstrap(values, clusters, options);
    if (est) return strict({ metric, ...est });
    const n = values.filter(Number.isFinite).length;
    return {
      metric,
      n,
      reason:
        n === 0
          ? metric.endsWith('repeat_rate')
            ? 'no rollout has a failed action'
            : 'no value recorded (the backend does not report it)'
          : `only ${n} rollout(s) with a value (at least 3 needed)`,
    };
  });
}

/** Paired contrasts of `runs` against the baseline run on common tasks. */
export function pairedContrasts(
  baseline: { run_id: string; rollouts: readonly RolloutRecord[] },
  other: { run_id: string; model: string; env: string; harness: AgentHarnessName; rollouts: readonly RolloutRecord[] },
  options: { resamples?: number; seed?: number } = {},
): AgentContrast[] {
  const base = new Map(baseline.rollouts.map((r) => [r.task_id, r]));
  const common = other.rollouts.filter((r) => base.has(r.task_id));
  const out: AgentContrast[] = [];
  for (const metric of Object.keys(AGENT_METRICS)) {
    const head = {
      model: other.model,
      env: other.env,
      harness: other.harness,
      baseline_run: baseline.run_id,
      run_id: other.run_id,
      metric,
    };
    if (common.length < 5) {
      out.push({
        ...head,
        n_paired: common.length,
        reason: `only ${common.length} task(s) in common with the verbatim run (at least 5 needed)`,
      });
      continue;
    }
    const d: number[] = [];
    const tasks: string[] = [];
    for (const r of common) {
      const x = metricValue(r, metric) - metricValue(base.get(r.task_id)!, metric);
      if (Number.isFinite(x)) {
        d.push(x);
        tasks.push(r.task_id);
      }
    }
    if (d.length < 5) {
      out.push({ ...head, n_paired: d.length, reason: `only ${d.length} task(s) where both harnesses have a value (at least 5 needed)` });
      continue;
    }
    const est = clusterBootstrap(d, tasks, options)!;
    out.push(strict({ ...head, n_paired: d.length, ...est }));
  }
  return out;
}

const harnessRank = (h: string) => {
  const i = (STUDY_HARNESSES as readonly string[]).indexOf(h);
  return i < 0 ? 99 : i;
};

/**
 * Analyses the agent runs of a store (all, or `runIds`): metric summaries and paired harness contrasts with cluster-bootstrap intervals
 * over tasks (default BOOTSTRAP_RESAMPLES resamples, seed BOOTSTRAP_SEED).
 */
export async function analyzeAgentStore(
  store: AgentStore,
  options: { resamples?: number; seed?: number; runIds?: string[] } = {},
): Promise<AgentAnalysis> {
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const seed = options.seed ?? BOOTSTRAP_SEED;
  const runs = (await store.listRuns()).filter((r) => !options.runIds || options.runIds.includes(r.run_id));
  runs.sort(
    (a, b) =>
      a.model_label.localeCompare(b.model_label) || harnessRank(a.harness) - harnessRank(b.harness) || a.run_id.localeCompare(b.run_id),
  );
  const loaded = await Promise.all(runs.map(async (run) => ({ run, rollouts: await store.rollouts(run.run_id) })));
  const analyses: AgentRunAnalysis[] = loaded.map(({ run, rollouts }) => ({
    run_id: run.run_id,
    model: run.model_label,
    simulated: run.simulated,
    env: run.env,
    harness: run.harness,
    settings: run.settings,
    n_rollouts: rollouts.length,
    metrics: summariseRollouts(rollouts, { resamples, seed }),
  }));
  // Baseline: the verbatim run of the same model, env and settings.
  const groupKey = (r: AgentRunRow) => JSON.stringify([r.model_label, r.env, r.settings]);
  const contrasts: AgentContrast[] = [];
  for (const { run, rollouts } of loaded) {
    if (run.harness === 'verbatim') continue;
    const base = loaded.find((x) => x.run.harness === 'verbatim' && groupKey(x.run) === groupKey(run));
    if (!base) continue;
    contrasts.push(
      ...pairedContrasts(
        { run_id: base.run.run_id, rollouts: base.rollouts },
        { run_id: run.run_id, model: run.model_label, env: run.env, harness: run.harness, rollouts },
        { resamples, seed },
      ),
    );
  }
  return {
    schema: AGENT_ANALYSIS_SCHEMA,
    bootstrap: { resamples, seed, prng: PRNG_NAME, cluster: 'task_id' },
    metric_doc: { ...AGENT_METRICS },
    runs: analyses,
    contrasts,
    simulated_models: [...new Set(analyses.filter((a) => a.simulated).map((a) => a.model))],
  };
}
