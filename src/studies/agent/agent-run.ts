// Runs the agent tasks a run does not have yet, one rollout per task under one harness, storing
// each finished rollout at once (a killed session loses only the rollout in flight).
import { UserError } from '../../core/errors.ts';
import { agentTasks, runToolShedRollout, type RolloutRecord, type RolloutSettings } from './engine.ts';
import { TurnFailedError, type TurnGenerator } from './generator.ts';
import type { AgentHarness } from '../../remedy/agent-harness.ts';
import type { AgentStore } from './agent-store.ts';

export interface AgentRunResult {
  runId: string;
  status: 'complete' | 'interrupted';
  done: number;
  present: number;
  failed: number;
  solved: number;
  seconds: number;
}

export async function runAgentTasks(
  gen: TurnGenerator,
  harness: AgentHarness,
  store: AgentStore,
  runId: string,
  nTasks: number,
  settings: RolloutSettings,
  options: {
    signal?: AbortSignal;
    onRollout?: (r: RolloutRecord, done: number, total: number) => void;
    onFailure?: (taskId: string, e: Error) => void;
    modelParams?: number | null;
  } = {},
): Promise<AgentRunResult> {
  const t0 = performance.now();
  const tasks = agentTasks(nTasks);
  const present = await store.doneTasks(runId);
  const todo = tasks.map((t, i) => ({ t, i })).filter(({ t }) => !present.has(t.task_id));
  const session = await store.startSession(runId, nTasks, { method: gen.method, ...(await gen.info()) });
  let done = 0;
  let failed = 0;
  let solved = 0;
  let status: AgentRunResult['status'] = 'complete';
  try {
    for (const { t, i } of todo) {
      if (options.signal?.aborted) {
        status = 'interrupted';
        break;
      }
      let r: RolloutRecord;
      try {
        r = await runToolShedRollout(t, i, harness, gen, settings, options.modelParams ?? null);
      } catch (e) {
        if (!(e instanceof TurnFailedError)) {
          if (e instanceof UserError) e.message = `${t.task_id} (${harness.name}): ${e.message}`;
          throw e;
        }
        failed++;
        options.onFailure?.(t.task_id, e);
        continue;
      }
      await store.insertRollout(runId, session, r, present);
      present.add(r.task_id);
      done++;
      if (r.solved) solved++;
      options.onRollout?.(r, done + failed, todo.length);
    }
  } catch (e) {
    await store.endSession(runId, session, { status: 'failed', nDone: done, nFailed: failed, seconds: (performance.now() - t0) / 1000 });
    throw e;
  }
  const seconds = (performance.now() - t0) / 1000;
  await store.endSession(runId, session, { status, nDone: done, nFailed: failed, seconds });
  return { runId, status, done, present: tasks.length - todo.length, failed, solved, seconds };
}
