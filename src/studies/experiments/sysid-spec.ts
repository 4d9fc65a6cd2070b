// Freezing the system identification's prediction spec (docs/protocol.md §3.11): once a run's
// discovery states are all complete, and before any confirmation state is generated, the model's
// median action per command (and the pooled median over every discovery row of the store's
// finished sysid runs) is written into the run as one keyed record with its SHA-256. A resumed
// session recomputes the model's part from the stored discovery rows and refuses to go on if it
// differs (a changed estimator, or a tampered log); the pooled part stays as frozen.
import { namingOption, PlanMismatchError } from '../../core/errors.ts';
import { canonicalJson } from '../../core/util/hash.ts';
import type { RunStore } from '../../store/store.ts';
import { loadExperimentRuns } from './analysis/common.ts';
import { frozenSpec, predictionSpec, SPEC_RECORD, specSha256, sysidRows } from './analysis/sysid.ts';
import type { PredictionSpec } from './analysis/experiment-analysis-types.ts';

export type FreezeOutcome =
  { status: 'frozen' | 'unchanged'; sha256: string; spec: PredictionSpec } | { status: 'waiting'; pending: number };

function discoveryPending(run: Awaited<ReturnType<typeof loadExperimentRuns>>[number]): number {
  return run.trajectories.filter((t) => run.experiment.trajectories[t.caseIndex].facts.split === 'discovery' && t.status !== 'complete')
    .length;
}

/** Freezes the system-identification prediction spec (with its SHA-256) once discovery is complete. */
export async function freezePredictionSpec(store: RunStore, runId: string): Promise<FreezeOutcome> {
  const [run] = await loadExperimentRuns(store, [runId]);
  const pending = discoveryPending(run);
  if (pending) return { status: 'waiting', pending };
  const controller = run.planned.plan.controller.label;
  const own = sysidRows(run);
  const existing = await frozenSpec(store, runId);
  if (existing) {
    const again = predictionSpec(controller, own, [], []);
    const frozen = existing.spec;
    if (
      specSha256(existing.spec) !== existing.sha256 ||
      again.estimator !== frozen.estimator ||
      canonicalJson([again.commands, again.checkpoint]) !== canonicalJson([frozen.commands, frozen.checkpoint])
    ) {
      const sha = existing.sha256;
      throw namingOption(
        'runId',
        (n) =>
          new PlanMismatchError(
            `run '${runId}': the frozen prediction spec (SHA-256 ${sha.slice(0, 12)}…) no longer matches its discovery rows ` +
              `(the estimator changed, or the log was altered); the confirmation states are not run. Audit the run, or start a new ${n}.`,
            { runId, differences: ['prediction spec: the discovery curve recomputed now differs from the one frozen'] },
          ),
      );
    }
    return { status: 'unchanged', sha256: existing.sha256, spec: existing.spec };
  }
  // The pooled curve: every sysid run in the store whose discovery states are all complete.
  const ids: string[] = [];
  for (const s of await store.listRuns()) if (s.kind === 'experiment:sysid') ids.push(s.runId);
  const pooledRuns = (await loadExperimentRuns(store, ids)).filter(
    (r) => discoveryPending(r) === 0 && sysidRows(r).some((x) => x.split === 'discovery'),
  );
  const spec = predictionSpec(
    controller,
    own,
    pooledRuns.flatMap(sysidRows),
    pooledRuns.map((r) => r.runId),
  );
  const sha256 = specSha256(spec);
  await store.append(runId, [{ type: 'record', payload: { kind: SPEC_RECORD, key: 'spec', session: null, data: { spec, sha256 } } }]);
  return { status: 'frozen', sha256, spec };
}
