// `export`: a run in the paper's per-case schema (studies/revision/export-paper.ts).
import { UsageError, UserError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/util/atomic-file.ts';
import { isTrajectoryPlan } from '../store/plan.ts';
import { openStore } from '../store/store.ts';
import { pyJsonDumps } from '../core/py/format.ts';
import type { TrajectoryRunPlanned } from '../store/events.ts';
import { studyForKind } from '../studies/registry.ts';
import { paperRow } from '../studies/revision/export-paper.ts';
import { requireRun } from './audit.ts';
import type { LogHead } from '../store/integrity.ts';
import { unverifiedWarnings, verifyRuns, type ReadVerification } from './verified.ts';

export type ExportFormat = 'paper';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['paper'];

export interface ExportOptions {
  store: string;
  runId: string;
  format: ExportFormat;
  /** Where to write; `null` returns the text instead. */
  output: string | null;
  /** Export only the finished trajectories of an unfinished run. */
  partial?: boolean;
  /** Export a run whose chain or tables disagree with its events (refused by default; `warnings` says so). */
  allowUnverified?: boolean;
}

export interface ExportOutcome {
  rows: number;
  simulated: boolean;
  /** The exported text when `output` was null. */
  text: string | null;
  /** The run's head when exported (its last event): `audit --expect-head` holds a later log against it. */
  head: LogHead | null;
  /** With allowUnverified: how the run disagrees with its events. */
  warnings: string[];
}

export async function exportRun(o: ExportOptions): Promise<ExportOutcome> {
  if (!(EXPORT_FORMATS as readonly string[]).includes(o.format))
    throw new UsageError(`--format: unknown export format '${o.format}'; use ${EXPORT_FORMATS.join(', ')}`, { option: '--format' });
  const store = await openStore(o.store, { readonly: true });
  let text: string;
  let rows: number;
  let simulated: boolean;
  let verification: ReadVerification;
  try {
    const run = await requireRun(store, o.runId);
    verification = await verifyRuns(store, [o.runId], o);
    if (!isTrajectoryPlan(run.planned.plan))
      throw new UserError(`run '${o.runId}' is a ${run.planned.plan.kind} run; the paper export covers revision runs and imports`);
    let trajectories = await store.loadTrajectories([o.runId]);
    const pending = trajectories.filter((t) => t.status === 'pending').length;
    if (pending && !o.partial) {
      throw new UserError(
        `run '${o.runId}' has ${pending} unfinished trajectories; resume it first, or pass --partial to export only the finished ones`,
      );
    }
    if (o.partial) trajectories = trajectories.filter((t) => t.status !== 'pending');
    // The paper's row, plus what the owning study adds (an experiment's state, arm and frozen prefix).
    const planned = run.planned as TrajectoryRunPlanned;
    const extra = studyForKind(planned.plan.kind)?.exportFields;
    // Assigned onto the fresh row (the same keys in the same order) rather than spread: see store/chain.ts.
    text = trajectories.map((t) => pyJsonDumps(Object.assign(paperRow(t), extra?.(planned, t))) + '\n').join('');
    rows = trajectories.length;
    simulated = run.summary.simulated;
  } finally {
    await store.close();
  }
  const head = verification.heads.get(o.runId) ?? null;
  const warnings = unverifiedWarnings(verification);
  if (o.output === null) return { rows, simulated, text, head, warnings };
  await writeFileAtomic(o.output, text);
  return { rows, simulated, text: null, head, warnings };
}
