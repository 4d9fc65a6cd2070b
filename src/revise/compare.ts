// compare-policies' analysis (docs/revise.md §5): policies run as separate revision runs on the
// same cases with the same budget, optionally replicated over seeds; a pair is one (seed, case).
// Per policy: success at that budget, with, against the first policy on the pairs both finished,
// exact McNemar tests, Holm's adjustment over the comparisons (docs/protocol.md §4.2, §4.3) and a
// 95% interval on the success difference (Newcombe's hybrid score interval for paired data,
// src/core/stats/paired-difference.ts); generations, tokens and money over every provider attempt
// (failed ones included); how many trajectories hit a recurrence or a persistent cycle (the rules
// of src/remedy/recurrence.ts). Every key of the JSON form is snake_case.
import { mcnemarExact } from '../core/stats/binomial.ts';
import { holmAdjust } from '../core/stats/holm.ts';
import { newcombePairedDifference } from '../core/stats/paired-difference.ts';
import { clusterBootstrap } from '../core/stats/cluster-bootstrap.ts';
import { markedName, SIMULATED } from '../core/simulated.ts';
import { cycleAt, recurrenceOf } from '../remedy/recurrence.ts';
import { roundShape } from '../engine/round-policy.ts';
import { isTrajectoryPlan } from '../store/plan.ts';
import type { RunStore } from '../store/store.ts';
import type { TrajectoryRecord } from '../store/types.ts';
import { UserError } from '../core/errors.ts';
import type { Pricing } from './types.ts';

/** The interval method reported with every success difference. */
export const DIFFERENCE_INTERVAL = Object.freeze({ method: 'newcombe-hybrid-score', confidence: 0.95 });

/** A policy against the reference on the pairs both finished. */
export interface PairedComparison {
  /** Pairs (seed, case) both finished. */
  n: number;
  /** Pairs only the reference solved / only this policy solved. */
  b: number;
  c: number;
  /** Exact McNemar p and its Holm adjustment over the comparisons. */
  p: number | null;
  p_holm: number | null;
  /** Success rate of this policy minus the reference's on these pairs, with its 95% interval. */
  difference: number | null;
  difference_low: number | null;
  difference_high: number | null;
  /**
   * With seeds: a 95% percentile interval from a bootstrap that resamples cases, all seeds of a case
   * together (the pairs of one case share its task, so they are not independent; Newcombe's interval
   * and McNemar's test treat them as if they were). Null without seeds.
   */
  difference_by_case_low: number | null;
  difference_by_case_high: number | null;
}

export interface PolicyRow {
  policy: string;
  /** One run per seed (one run without seeds). */
  run_ids: string[];
  protocol: string;
  /** Trajectories that finished (protocol-incomplete ones are excluded and counted apart). */
  n: number;
  incomplete: number;
  successes: number;
  success_rate: number | null;
  paired: PairedComparison | null;
  generations: number;
  provider_attempts: number;
  failed_attempts: number;
  prompt_tokens: number;
  completion_tokens: number;
  usd: number | null;
  /** Trajectories with a repeated draft / with a persistent cycle; trajectories stopped by a cycle. */
  recurrences: number;
  cycles: number;
  stopped_by_cycle: number;
}

export interface PolicyComparison {
  model: string;
  simulated: boolean;
  budget: number;
  /** Cases per replicate. */
  cases: number;
  /** The replicates' seeds; null for one unseeded replicate. */
  seeds: number[] | null;
  reference: string;
  interval: { method: string; confidence: number };
  /** Set when the rows are truncations replayed on this stored run's trajectories (no model was called). */
  replay_of: string | null;
  rows: PolicyRow[];
}

/** One policy's runs: one per seed (seed null without replicates). */
export interface PolicyRuns {
  policy: string;
  runs: ReadonlyArray<{ seed: number | null; runId: string }>;
}

/** The outcome of each finished pair, keyed `seed:caseIndex`. */
export type PairOutcomes = Map<string, boolean>;

export const pairKey = (seed: number | null, caseIndex: number) => `${seed ?? ''}:${caseIndex}`;

/** Whether a trajectory holds a repeated draft and a persistent cycle (the lab's exact identity). */
export function recurrenceFlags(t: TrajectoryRecord): { recurrence: boolean; cycle: boolean } {
  const shapes = t.rounds.map((r) => roundShape({ draft: r.text, state: r.state, energy: r.energy }));
  const keys = shapes.map((s) => s.key);
  return {
    recurrence: keys.some((_, i) => recurrenceOf(keys, i) !== null),
    cycle: shapes.some((_, i) => cycleAt(shapes, i) !== null),
  };
}

