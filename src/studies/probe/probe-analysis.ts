// Probe analysis over the run store: item-level measures, cluster-bootstrap summaries per
// (model, env) run, Holm across runs for G, the inclusion rule and the cost facts. Every number
// comes from stored scores; undefined values are null with a reason, never NaN.
import { MEASURE_DOC, MEASURE_ORDER, groupScores, itemMeasures } from './metrics.ts';
import {
  BOOTSTRAP_RESAMPLES,
  BOOTSTRAP_SEED,
  MIN_PUBLISHED_ITEMS,
  clusterBootstrap,
  type Estimate,
} from '../../core/stats/cluster-bootstrap.ts';
import { holmAdjust } from '../../core/stats/holm.ts';
import { PRNG_NAME } from '../../core/stats/prng.ts';
import type { ProbeStore } from './probe-store.ts';
import type { ProbeItem, ScoreRecord } from './probe-types.ts';

const PROBE_ANALYSIS_SCHEMA = 'revloop.probe-analysis/1';

/** One item's measures (null where a needed score is missing). */
export interface ProbeItemRecord {
  run_id: string;
  model: string;
  simulated: boolean;
  item_id: string;
  task_id: string;
  operator: string;
  error_type: string;
  template: string;
  n_prefix_steps: number;
  measures: Record<string, number | null>;
}

/** One probe measure's estimate (mean and 95% cluster-bootstrap interval over tasks), or the reason there is none. */
export interface MeasureSummary extends Partial<Estimate> {
  measure: string;
  /** Present when there is no estimate (fewer than 3 finite values). */
  reason?: string;
}

interface GroupSummary {
  key: string;
  n_items: number;
  measures: MeasureSummary[];
}

/** One probe run's analysis: environment, model (labelled when simulated), items, and the measure summaries. */
export interface ProbeRunAnalysis {
  run_id: string;
  env: string;
  model: string;
  model_spec: string;
  simulated: boolean;
  n_items: number;
  n_scores: number;
  /** G has at least MIN_PUBLISHED_ITEMS items (the reference's inclusion rule). */
  published: boolean;
  measures: MeasureSummary[];
  /** Holm-adjusted p of G across the runs of this analysis that are simulated as this one is or is not (null: no p for this run). */
  p_holm_G: number | null;
  by_error_type: GroupSummary[];
  cost: {
    sessions: number;
    seconds: number | null;
    forward_tokens: number | null;
    naive_tokens: number | null;
    /** 1 − forward/naive tokens over the run's sessions (null when the backend keeps no counters). */
    cache_saving: number | null;
  };
}

/** The analysis of a store's probe runs: per run, every measure with its interval and the Holm-adjusted tests (docs/harness.md §4). */
export interface ProbeAnalysis {
  schema: typeof PROBE_ANALYSIS_SCHEMA;
  bootstrap: { resamples: number; breakdown_resamples: number; seed: number; prng: string; cluster: 'task_id' };
  min_published_items: number;
  measure_doc: Record<string, string>;
  runs: ProbeRunAnalysis[];
  simulated_models: string[];
}

/**
 * Options of `analyzeProbeStore`: bootstrap resamples (default 10,000; breakdowns at most 2,000), seed (default BOOTSTRAP_SEED, the reference's), and the runs.
 */
