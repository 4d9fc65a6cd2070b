// Extended budget (docs/protocol.md §3.13): budget-end failures continued to a larger budget. A
// rescue is a joint success after the source budget; a trajectory that ended at the context window
// (termination context_limit) is a failure censored there. The persistence curve is the cumulative
// rescue share by revision cap, from the source budget to the new one.
import { median } from '../../../core/stats/summary.ts';
import { cumulativeSuccess, finiteOrNull, rate, specOf, successRevision, type ExperimentRunData } from './common.ts';
import type { PersistAnalysis, PersistRegionRow } from './experiment-analysis-types.ts';
import { terminalRegion } from '../states.ts';

export function analyzePersist(run: ExperimentRunData): PersistAnalysis {
  const notes: string[] = [];
  const complete = run.trajectories.filter((t) => t.status === 'complete');
  const left = run.trajectories.length - complete.length;
  if (left) notes.push(`${left} trajectories are not complete (pending or protocol-incomplete) and are left out`);
  const sourceBudget = Math.max(0, ...run.experiment.trajectories.map((t) => t.trigger_revision));
  const budget = run.planned.plan.protocol.budget;
  const rows = complete.map((t) => {
    const spec = specOf(run, t);
    const f = spec.facts;
    return {
      region: terminalRegion((f.error as number | null) ?? null, f.energy as number),
      rescue: successRevision(t, spec.trigger_revision + 1),
      contextLimit: t.termination === 'context_limit',
    };
  });
  const caps = Array.from({ length: Math.max(0, budget - sourceBudget + 1) }, (_, i) => sourceBudget + i);
  const regions: PersistRegionRow[] = [...new Set(rows.map((r) => r.region))].sort().map((region) => {
    const rs = rows.filter((r) => r.region === region);
    return { region, n: rs.length, rescued: rate(rs.filter((r) => r.rescue !== null).length, rs.length) };
  });
  const rescues = rows.map((r) => r.rescue).filter((r): r is number => r !== null);
  const contextLimit = rows.filter((r) => r.contextLimit).length;
  if (contextLimit)
    notes.push(`${contextLimit} trajectories ended at the context window (termination context_limit) and count as not rescued`);
  return {
    run_id: run.runId,
    controller: run.planned.plan.controller.label,
    simulated: run.planned.plan.controller.simulated,
    source_budget: sourceBudget,
    budget,
    context_window: (run.experiment.settings.context_window as number | null) ?? null,
    n: rows.length,
    rescued: rate(rescues.length, rows.length),
    context_limit: contextLimit,
    median_rescue_revision: finiteOrNull(median(rescues)),
    caps,
    curve: cumulativeSuccess(
      rows.map((r) => r.rescue),
      caps,
    ),
    regions,
    notes,
  };
}