/**
 * Fills each row's `paired` against the first row: exact McNemar on the discordant pairs, Holm over
 * the comparisons, Newcombe's interval on the difference.
 */
export function pairAgainstFirst(rows: PolicyRow[], outcomes: readonly PairOutcomes[], byCase = false): void {
  const ref = outcomes[0];
  const ps: number[] = [];
  for (let k = 1; k < rows.length; k++) {
    let both = 0;
    let b = 0;
    let c = 0;
    let neither = 0;
    const diffs: number[] = [];
    const cases: string[] = [];
    for (const [key, first] of ref) {
      const other = outcomes[k].get(key);
      if (other === undefined) continue;
      if (first && other) both++;
      else if (first) b++;
      else if (other) c++;
      else neither++;
      diffs.push(Number(other) - Number(first));
      cases.push(key.slice(key.indexOf(':') + 1));
    }
    const clustered = byCase ? clusterBootstrap(diffs, cases) : null;
    const n = both + b + c + neither;
    const p = n ? mcnemarExact(b, c) : NaN;
    ps.push(p);
    const d = newcombePairedDifference({ both, firstOnly: b, secondOnly: c, neither }, DIFFERENCE_INTERVAL.confidence);
    rows[k].paired = {
      n,
      b,
      c,
      p: Number.isFinite(p) ? p : null,
      p_holm: null,
      difference: d?.estimate ?? null,
      difference_low: d?.lower ?? null,
      difference_high: d?.upper ?? null,
      difference_by_case_low: clustered?.ci_lo ?? null,
      difference_by_case_high: clustered?.ci_hi ?? null,
    };
  }
  const adjusted = holmAdjust(ps);
  adjusted.forEach((p, k) => (rows[k + 1].paired!.p_holm = Number.isFinite(p) ? p : null));
}

/** A policy's row before anything is counted. */
export function emptyRow(policy: string, runIds: string[], protocol: string): PolicyRow {
  return {
    policy,
    run_ids: runIds,
    protocol,
    n: 0,
    incomplete: 0,
    successes: 0,
    success_rate: null,
    paired: null,
    generations: 0,
    provider_attempts: 0,
    failed_attempts: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    usd: null,
    recurrences: 0,
    cycles: 0,
    stopped_by_cycle: 0,
  };
}

/** Reads the runs back from the store and compares them (the first policy is the reference). */
export async function comparePolicyRuns(
  store: RunStore,
  entries: readonly PolicyRuns[],
  options: { pricing?: Pricing; model?: string } = {},
): Promise<PolicyComparison> {
  if (!entries.length) throw new UserError('compare-policies: no policies to compare');
  const rows: PolicyRow[] = [];
  const outcomes: PairOutcomes[] = [];
  let model = '';
  let simulated = false;
  let budget = 0;
  let cases = 0;
  const seeds = entries[0].runs.some((r) => r.seed !== null) ? entries[0].runs.map((r) => r.seed as number) : null;
  for (const { policy, runs } of entries) {
    const row = emptyRow(
      policy,
      runs.map((r) => r.runId),
      '',
    );
    const done: PairOutcomes = new Map();
    for (const { seed, runId } of runs) {
      const planned = await store.getPlanned(runId);
      if (!planned || !isTrajectoryPlan(planned.plan))
        throw new UserError(`compare-policies: no revision run '${runId}' in ${store.location}`);
      model = planned.plan.controller.label;
      simulated = planned.plan.controller.simulated;
      budget = planned.plan.protocol.budget;
      cases = planned.cases.length;
      row.protocol = planned.plan.protocol.name;
      const events = await store.readEvents(runId, { types: ['attempt_finished', 'trajectory_completed'] });
      for (const e of events) {
        if (e.type === 'attempt_finished') {
          row.provider_attempts++;
          if (!e.payload.record.ok) row.failed_attempts++;
          row.prompt_tokens += e.payload.record.usage?.promptTokens ?? 0;
          row.completion_tokens += e.payload.record.usage?.completionTokens ?? 0;
        } else if (e.type === 'trajectory_completed' && e.payload.stop === 'cycle') row.stopped_by_cycle++;
      }
      for (const t of await store.loadTrajectories([runId])) {
        const flags = recurrenceFlags(t);
        if (flags.recurrence) row.recurrences++;
        if (flags.cycle) row.cycles++;
        row.generations += t.rounds.length;
        if (t.status === 'incomplete') row.incomplete++;
        if (t.status === 'complete') done.set(pairKey(seed, t.caseIndex), t.rounds.at(-1)?.joint === true);
      }
    }
    outcomes.push(done);
    row.n = done.size;
    row.successes = [...done.values()].filter(Boolean).length;
    row.success_rate = done.size ? row.successes / done.size : null;
    const pricing = options.pricing;
    row.usd = pricing ? (row.prompt_tokens * pricing.inputPerMTok + row.completion_tokens * pricing.outputPerMTok) / 1e6 : null;
    rows.push(row);
  }
  pairAgainstFirst(rows, outcomes, seeds !== null);
  return {
    model: options.model ?? model,
    simulated,
    budget,
    cases,
    seeds,
    reference: rows[0].policy,
    interval: { ...DIFFERENCE_INTERVAL },
    replay_of: null,
    rows,
  };
}