export interface ProbeAnalysisOptions {
  resamples?: number;
  breakdownResamples?: number;
  seed?: number;
  runIds?: string[];
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Item records of one run (items without any score are left out). */
export function probeItemRecords(
  runId: string,
  model: string,
  simulated: boolean,
  items: readonly ProbeItem[],
  scores: readonly ScoreRecord[],
): ProbeItemRecord[] {
  const grouped = groupScores(scores);
  const out: ProbeItemRecord[] = [];
  for (const it of items) {
    const s = grouped.get(it.item_id);
    if (!s) continue;
    const m = itemMeasures(s);
    const measures: Record<string, number | null> = {};
    for (const k of MEASURE_ORDER) measures[k] = finite(m[k]);
    out.push({
      run_id: runId,
      model,
      simulated,
      item_id: it.item_id,
      task_id: it.task_id,
      operator: it.operator,
      error_type: it.error_type,
      template: it.template,
      n_prefix_steps: it.prefix_actions.length,
      measures,
    });
  }
  return out;
}

function summarise(records: readonly ProbeItemRecord[], measures: readonly string[], resamples: number, seed: number): MeasureSummary[] {
  const clusters = records.map((r) => r.task_id || 'na');
  const out: MeasureSummary[] = [];
  for (const measure of measures) {
    const values = records.map((r) => r.measures[measure] ?? NaN);
    const est = clusterBootstrap(values, clusters, { resamples, seed });
    if (est) out.push({ measure, ...est });
    else {
      const n = values.filter(Number.isFinite).length;
      out.push({
        measure,
        n,
        reason: n === 0 ? 'no item has the scores this measure needs' : `only ${n} item(s) with a value (at least 3 needed)`,
      });
    }
  }
  return out;
}

/** Estimates in strict-JSON form: non-finite dz/p become null. */
function strictSummary(s: MeasureSummary): MeasureSummary {
  const o: MeasureSummary = { ...s };
  for (const k of ['mean', 'ci_lo', 'ci_hi', 'dz', 'p'] as const) {
    if (o[k] !== undefined && !Number.isFinite(o[k] as number)) (o as unknown as Record<string, unknown>)[k] = null;
  }
  return o;
}

/**
 * Analyses the probe runs of a store: the corrective-gain measures with cluster-bootstrap intervals over tasks and Holm-adjusted tests
 * (docs/harness.md §4).
 */
export async function analyzeProbeStore(store: ProbeStore, options: ProbeAnalysisOptions = {}): Promise<ProbeAnalysis> {
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const breakdown = options.breakdownResamples ?? Math.min(2000, resamples);
  const seed = options.seed ?? BOOTSTRAP_SEED;
  const runs = (await store.listRuns()).filter((r) => !options.runIds || options.runIds.includes(r.run_id));
  const analyses: ProbeRunAnalysis[] = [];
  for (const run of runs) {
    const scores = await store.scores(run.run_id);
    const records = probeItemRecords(run.run_id, run.model_label, run.simulated, await store.items(run.run_id), scores);
    const measures = summarise(records, MEASURE_ORDER, resamples, seed);
    const g = measures.find((m) => m.measure === 'G');
    const byError = new Map<string, ProbeItemRecord[]>();
    for (const r of records) byError.set(r.error_type, [...(byError.get(r.error_type) ?? []), r]);
    const sessions = await store.sessions(run.run_id);
    const sum = (k: string): number | null => {
      const vals = sessions.map((s) => (k === 'seconds' ? s.finished?.seconds : s.finished?.counters[k]));
      return vals.length && vals.every((v) => typeof v === 'number') ? (vals as number[]).reduce((a, b) => a + b, 0) : null;
    };
    const fwd = sum('forward_tokens');
    const naive = sum('naive_tokens');
    analyses.push({
      run_id: run.run_id,
      env: run.env,
      model: run.model_label,
      model_spec: run.model_spec,
      simulated: run.simulated,
      n_items: records.length,
      n_scores: scores.length,
      published: (g?.n ?? 0) >= MIN_PUBLISHED_ITEMS && g?.mean !== undefined,
      measures,
      p_holm_G: null,
      by_error_type: [...byError.keys()].sort().map((k) => ({
        key: k,
        n_items: byError.get(k)!.length,
        measures: summarise(byError.get(k)!, ['G', 'copy', 'sem'], breakdown, seed),
      })),
      cost: {
        sessions: sessions.length,
        seconds: sum('seconds'),
        forward_tokens: fwd,
        naive_tokens: naive,
        cache_saving: fwd !== null && naive ? 1 - fwd / naive : null,
      },
    });
  }
  // Holm over the G p-values of every run (computed before the inclusion filter, as the reference).
  // Simulated runs form a family of their own, so a toy run in the same store never moves a real
  // model's adjusted p.
  for (const simulated of [false, true]) {
    const family = analyses.filter((a) => a.simulated === simulated);
    holmAdjust(family.map((a) => a.measures.find((m) => m.measure === 'G')?.p ?? NaN)).forEach((p, i) => (family[i].p_holm_G = finite(p)));
  }
  for (const a of analyses) {
    a.measures = a.measures.map(strictSummary);
    for (const b of a.by_error_type) b.measures = b.measures.map(strictSummary);
  }
  return {
    schema: PROBE_ANALYSIS_SCHEMA,
    bootstrap: { resamples, breakdown_resamples: breakdown, seed, prng: PRNG_NAME, cluster: 'task_id' },
    min_published_items: MIN_PUBLISHED_ITEMS,
    measure_doc: { ...MEASURE_DOC },
    runs: analyses,
    simulated_models: [...new Set(analyses.filter((a) => a.simulated).map((a) => a.model))],
  };
}
