// Matched-state history interventions (docs/protocol.md §3.10): per-arm outcomes at each state, arm
// summaries with success curves by absolute revision, and each arm against the reference arm
// (`full`, or the first arm when full was not run), paired by state: exact McNemar (§4.2) with
// Holm over the run's contrasts (§4.3) and a source-stratified paired bootstrap interval (§4.1).
import { mcnemarExact } from '../../../core/stats/binomial.ts';
import { holmAdjust } from '../../../core/stats/holm.ts';
import type { TrajectoryRecord } from '../../../store/types.ts';
import {
  cumulativeSuccess,
  meanOrNull,
  pairedDifferenceInterval,
  rateOf,
  specOf,
  successRevision,
  wordErrorOf,
  type ExperimentRunData,
} from './common.ts';
import type { HistoryAnalysis, HistoryArmSummary, HistoryContrast, HistoryOutcome } from './experiment-analysis-types.ts';

const sign = (x: number) => (x > 0 ? 1 : x < 0 ? -1 : 0);

/** The §3.10 outputs of one arm's trajectory. */
export function historyOutcome(t: TrajectoryRecord, stateId: string, arm: string, trigger: number): HistoryOutcome {
  const after = t.rounds.filter((r) => r.revision > trigger);
  const seen = new Set(t.rounds.filter((r) => r.revision <= trigger).map((r) => r.text));
  const escapes: boolean[] = [];
  for (const r of after) {
    escapes.push(!seen.has(r.text));
    seen.add(r.text);
  }
  const exact = t.family === 'exact-length';
  const trig = t.rounds[trigger];
  const first = after[0];
  let direction: boolean | null = null;
  let contraction: boolean | null = null;
  if (first && trig) {
    if (exact) {
      const e0 = wordErrorOf(t, trigger)!;
      const e1 = wordErrorOf(t, first.revision)!;
      const required = -e0;
      const realized = e1 - e0;
      direction = required === 0 ? null : sign(realized) === sign(required);
      contraction = Math.abs(e1) < Math.abs(e0);
    } else {
      // Recorded floats, strict (docs/protocol.md §3.4).
      contraction = first.energy < trig.energy;
    }
  }
  const last = t.rounds[t.rounds.length - 1];
  const finalError = last ? wordErrorOf(t, last.revision) : null;
  const missing = last?.state.missing;
  return {
    state_id: stateId,
    arm,
    family: t.family,
    source: t.source,
    trigger_revision: trigger,
    first_step_escape: first ? escapes[0] : null,
    first_step_direction_correct: direction,
    first_step_contraction: contraction,
    later_recurrence: after.length >= 2 ? escapes.slice(1).some((e) => !e) : null,
    final_joint: !!last?.joint,
    final_exact: exact && last ? last.state.exact_length === true : null,
    final_anchor_retention: exact && Array.isArray(missing) ? missing.length === 0 : null,
    final_error: finalError,
    final_energy: last?.energy ?? 0,
    post_trigger_generations: after.length,
    success_revision: successRevision(t, trigger + 1),
  };
}

export function analyzeHistory(run: ExperimentRunData, o: { bootstrap: number; seed: number }): HistoryAnalysis {
  const arms = (run.experiment.settings.arms as string[] | undefined) ?? [...new Set(run.experiment.trajectories.map((t) => t.arm))];
  const notes: string[] = [];
  const outcomes: HistoryOutcome[] = [];
  let skipped = 0;
  for (const t of run.trajectories) {
    const spec = specOf(run, t);
    if (t.status !== 'complete') {
      skipped++;
      continue;
    }
    outcomes.push(historyOutcome(t, spec.state_id, spec.arm, spec.trigger_revision));
  }
  if (skipped) notes.push(`${skipped} trajectories are not complete (pending or protocol-incomplete) and are left out`);
  const budget = run.planned.plan.protocol.budget;
  const minTrigger = Math.min(...run.experiment.trajectories.map((t) => t.trigger_revision));
  const caps = Array.from({ length: Math.max(0, budget - minTrigger) }, (_, i) => minTrigger + 1 + i);
  const states = new Set(run.experiment.trajectories.map((t) => t.state_id)).size;

  const summaries: HistoryArmSummary[] = arms.map((arm) => {
    const rows = outcomes.filter((r) => r.arm === arm);
    return {
      arm,
      n: rows.length,
      first_step_escape: rateOf(rows.map((r) => r.first_step_escape)),
      first_step_direction_correct: rateOf(rows.map((r) => r.first_step_direction_correct)),
      first_step_contraction: rateOf(rows.map((r) => r.first_step_contraction)),
      later_recurrence: rateOf(rows.map((r) => r.later_recurrence)),
      final_joint: rateOf(rows.map((r) => r.final_joint)),
      final_joint_later: rateOf(rows.filter((r) => r.trigger_revision > 1).map((r) => r.final_joint)),
      final_anchor_retention: rateOf(rows.map((r) => r.final_anchor_retention)),
      mean_final_abs_error: meanOrNull(rows.filter((r) => r.final_error !== null).map((r) => Math.abs(r.final_error!))),
      mean_final_energy: meanOrNull(rows.map((r) => r.final_energy)),
      mean_post_trigger_generations: meanOrNull(rows.map((r) => r.post_trigger_generations)),
      curve: cumulativeSuccess(
        rows.map((r) => r.success_revision),
        caps,
      ),
    };
  });

  const reference = arms.includes('full') ? 'full' : arms[0];
  const byStateArm = new Map(outcomes.map((r) => [`${r.state_id}\u001f${r.arm}`, r]));
  const contrasts: HistoryContrast[] = [];
  for (const arm of arms.filter((a) => a !== reference)) {
    for (const outcome of ['final_joint', 'first_step_escape'] as const) {
      const strata: string[] = [];
      const ref: number[] = [];
      const alt: number[] = [];
      for (const state of new Set(outcomes.map((r) => r.state_id))) {
        const a = byStateArm.get(`${state}\u001f${reference}`);
        const b = byStateArm.get(`${state}\u001f${arm}`);
        if (!a || !b || a[outcome] === null || b[outcome] === null) continue;
        strata.push(a.source);
        ref.push(a[outcome] ? 1 : 0);
        alt.push(b[outcome] ? 1 : 0);
      }
      const bCount = ref.filter((v, i) => v === 1 && alt[i] === 0).length;
      const cCount = ref.filter((v, i) => v === 0 && alt[i] === 1).length;
      const n = ref.length;
      contrasts.push({
        arm,
        reference,
        outcome,
        pairs: n,
        b: bCount,
        c: cCount,
        difference: n ? (cCount - bCount) / n : null,
        ci95: pairedDifferenceInterval(strata, ref, alt, n ? o.bootstrap : 0, o.seed, `history:${run.runId}:${arm}:${outcome}`),
        p_mcnemar: n ? mcnemarExact(bCount, cCount) : null,
        p_holm: null,
      });
    }
  }
  const adjusted = holmAdjust(contrasts.map((c) => c.p_mcnemar ?? NaN));
  contrasts.forEach((c, i) => (c.p_holm = Number.isFinite(adjusted[i]) ? adjusted[i] : null));
  if (!arms.includes('full')) notes.push(`no full arm: contrasts are against '${reference}'`);
  return {
    run_id: run.runId,
    controller: run.planned.plan.controller.label,
    simulated: run.planned.plan.controller.simulated,
    states,
    arms,
    caps,
    summaries,
    contrasts,
    outcomes,
    notes,
  };
}
