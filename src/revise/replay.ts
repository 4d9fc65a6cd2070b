// Truncating policies replayed on recorded trajectories (docs/revise.md §5): a policy that differs
// from a run's own only by stopping earlier — a smaller budget, `onCycle: 'stop'`, a stop at the
// first repeated draft — sends exactly the same requests as the run up to the point where it
// stops, so its outcome on a recorded trajectory is the trajectory cut there, no model needed. Each
// rule is applied after every verified draft, in the engine's order: success ends the loop first,
// then the budget, then the cycle or recurrence rule. The result is a policy comparison like
// compare-policies' (the recorded run is the reference), paired by case: generations and tokens
// saved against successes lost. This holds for a deterministic model or for the sample recorded;
// it is evidence about the model that made the recording (a real one for imported logs).
import { namingOption, UsageError, UserError } from '../core/errors.ts';
import { cycleAt, recurrenceOf } from '../remedy/recurrence.ts';
import { roundShape } from '../engine/round-policy.ts';
import { isTrajectoryPlan } from '../store/plan.ts';
import type { RunStore } from '../store/store.ts';
import type { TrajectoryRecord } from '../store/types.ts';
import {
  DIFFERENCE_INTERVAL,
  emptyRow,
  pairAgainstFirst,
  recurrenceFlags,
  type PairOutcomes,
  type PolicyComparison,
  type PolicyRow,
} from './compare.ts';
import type { Pricing } from './types.ts';

/** A truncation of the recorded policy: any of a budget, a stop at a persistent cycle, a stop at the first recurrence. */
export interface Truncation {
  /** Revisions after the first draft (T). */
  budget?: number;
  /** Stop at a persistent cycle (`onCycle: 'stop'`, the rules of src/remedy/recurrence.ts). */
  cycle?: boolean;
  /** Stop at the first draft equal to an earlier one (the lab's exact identity). */
  recurrence?: boolean;
}

/** Parses `budget=T`, `on-cycle=stop`, `stop=recurrence`, joined with `+` (e.g. `on-cycle=stop+budget=4`); errors name the option `truncations`. */
export function parseTruncation(entry: string, option = 'truncations'): Truncation {
  const t: Truncation = {};
  for (const part of entry.split('+')) {
    const m = /^budget=(\d+)$/.exec(part);
    if (m && t.budget === undefined) t.budget = Number(m[1]);
    else if (part === 'on-cycle=stop' && !t.cycle) t.cycle = true;
    else if (part === 'stop=recurrence' && !t.recurrence) t.recurrence = true;
    else
      throw namingOption(
        option,
        (n) =>
          new UsageError(
            `${n}: '${entry}': use budget=T, on-cycle=stop or stop=recurrence (each once), joined with '+', e.g. on-cycle=stop+budget=4`,
            { option: n },
          ),
      );
  }
  return t;
}

/** How many rounds of a recorded trajectory the truncation keeps. */
export function keptRounds(t: TrajectoryRecord, rule: Truncation): number {
  const shapes = t.rounds.map((r) => roundShape({ draft: r.text, state: r.state, energy: r.energy }));
  const keys = shapes.map((s) => s.key);
  for (let i = 0; i < t.rounds.length; i++) {
    if (t.rounds[i].joint) return i + 1;
    if (rule.budget !== undefined && t.rounds[i].revision >= rule.budget) return i + 1;
    if (rule.cycle && cycleAt(shapes, i) !== null) return i + 1;
    if (rule.recurrence && recurrenceOf(keys, i) !== null) return i + 1;
  }
  return t.rounds.length;
}

