// GET /api/runs/:run/trajectories/:case: one trajectory, reduced from its own events as the store
// reduces them: its rounds with their reports and word diffs, the recurrence of its states, and
// every attempt.
import { NotFoundError, UsageError, UserError } from '../../core/errors.ts';
import { encodeWordDiff } from '../../html/word-diff.ts';
import type { StoredEvent, TrajectoryRunPlanned } from '../../store/events.ts';
import { isTrajectoryPlan } from '../../store/plan.ts';
import { applyTrajectoryEvent, initialTrajectory } from '../../store/reduce.ts';
import type { TimelineRound, TrajectoryResponse } from '../../viewer/api.ts';
import type { BackendState } from './backend-state.ts';
import { attemptRow, finite } from './rows.ts';

/** One trajectory by case id, or by case index when `index` is given. */
export async function trajectoryPage(state: BackendState, runId: string, caseId: string, index?: number): Promise<TrajectoryResponse> {
  const { store, admit, summaryOf, plannedOf, readerOf } = state;
  const unverified = await admit(runId);
  const summary = await summaryOf(runId);
  const planned = await plannedOf(runId);
  const { reader } = readerOf(runId, summary.kind);
  if (!isTrajectoryPlan(planned.plan)) throw new UserError(`run '${runId}' has no trajectories`);
  const cases = planned.cases;
  let i: number;
  if (index !== undefined) {
    if (index >= cases.length)
      throw new NotFoundError(`run '${runId}' has ${cases.length} cases; no case index ${index}`, { kind: 'case', target: String(index) });
    if (cases[index].id !== caseId)
      throw new NotFoundError(`case index ${index} of run '${runId}' is '${cases[index].id}', not '${caseId}'`, {
        kind: 'case',
        target: caseId,
      });
    i = index;
  } else {
    const found = cases.flatMap((c, k) => (c.id === caseId ? [k] : []));
    if (!found.length) throw new NotFoundError(`run '${runId}' has no case '${caseId}'`, { kind: 'case', target: caseId });
    if (found.length > 1)
      throw new UsageError(
        `case '${caseId}' names ${found.length} trajectories of run '${runId}' (several controllers); add ?index= one of ${found.join(', ')}`,
        { option: 'index' },
      );
    i = found[0];
  }
  // The trajectory's own events, reduced as the store reduces them: its rounds and every attempt.
  const events = await store.readEvents(runId, { caseIndex: i });
  const t = initialTrajectory(runId, planned as TrajectoryRunPlanned, i);
  const counts = { started: 0, finished: 0, failed: 0 };
  for (const e of events) applyTrajectoryEvent(t, counts, e);
  const rec = reader.recurrence(t);
  const label = reader.label(t);
  const n = t.rounds.length;
  const terminal = rec.repeatClass === 'terminal_fixed_point' ? 3 : rec.repeatClass === 'terminal_cycle' ? 2 * rec.cyclePeriod : 0;
  const rounds: TimelineRound[] = t.rounds.map((r, k) => {
    const report = reader.report(t, r, planned);
    const prev = k > 0 ? t.rounds[k - 1].text : null;
    const first = rec.states.indexOf(rec.states[k]);
    return {
      revision: r.revision,
      text: r.text,
      joint: r.joint,
      energy: finite(r.energy),
      state: r.state as unknown as Record<string, unknown>,
      report: report && 'text' in report ? report.text : null,
      report_source: report && 'text' in report ? (report.recorded ? 'recorded' : 'rendered') : null,
      report_sent: !!report && 'text' in report && k + 1 < n,
      report_error: report && 'error' in report ? report.error : null,
      diff: prev === null || prev === r.text ? null : encodeWordDiff(prev, r.text),
      state_id: rec.states[k],
      repeat_of: first < k ? t.rounds[first].revision : null,
      in_terminal_repeat: terminal > 0 && k >= n - terminal,
    };
  });
  let prompt: string | null = null;
  let promptError: string | null = null;
  try {
    prompt = reader.initialPrompt(t, planned);
  } catch (e) {
    promptError = `initial prompt unavailable: ${(e as Error).message}`;
  }
  const origin = reader.origin(planned);
  return {
    ...(unverified ? { unverified } : {}),
    run_id: runId,
    case_index: i,
    case_id: t.caseId,
    family: t.family,
    source: t.source,
    controller: t.controller,
    simulated: t.simulated,
    status: t.status,
    incomplete_reason: t.incompleteReason ?? null,
    budget: t.budget,
    case: t.case as unknown as Record<string, unknown>,
    imported: origin.imported,
    import_format: origin.imported ? origin.format : null,
    prompt,
    prompt_error: promptError,
    label: { outcome: t.status === 'pending' ? 'pending' : label.outcome, repeat_class: label.repeatClass, category: label.category },
    recurrence: { repeat_class: rec.repeatClass, cycle_period: rec.cyclePeriod, capture: rec.capture, states: rec.states },
    rounds,
    attempts: events.filter((e): e is StoredEvent & { type: 'attempt_finished' } => e.type === 'attempt_finished').map(attemptRow),
    cases: cases.length,
  };
}
