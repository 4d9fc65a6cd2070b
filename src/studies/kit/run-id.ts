// Default run ids that changed form: the same command keeps resuming the run an earlier version
// named (e.g. `probe-toolshed-sim-steady-sim` before ids dropped the simulation mark).
import type { RunStore } from '../../store/store.ts';

/** `id`, unless only `earlier` (the id an earlier version gave the same command) names a run in the store. */
export async function resumableRunId(store: RunStore, id: string, earlier: string): Promise<string> {
  if (earlier === id) return id;
  const ids = await store.runIds();
  return !ids.includes(id) && ids.includes(earlier) ? earlier : id;
}