// ---- text -------------------------------------------------------------------------------------

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);
const pv = (x: number | null) => (x === null ? '—' : x < 1e-4 ? x.toExponential(1) : x.toFixed(4));
const points = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(100 * x).toFixed(1)}`;
/** Success difference in percentage points with its interval: `−5.0 [−8.0, −3.0]`. */
function diffText(p: PairedComparison | null): string {
  if (!p) return 'reference';
  if (p.difference === null) return '—';
  return `${points(p.difference)} [${points(p.difference_low!)}, ${points(p.difference_high!)}]`;
}
/** The case-clustered bootstrap interval: `[−8.0, −3.0]`. */
function byCaseText(p: PairedComparison | null): string {
  if (!p) return 'reference';
  if (p.difference_by_case_low === null) return '—';
  return `[${points(p.difference_by_case_low)}, ${points(p.difference_by_case_high!)}]`;
}
const compact = (x: number) =>
  x >= 1e7 ? `${(x / 1e6).toFixed(0)}M` : x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : x >= 1e4 ? `${(x / 1e3).toFixed(0)}k` : String(x);

/** Seeds as ranges: 1–10, 12. */
export function seedsText(seeds: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < seeds.length;) {
    let j = i;
    while (j + 1 < seeds.length && seeds[j + 1] === seeds[j] + 1) j++;
    parts.push(j > i + 1 ? `${seeds[i]}–${seeds[j]}` : j === i + 1 ? `${seeds[i]}, ${seeds[j]}` : String(seeds[i]));
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * Lays out a table within `width` columns (null: no limit). When it would be wider, the first
 * column (the name) is narrowed to what the other columns leave, and a name longer than that goes
 * on a line of its own above its row.
 */
export function layoutTable(head: string[], body: string[][], width: number | null, right: ReadonlySet<number> = new Set()): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const rest = widths.slice(1).reduce((s, w) => s + w + 2, 0);
  if (width !== null && widths[0] + rest > width) widths[0] = Math.max(head[0].length, width - rest);
  const cell = (x: string, i: number) => (right.has(i) ? x.padStart(widths[i]) : x.padEnd(widths[i]));
  const line = (cells: string[]) => cells.map(cell).join('  ').trimEnd();
  const row = (cells: string[]) => (cells[0].length <= widths[0] ? line(cells) : `${cells[0]}\n${line(['', ...cells.slice(1)])}`);
  return [line(head), ...body.map(row)].join('\n');
}

/** Wraps prose at `width` columns (words never split). */
export function wrapText(text: string, width: number): string {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(' ')) {
      if (line && line.length + 1 + word.length > width) {
        out.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(line);
  }
  return out.join('\n');
}

/**
 * The comparison as terminal text (SIMULATED said in the title and on the model). Within `width`
 * columns (default 80) unless `wide`: success and cost as two tables, long policy names on their own
 * lines; `wide` puts every column in one table.
 */
export function renderComparison(c: PolicyComparison, options: { wide?: boolean; width?: number } = {}): string {
  const width = Math.max(40, options.width ?? 80);
  const pairs = c.seeds ? `${c.cases} cases × ${c.seeds.length} seeds (${seedsText(c.seeds)})` : `${c.cases} cases`;
  const comparisons = Math.max(0, c.rows.length - 1);
  const what = c.replay_of
    ? `policies replayed on the recorded trajectories of run ${c.replay_of} (${c.cases} cases, budget up to ${c.budget}; no model called)`
    : `policies compared on ${pairs} at budget ${c.budget}`;
  const title =
    `${c.simulated ? `[${SIMULATED}] ` : ''}${what} · model ${markedName(c.model, c.simulated)}${c.simulated ? '' : c.replay_of ? ' (recorded outputs)' : ''}\n` +
    `success = joint success at the budget; Δ = success of the policy − ${c.reference}, in points, with a ${Math.round(100 * c.interval.confidence)}% ` +
    `Newcombe interval over the ${c.seeds ? '(seed, case) pairs' : 'cases'}; b/c = ${c.seeds ? 'pairs' : 'cases'} only ${c.reference} / only the policy solved; ` +
    `p = exact McNemar, Holm over ${comparisons} comparison${comparisons === 1 ? '' : 's'}` +
    (c.seeds
      ? options.wide
        ? '; by case = a 95% bootstrap interval resampling cases with all their seeds (the pairs of a case are not independent)'
        : '; the pairs of a case are not independent: --wide and --json add an interval from a bootstrap over cases'
      : '');
  const note = c.simulated
    ? `${SIMULATED}: these figures describe simulated controllers, a check of the mechanism, not evidence about language models.`
    : '';
  const success = (r: PolicyRow) => `${r.successes}/${r.n} ${pct(r.success_rate)}${r.incomplete ? ` (+${r.incomplete} incomplete)` : ''}`;
  if (options.wide) {
    const head = [
      'policy',
      'success',
      'Δ points [95% CI]',
      ...(c.seeds ? ['by case [95% CI]'] : []),
      'b/c',
      'McNemar p',
      'Holm p',
      'generations',
      'attempts (failed)',
      'tokens in/out',
      'USD',
      'recurrences',
      'cycles',
      'cycle stops',
    ];
    const body = c.rows.map((r) => [
      r.policy,
      success(r),
      diffText(r.paired),
      ...(c.seeds ? [byCaseText(r.paired)] : []),
      r.paired ? `${r.paired.b}/${r.paired.c}` : '—',
      r.paired ? pv(r.paired.p) : '—',
      r.paired ? pv(r.paired.p_holm) : '—',
      String(r.generations),
      `${r.provider_attempts} (${r.failed_attempts})`,
      `${r.prompt_tokens}/${r.completion_tokens}`,
      r.usd === null ? '—' : r.usd.toFixed(4),
      String(r.recurrences),
      String(r.cycles),
      String(r.stopped_by_cycle),
    ]);
    return [title, layoutTable(head, body, null), note].filter(Boolean).join('\n') + '\n';
  }
  const first = layoutTable(
    ['policy', 'success', 'Δ points [95% CI]', 'b/c', 'Holm p'],
    c.rows.map((r) => [
      r.policy,
      success(r),
      diffText(r.paired),
      r.paired ? `${r.paired.b}/${r.paired.c}` : '',
      r.paired ? pv(r.paired.p_holm) : '',
    ]),
    width,
  );
  const usd = c.rows.some((r) => r.usd !== null);
  // Nothing recorded about provider calls (an imported log): unknown, not zero.
  const calls = (r: PolicyRow, x: string) => (r.provider_attempts === 0 && c.replay_of ? '—' : x);
  const second = layoutTable(
    ['policy', 'drafts', 'failed', 'tok in', 'tok out', ...(usd ? ['USD'] : []), 'recur', 'cycles', 'stops'],
    c.rows.map((r) => [
      r.policy,
      String(r.generations),
      calls(r, String(r.failed_attempts)),
      calls(r, compact(r.prompt_tokens)),
      calls(r, compact(r.completion_tokens)),
      ...(usd ? [r.usd === null ? '—' : r.usd.toFixed(2)] : []),
      String(r.recurrences),
      String(r.cycles),
      String(r.stopped_by_cycle),
    ]),
    width,
    new Set([1, 2, 3, 4, 5, 6, 7, 8]),
  );
  const legend =
    'drafts = generations over all trajectories; failed = failed provider attempts; tok = prompt/completion tokens; ' +
    'recur / cycles = trajectories with a repeated draft / a persistent cycle; stops = trajectories ended by a cycle';
  const out = [wrapText(title, width), first, '', second, wrapText(legend, width)];
  if (note) out.push(wrapText(note, width));
  return out.join('\n') + '\n';
}
