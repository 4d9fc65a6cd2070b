// Every study revloop knows, in the order their results are shown. Adding a study: its own folder
// under studies/, and one line here. Each study's module registers its run kinds with the store
// (src/store/run-kinds.ts), so importing this registers every kind: the commands that read stores do.
import { UserError } from '../core/errors.ts';
import type { RunStore } from '../store/store.ts';
import type { Study } from './kit/study.ts';
import { agentStudy } from './agent/study.ts';
import { experimentsStudy } from './experiments/study.ts';
import { probeStudy } from './probe/study.ts';
import { revisionStudy } from './revision/study.ts';

export const STUDIES: readonly Study<any>[] = [revisionStudy, experimentsStudy, probeStudy, agentStudy];

/** The study that owns runs of this plan kind (undefined: no registered study does). */
export function studyForKind(kind: string): Study<any> | undefined {
  return STUDIES.find((s) => s.kinds.includes(kind));
}

/**
 * The runs to analyse, grouped by study in registry order: the requested ones (every run in the
 * store when none is requested). Unknown run ids are refused, naming the store's runs.
 */
export async function runsByStudy(
  store: RunStore,
  requested: readonly string[] = [],
): Promise<Array<{ study: Study<any>; runIds: string[] }>> {
  const known = await store.runIds();
  const wanted = requested.length ? [...new Set(requested)] : known;
  const unknown = wanted.filter((id) => !known.includes(id));
  if (unknown.length)
    throw new UserError(
      `${store.location}: no run ${unknown.map((id) => `'${id}'`).join(', ')} in this store; runs: ${known.join(', ') || 'none'} (see \`revloop runs --store ${store.location}\`)`,
    );
  const groups = new Map<Study<any>, string[]>();
  for (const id of wanted) {
    const planned = await store.getPlanned(id);
    const study = planned && studyForKind(planned.plan.kind);
    if (!study) continue;
    groups.set(study, [...(groups.get(study) ?? []), id]);
  }
  return STUDIES.filter((s) => groups.has(s)).map((study) => ({ study, runIds: groups.get(study)! }));
}
