// `agent`: rollouts of ToolShed agent tasks under harness variants, one run per (model, harness),
// resumable by task. Typed options in, typed outcomes out; the CLI parses flags and shows progress.
import { UserError } from '../core/errors.ts';
import { DEFAULT_SEED } from '../envs/toolshed/seeding.ts';
import { createModel } from '../models/index.ts';
import type { ModelOptions } from '../models/options.ts';
import { openStore } from '../store/store.ts';
import type { RolloutRecord, RolloutSettings } from '../studies/agent/engine.ts';
import { STUDY_SETTINGS } from '../studies/agent/defaults.ts';
import { turnGeneratorFor, type TurnGenerator } from '../studies/agent/generator.ts';
import type { AgentHarness } from '../remedy/agent-harness.ts';
import { runAgentTasks, type AgentRunResult } from '../studies/agent/agent-run.ts';
import { AgentStore, defaultAgentRunId, earlierAgentRunId } from '../studies/agent/agent-store.ts';
import { resumableRunId } from '../studies/kit/run-id.ts';

/** The task seed of the study's agent tasks (generate_agent_tasks). */
export const AGENT_TASK_SEED = DEFAULT_SEED;

export interface AgentOptions {
  model: string;
  modelOptions?: ModelOptions;
  harnesses: AgentHarness[];
  tasks?: number;
  maxSteps?: number;
  maxNewTokens?: number;
  store: string;
  /** One run id (only with one harness); default agent-toolshed-<label>-<harness>-t<temp>-s<seed>. */
  runId?: string;
  signal?: AbortSignal;
}

export interface AgentHooks {
  /** A harness's run starts. */
  onRunStart?(s: { runId: string; harness: string; model: string; simulated: boolean }): void;
  onRollout?(r: RolloutRecord, done: number, total: number): void;
  onFailure?(taskId: string, e: Error): void;
  onRunEnd?(r: AgentRunResult): void;
}

export interface AgentOutcome {
  model: string;
  simulated: boolean;
  runs: AgentRunResult[];
}

export async function agentCommand(o: AgentOptions, hooks: AgentHooks = {}): Promise<AgentOutcome> {
  if (!o.harnesses.length)
    throw new UserError(
      '--harness is required: verbatim, verbatim+instr, drop, abstract, verbatim+ban or abstract+ban (comma-separated for several)',
    );
  if (o.runId && o.harnesses.length > 1)
    throw new UserError('--run names one run; give one --harness with it (each harness is its own run)');
  const nTasks = o.tasks ?? STUDY_SETTINGS.nTasks;
  const settings: RolloutSettings = {
    maxSteps: o.maxSteps ?? STUDY_SETTINGS.maxSteps,
    maxNewTokens: o.maxNewTokens ?? STUDY_SETTINGS.maxNewTokens,
    temperature: o.modelOptions?.temperature ?? STUDY_SETTINGS.temperature,
    seed: o.modelOptions?.seed ?? STUDY_SETTINGS.seed,
  };
  const model = await createModel(o.model, o.modelOptions ?? {});
  try {
    // Refuse before any work when a +ban harness meets a backend that cannot ban.
    const gens = new Map<boolean, TurnGenerator>();
    for (const h of o.harnesses) if (!gens.has(h.ban)) gens.set(h.ban, await turnGeneratorFor(model, { needsBan: h.ban }));
    const info = await gens.values().next().value!.info();
    const params = (info.model as { parameters?: unknown } | undefined)?.parameters;
    const modelParams = typeof params === 'number' ? params : null;
    const store = await openStore(o.store);
    const agent = new AgentStore(store);
    const runs: AgentRunResult[] = [];
    try {
      for (const harness of o.harnesses) {
        if (o.signal?.aborted) break;
        const ids = [model.label, harness.name, settings.temperature, settings.seed] as const;
        const runId =
          o.runId ?? (await resumableRunId(store, defaultAgentRunId('toolshed', ...ids), earlierAgentRunId('toolshed', ...ids)));
        // A changed model, harness or setting under the same run id is refused, naming what differs.
        await agent.openRun(
          runId,
          {
            env: 'toolshed',
            harness: harness.name,
            settings: {
              max_steps: settings.maxSteps,
              max_new_tokens: settings.maxNewTokens,
              temperature: settings.temperature,
              seed: settings.seed,
              task_seed: AGENT_TASK_SEED,
            },
          },
          model,
        );
        await store.acquireLock(runId);
        try {
          hooks.onRunStart?.({ runId, harness: harness.name, model: model.label, simulated: model.capabilities.simulated });
          const res = await runAgentTasks(gens.get(harness.ban)!, harness, agent, runId, nTasks, settings, {
            signal: o.signal,
            modelParams,
            onRollout: hooks.onRollout,
            onFailure: hooks.onFailure,
          });
          runs.push(res);
          hooks.onRunEnd?.(res);
        } finally {
          await store.releaseLock(runId);
        }
      }
    } finally {
      await store.close();
    }
    return { model: model.label, simulated: model.capabilities.simulated, runs };
  } finally {
    await model.close?.();
  }
}
