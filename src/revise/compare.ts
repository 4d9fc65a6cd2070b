// compare-policies' analysis (docs/revise.md §5): policies run as separate revision runs on the
// same cases with the same budget; per policy, success at that budget with exact paired McNemar
// tests against the first policy and Holm's adjustment over the comparisons (docs/protocol.md §4.2,
// §4.3), generations, tokens and money over every provider attempt (failed ones included), and
// how many trajectories hit a recurrence or a persistent cycle (the rules of src/remedy/recurrence.ts).
import { mcnemarExact } from '../core/stats/binomial.ts';
import { holmAdjust } from '../core/stats/holm.ts';
import { markedName, SIMULATED } from '../core/simulated.ts';
import { cycleAt, recurrenceOf } from '../remedy/recurrence.ts';
import { roundShape } from '../engine/harness.ts';
import { isTrajectoryPlan } from '../store/plan.ts';
import type { RunStore } from '../store/store.ts';
import { UserError } from '../core/errors.ts';
import type { Pricing } from './types.ts';

export interface PolicyRow {
  policy: string;
  runId: string;
  protocol: string;
  /** Trajectories that finished (protocol-incomplete ones are excluded and counted apart). */
  n: number;
  incomplete: number;
  successes: number;
  success_rate: number | null;
  /** Against the first policy, on cases both finished: b = first only, c = this one only. */
  paired: { n: number; b: number; c: number; p: number | null; p_holm: number | null } | null;
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
  cases: number;
  reference: string;
  rows: PolicyRow[];
}

/** Reads the runs back from the store and compares them (the first is the reference). */
export async function comparePolicyRuns(
  store: RunStore,
  entries: ReadonlyArray<{ policy: string; runId: string }>,
  pricing?: Pricing,
): Promise<PolicyComparison> {
  if (!entries.length) throw new UserError('compare-policies: no policies to compare');
  const rows: PolicyRow[] = [];
  const outcomes: Array<Map<number, boolean>> = [];
  let model = '';
  let simulated = false;
  let budget = 0;
  let cases = 0;
  for (const { policy, runId } of entries) {
    const planned = await store.getPlanned(runId);
    if (!planned || !isTrajectoryPlan(planned.plan))
      throw new UserError(`compare-policies: no revision run '${runId}' in ${store.location}`);
    model = planned.plan.controller.label;
    simulated = planned.plan.controller.simulated;
    budget = planned.plan.protocol.budget;
    cases = planned.cases.length;
    const [t] = [await store.loadTrajectories([runId])];
    const events = await store.readEvents(runId, { types: ['attempt_finished', 'trajectory_completed'] });
    let prompt = 0;
    let completion = 0;
    let attempts = 0;
    let failed = 0;
    let stoppedByCycle = 0;
    for (const e of events) {
      if (e.type === 'attempt_finished') {
        attempts++;
        if (!e.payload.record.ok) failed++;
        prompt += e.payload.record.usage?.promptTokens ?? 0;
        completion += e.payload.record.usage?.completionTokens ?? 0;
      } else if (e.type === 'trajectory_completed' && e.payload.stop === 'cycle') stoppedByCycle++;
    }
    const done = new Map<number, boolean>();
    let recurrences = 0;
    let cycles = 0;
    for (const tr of t) {
      const shapes = tr.rounds.map((r) => roundShape({ draft: r.text, state: r.state, energy: r.energy }));
      const keys = shapes.map((s) => s.key);
      if (keys.some((_, i) => recurrenceOf(keys, i) !== null)) recurrences++;
      if (shapes.some((_, i) => cycleAt(shapes, i) !== null)) cycles++;
      if (tr.status === 'complete') done.set(tr.caseIndex, tr.rounds.at(-1)?.joint === true);
    }
    outcomes.push(done);
    const successes = [...done.values()].filter(Boolean).length;
    rows.push({
      policy,
      runId,
      protocol: planned.plan.protocol.name,
      n: done.size,
      incomplete: t.filter((x) => x.status === 'incomplete').length,
      successes,
      success_rate: done.size ? successes / done.size : null,
      paired: null,
      generations: t.reduce((n, x) => n + x.rounds.length, 0),
      provider_attempts: attempts,
      failed_attempts: failed,
      prompt_tokens: prompt,
      completion_tokens: completion,
      usd: pricing ? (prompt * pricing.inputPerMTok + completion * pricing.outputPerMTok) / 1e6 : null,
      recurrences,
      cycles,
      stopped_by_cycle: stoppedByCycle,
    });
  }
  const ref = outcomes[0];
  const ps: number[] = [];
  for (let k = 1; k < rows.length; k++) {
    let b = 0;
    let c = 0;
    let n = 0;
    for (const [i, first] of ref) {
      const other = outcomes[k].get(i);
      if (other === undefined) continue;
      n++;
      if (first && !other) b++;
      if (!first && other) c++;
    }
    const p = n ? mcnemarExact(b, c) : NaN;
    ps.push(p);
    rows[k].paired = { n, b, c, p: Number.isFinite(p) ? p : null, p_holm: null };
  }
  const adjusted = holmAdjust(ps);
  adjusted.forEach((p, k) => (rows[k + 1].paired!.p_holm = Number.isFinite(p) ? p : null));
  return { model, simulated, budget, cases, reference: rows[0].policy, rows };
}

const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);
const pv = (x: number | null) => (x === null ? '—' : x < 1e-4 ? x.toExponential(1) : x.toFixed(4));

/** The comparison's parts as terminal text: title lines, the table's head and rows, the closing note. */
export interface ComparisonText {
  title: string[];
  head: string[];
  rows: string[][];
  note: string | null;
}

/** The comparison laid out for a terminal (SIMULATED said in the title and on the model); the CLI fits it to the width. */
export function comparisonText(c: PolicyComparison): ComparisonText {
  const head = [
    'policy',
    'success',
    'b/c vs reference',
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
  const rows = c.rows.map((r) => [
    r.policy,
    `${r.successes}/${r.n} ${pct(r.success_rate)}${r.incomplete ? ` (+${r.incomplete} incomplete)` : ''}`,
    r.paired ? `${r.paired.b}/${r.paired.c} of ${r.paired.n}` : 'reference',
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
  return {
    title: [
      `${c.simulated ? `[${SIMULATED}] ` : ''}policies compared on ${c.cases} cases at budget ${c.budget} · model ${markedName(c.model, c.simulated)}`,
      `success = joint success at the budget; b/c = cases only the reference / only this policy solved; exact McNemar, Holm over ${Math.max(0, c.rows.length - 1)} comparisons`,
    ],
    head,
    rows,
    note: c.simulated
      ? `${SIMULATED}: these figures describe simulated controllers, a check of the mechanism, not evidence about language models.`
      : null,
  };
}

/** The comparison as plain terminal text, as wide as its contents (the CLI fits it to the terminal instead). */
export function renderComparison(c: PolicyComparison): string {
  const { title, head, rows, note } = comparisonText(c);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((x, i) => x.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return title.map((t) => t + '\n').join('') + [line(head), ...rows.map(line)].join('\n') + '\n' + (note ? note + '\n' : '');
}
