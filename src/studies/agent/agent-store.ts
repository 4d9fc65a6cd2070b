// Agent rollouts in the run store, through the store's study kit. A run is one (model, env,
// harness, temperature, seed) — the reference's file granularity — and its plan; rollouts are
// keyed records by task_id (the reference's resume granularity), each stored exactly once.
import { legacyModelLabelSlug, modelLabelSlug } from '../../core/util/slug.ts';
import type { Model } from '../../models/types.ts';
import {
  appendRecords,
  finishStudySession,
  openStudyRun,
  readRecords,
  recordKeys,
  startStudySession,
  studyRuns,
  studySessions,
  type StudySession,
} from '../../store/study-runs.ts';
import { openStore, type RunStore, type StoreOptions } from '../../store/store.ts';
import type { AgentHarnessName } from '../../remedy/agent-harness.ts';
import { registerRunKind } from '../../store/run-kinds.ts';
import { recordsRunKind } from '../kit/run-kind.ts';
import type { RolloutRecord } from './engine.ts';

/** The store's run kind of agent rollout runs, registered with the store (one per model, env, harness, temperature and seed). */
export const AGENT_RUN_KIND = 'agent';
registerRunKind(recordsRunKind({ kind: AGENT_RUN_KIND, study: 'agent', settings: ['env', 'harness'] }));

interface AgentRunSettings {
  max_steps: number;
  max_new_tokens: number;
  temperature: number;
  seed: number;
  task_seed: number;
}

export interface AgentRunRow {
  run_id: string;
  env: string;
  harness: AgentHarnessName;
  model_spec: string;
  model_label: string;
  simulated: boolean;
  settings: AgentRunSettings;
}

/** The agent runs of one store. */
export class AgentStore {
  constructor(readonly store: RunStore) {}

  /** Opens a store for this study's runs (close it with `close()`). */
  static async open(location: string, options: StoreOptions = {}): Promise<AgentStore> {
    return new AgentStore(await openStore(location, options));
  }

  close(): Promise<void> {
    return this.store.close();
  }

  async listRuns(): Promise<AgentRunRow[]> {
    return (await studyRuns(this.store, AGENT_RUN_KIND)).map(({ runId, plan }) => {
      const { env, harness, ...settings } = plan.settings as Record<string, unknown>;
      return {
        run_id: runId,
        env: String(env),
        harness: harness as AgentHarnessName,
        model_spec: plan.controller.spec,
        model_label: plan.controller.label,
        simulated: plan.controller.simulated,
        settings: settings as unknown as AgentRunSettings,
      };
    });
  }

  /**
   * Creates the run on first use; a later session must bring the same model, environment, harness
   * and settings (anything else is refused, naming what differs).
   */
  openRun(
    runId: string,
    run: { env: string; harness: AgentHarnessName; settings: AgentRunSettings },
    model: { spec: string; label: string; capabilities: Pick<Model['capabilities'], 'simulated'> },
  ): Promise<{ created: boolean }> {
    return openStudyRun(this.store, {
      runId,
      kind: AGENT_RUN_KIND,
      controller: { label: model.label, spec: model.spec, simulated: model.capabilities.simulated },
      settings: { env: run.env, harness: run.harness, ...run.settings },
    });
  }

  doneTasks(runId: string): Promise<Set<string>> {
    return recordKeys(this.store, runId, 'rollout');
  }

  /** Records a rollout once; false when the task already had one. */
  async insertRollout(runId: string, session: number, r: RolloutRecord, done?: ReadonlySet<string>): Promise<boolean> {
    return (await appendRecords(this.store, runId, 'rollout', session, [{ key: r.task_id, data: r }], done)) === 1;
  }

  /** The run's rollouts in task order. */
  async rollouts(runId: string): Promise<RolloutRecord[]> {
    const rows = (await readRecords<RolloutRecord>(this.store, runId, 'rollout')).map((r) => r.data);
    return rows.sort((a, b) => a.task_index - b.task_index || (a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0));
  }

  startSession(runId: string, nTasks: number, backend: Record<string, unknown>): Promise<number> {
    return startStudySession(this.store, runId, { kind: AGENT_RUN_KIND, pending: nTasks, options: { backend } });
  }

  endSession(
    runId: string,
    session: number,
    e: { status: 'complete' | 'interrupted' | 'failed'; nDone: number; nFailed: number; seconds: number },
  ): Promise<void> {
    return finishStudySession(this.store, runId, {
      session,
      status: e.status,
      seconds: e.seconds,
      counters: { n_done: e.nDone, n_failed: e.nFailed },
    });
  }

  sessions(runId: string): Promise<StudySession[]> {
    return studySessions(this.store, runId);
  }
}

/** `agent-<env>-<label>-<harness with + as ->-t<temp>-s<seed>` (the reference's file tag). */
export function defaultAgentRunId(env: string, modelLabel: string, harness: string, temperature: number, seed: number): string {
  const slug = modelLabelSlug(modelLabel);
  return `agent-${env}-${slug}-${harness.replace(/\+/g, '-')}-t${temperature}-s${seed}`;
}

/** The default run id earlier versions gave (`agent-toolshed-sim-steady-sim-…`), still resumed. */
export function earlierAgentRunId(env: string, modelLabel: string, harness: string, temperature: number, seed: number): string {
  return `agent-${env}-${legacyModelLabelSlug(modelLabel)}-${harness.replace(/\+/g, '-')}-t${temperature}-s${seed}`;
}