/** The recorded run against each truncation of it, on its complete trajectories. */
export async function replayTruncations(
  store: RunStore,
  runId: string,
  entries: readonly string[],
  options: { pricing?: Pricing } = {},
): Promise<PolicyComparison> {
  const planned = await store.getPlanned(runId);
  if (!planned || !isTrajectoryPlan(planned.plan))
    throw namingOption('runId', (n) => new UserError(`${n}: no revision run '${runId}' in ${store.location}`));
  const rules = entries.map((e) => ({ entry: e, rule: parseTruncation(e) }));
  const budget = planned.plan.protocol.budget;
  for (const { entry, rule } of rules)
    if (rule.budget !== undefined && rule.budget >= budget)
      throw namingOption(
        'truncations',
        (n) =>
          new UsageError(
            `${n}: '${entry}' is not a truncation: the run's budget is ${budget}, so only budget=0…${budget - 1} stop earlier`,
            { option: n },
          ),
      );
  const seen = new Set<string>();
  for (const { entry } of rules) {
    if (seen.has(entry)) throw namingOption('truncations', (n) => new UsageError(`${n}: '${entry}' is listed twice`, { option: n }));
    seen.add(entry);
  }
  const trajectories = await store.loadTrajectories([runId]);
  // Usage per (case, revision), failed attempts included; imported logs have none.
  const usage = new Map<string, { attempts: number; failed: number; prompt: number; completion: number }>();
  for (const e of await store.readEvents(runId, { types: ['attempt_finished'] })) {
    if (e.type !== 'attempt_finished') continue;
    const key = `${e.caseIndex}:${e.revision}`;
    const u = usage.get(key) ?? { attempts: 0, failed: 0, prompt: 0, completion: 0 };
    u.attempts++;
    if (!e.payload.record.ok) u.failed++;
    u.prompt += e.payload.record.usage?.promptTokens ?? 0;
    u.completion += e.payload.record.usage?.completionTokens ?? 0;
    usage.set(key, u);
  }
  const recorded = { entry: `as recorded (${planned.plan.protocol.name})`, rule: null as Truncation | null };
  const rows: PolicyRow[] = [];
  const outcomes: PairOutcomes[] = [];
  for (const { entry, rule } of [recorded, ...rules]) {
    const row = emptyRow(entry, [runId], planned.plan.protocol.name);
    const done: PairOutcomes = new Map();
    for (const t of trajectories) {
      if (t.status !== 'complete') {
        if (t.status === 'incomplete') row.incomplete++;
        continue;
      }
      const kept = rule ? keptRounds(t, rule) : t.rounds.length;
      const cut: TrajectoryRecord = { ...t, rounds: t.rounds.slice(0, kept) };
      const flags = recurrenceFlags(cut);
      if (flags.recurrence) row.recurrences++;
      if (flags.cycle) row.cycles++;
      const last = cut.rounds[kept - 1];
      // The engine's order: success, then the budget, then the cycle.
      if (rule?.cycle && !last.joint && last.revision < (rule.budget ?? t.budget) && cycleAtEnd(cut)) row.stopped_by_cycle++;
      row.generations += kept;
      for (let k = 0; k < kept; k++) {
        const u = usage.get(`${t.caseIndex}:${t.rounds[k].revision}`);
        if (!u) continue;
        row.provider_attempts += u.attempts;
        row.failed_attempts += u.failed;
        row.prompt_tokens += u.prompt;
        row.completion_tokens += u.completion;
      }
      done.set(`:${t.caseIndex}`, last.joint);
    }
    row.n = done.size;
    row.successes = [...done.values()].filter(Boolean).length;
    row.success_rate = done.size ? row.successes / done.size : null;
    const p = options.pricing;
    row.usd = p ? (row.prompt_tokens * p.inputPerMTok + row.completion_tokens * p.outputPerMTok) / 1e6 : null;
    rows.push(row);
    outcomes.push(done);
  }
  pairAgainstFirst(rows, outcomes);
  return {
    model: planned.plan.controller.label,
    simulated: planned.plan.controller.simulated,
    budget: planned.plan.protocol.budget,
    cases: planned.cases.length,
    seeds: null,
    reference: recorded.entry,
    interval: { ...DIFFERENCE_INTERVAL },
    replay_of: runId,
    rows,
  };
}

function cycleAtEnd(t: TrajectoryRecord): boolean {
  const shapes = t.rounds.map((r) => roundShape({ draft: r.text, state: r.state, energy: r.energy }));
  return cycleAt(shapes, shapes.length - 1) !== null;
}
