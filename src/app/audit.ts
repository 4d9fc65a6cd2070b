// `audit`: replay a run from its events and report every discrepancy (engine/audit.ts).
import { NotFoundError } from '../core/errors.ts';
import { getFamily } from '../core/verify/registry.ts';
import { auditRun, type AuditReport } from '../engine/audit.ts';
import { openStore, type RunStore } from '../store/store.ts';
import { studyForKind } from '../studies/registry.ts';

/** The run, or a NotFoundError naming the store's runs. */
export async function requireRun(store: RunStore, runId: string) {
  const run = await store.getRun(runId);
  if (!run) {
    const known = await store.runIds();
    throw new NotFoundError(
      `no run '${runId}' in ${store.location}${known.length ? `; runs: ${known.join(', ')}` : ' (the store has no runs)'}`,
      { kind: 'run', target: runId },
    );
  }
  return run;
}

export async function auditStoredRun(store: string, runId: string, o: { expectHead?: string } = {}): Promise<AuditReport> {
  const s = await openStore(store, { readonly: true });
  try {
    const run = await requireRun(s, runId);
    // A study whose runs send other messages than the verbatim protocol re-creates them for the replay.
    const study = studyForKind(run.planned.plan.kind);
    return await auditRun(s, runId, getFamily, {
      replay: study?.replay ? (planned) => study.replay!(planned) : undefined,
      expectHead: o.expectHead,
    });
  } finally {
    await s.close();
  }
}
