// Reads what a report needs from a run store: the trajectories of the chosen runs, each run's
// prompt variant (so unsent verifier reports are rendered as the run would have sent them) and a
// few facts per run for the runs table. Read-only; the store is closed before rendering starts.
import type { TrajectoryRecord } from '../../store/types.ts';
import type { PromptVariant } from '../../core/verify/types.ts';
import { UserError } from '../../core/errors.ts';

export interface StoreReportInputs {
  trajectories: TrajectoryRecord[];
  variants: Map<string, PromptVariant>;
  runDetails: Map<string, Record<string, string>>;
}

export async function loadFromStore(storePath: string, runIds: readonly string[] = []): Promise<StoreReportInputs> {
  const { openStore } = await import('../../store/index.ts');
  const store = openStore(storePath, { readonly: true });
  try {
    const known = store.runIds();
    if (!known.length)
      throw new UserError(
        `${storePath}: the store holds no runs yet (start one with \`revloop run --store ${storePath} …\` or try \`revloop demo\`)`,
      );
    const wanted = [...new Set(runIds)];
    const unknown = wanted.filter((id) => !known.includes(id));
    if (unknown.length) {
      throw new UserError(
        `${storePath}: no run ${unknown.map((id) => `'${id}'`).join(', ')} in this store; runs: ${known.join(', ')} (see \`revloop runs --store ${storePath}\`)`,
      );
    }
    const ids = wanted.length ? wanted : known;
    const trajectories = store.loadTrajectories(ids);
    const variants = new Map<string, PromptVariant>();
    const runDetails = new Map<string, Record<string, string>>();
    for (const id of ids) {
      const run = store.getRun(id);
      if (!run) continue;
      variants.set(id, run.planned.plan.protocol.variant);
      const s = run.summary;
      runDetails.set(id, {
        model: s.modelSpec,
        protocol: s.protocol,
        status: s.status,
        created: s.createdAt,
        plan: s.planSha256.slice(0, 12),
      });
    }
    return { trajectories, variants, runDetails };
  } finally {
    store.close();
  }
}
