// `revloop agent`: rollouts of ToolShed agent tasks under harness variants, stored per
// (model, harness) run and resumable by task. The CLI module is a thin shell over this.
import type { ModelFlags } from '../cli/model-flags.ts';
import type { Model } from '../models/types.ts';
import { UserError } from '../core/errors.ts';
import type { CommandIO } from './probe.ts';
import { agentTasks, runToolShedRollout, STUDY_SETTINGS, type RolloutRecord, type RolloutSettings } from '../studies/agent/engine.ts';
import { TurnFailedError, turnGeneratorFor, type TurnGenerator } from '../studies/agent/generator.ts';
import { getHarness, type Harness } from '../studies/agent/harness.ts';
import type { AgentStore } from '../studies/agent/store.ts';

export interface AgentFlags extends ModelFlags {
  model?: string;
  harness?: string;
  tasks?: string;
  maxSteps?: string;
  maxNewTokens?: string;
  store?: string;
  run?: string;
  json?: boolean;
  progress?: boolean;
}

export interface AgentRunResult {
  runId: string;
  status: 'complete' | 'interrupted';
  done: number;
  present: number;
  failed: number;
  solved: number;
  seconds: number;
}

/** Runs the tasks not yet stored under `runId`; each finished rollout is stored at once. */
export async function runAgentTasks(
  gen: TurnGenerator,
  harness: Harness,
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
  const present = store.doneTasks(runId);
  const todo = tasks.map((t, i) => ({ t, i })).filter(({ t }) => !present.has(t.task_id));
  const session = store.startSession(runId, gen.model.spec, nTasks, { method: gen.method, ...(await gen.info()) });
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
      store.insertRollout(runId, r);
      done++;
      if (r.solved) solved++;
      options.onRollout?.(r, done + failed, todo.length);
    }
  } catch (e) {
    store.endSession(runId, session, { status: 'failed', nDone: done, nFailed: failed, seconds: (performance.now() - t0) / 1000 });
    throw e;
  }
  const seconds = (performance.now() - t0) / 1000;
  store.endSession(runId, session, { status, nDone: done, nFailed: failed, seconds });
  return { runId, status, done, present: tasks.length - todo.length, failed, solved, seconds };
}

function intFlag(flag: string, v: string | undefined, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < min) throw new UserError(`${flag} must be a whole number ≥ ${min} (got "${v}")`);
  return n;
}

export async function agentCommand(flags: AgentFlags, io: CommandIO): Promise<number> {
  if (!flags.model) throw new UserError('--model <spec> is required, e.g. --model gguf:./models/qwen2.5-0.5b-instruct-f16.gguf');
  const harnesses = (flags.harness ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
    .map(getHarness);
  if (!harnesses.length)
    throw new UserError(
      '--harness is required: verbatim, verbatim+instr, drop, abstract, verbatim+ban or abstract+ban (comma-separated for several)',
    );
  if (flags.run && harnesses.length > 1)
    throw new UserError('--run names one run; give one --harness with it (each harness is its own run)');
  const nTasks = intFlag('--tasks', flags.tasks, STUDY_SETTINGS.nTasks, 1);
  const { modelOptionsFromFlags } = await import('../cli/model-flags.ts');
  const modelOptions = modelOptionsFromFlags(flags);
  const settings: RolloutSettings = {
    maxSteps: intFlag('--max-steps', flags.maxSteps, STUDY_SETTINGS.maxSteps, 1),
    maxNewTokens: intFlag('--max-new-tokens', flags.maxNewTokens, STUDY_SETTINGS.maxNewTokens, 1),
    temperature: modelOptions.temperature ?? STUDY_SETTINGS.temperature,
    seed: modelOptions.seed ?? STUDY_SETTINGS.seed,
  };
  const { createModel } = await import('../models/index.ts');
  const model: Model = await createModel(flags.model, modelOptions);
  try {
    // Refuse before any work when a +ban harness meets a backend that cannot ban.
    const gens = new Map<boolean, TurnGenerator>();
    for (const h of harnesses) if (!gens.has(h.ban)) gens.set(h.ban, await turnGeneratorFor(model, { needsBan: h.ban }));
    const info = await gens.values().next().value!.info();
    const params = (info.model as { parameters?: unknown } | undefined)?.parameters;
    const modelParams = typeof params === 'number' ? params : null;
    const { AgentStore, defaultAgentRunId } = await import('../studies/agent/store.ts');
    const storePath = flags.store ?? 'runs.db';
    const store = AgentStore.open(storePath);
    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      if (++interrupts > 1) process.exit(130);
      io.err.write('\nrevloop agent: stopping after the current rollout (Ctrl-C again to quit at once)…\n');
      controller.abort();
    };
    process.on('SIGINT', onSigint);
    const sim = model.capabilities.simulated ? '[SIMULATED] ' : '';
    let interrupted = false;
    let failures = 0;
    try {
      const { lineProgress } = await import('../cli/progress/work-progress.ts');
      for (const harness of harnesses) {
        if (controller.signal.aborted) break;
        const runId = flags.run ?? defaultAgentRunId('toolshed', model.label, harness.name, settings.temperature, settings.seed);
        const run = store.ensureRun({
          run_id: runId,
          env: 'toolshed',
          harness: harness.name,
          model_spec: model.spec,
          model_label: model.label,
          simulated: model.capabilities.simulated,
          settings: {
            max_steps: settings.maxSteps,
            max_new_tokens: settings.maxNewTokens,
            temperature: settings.temperature,
            seed: settings.seed,
            task_seed: 20260808,
          },
        });
        // As for probes: the run id comes from the label, so another spec (or file) with the same label lands here.
        if (run.model_spec !== model.spec)
          io.err.write(`revloop agent: note: run '${runId}' was started with ${run.model_spec}; this session uses ${model.spec}\n`);
        store.runStore.acquireLock(runId);
        try {
          const progress = lineProgress(flags.progress === false ? null : io.err, `${sim}agent ${harness.name}`);
          let solvedSoFar = 0;
          let doneSoFar = 0;
          const res = await runAgentTasks(gens.get(harness.ban)!, harness, store, runId, nTasks, settings, {
            signal: controller.signal,
            modelParams,
            onRollout: (r, done, total) => {
              doneSoFar++;
              if (r.solved) solvedSoFar++;
              progress.update(done, total, `success ${((100 * solvedSoFar) / doneSoFar).toFixed(0)}%`);
              if (flags.json) io.out.write(JSON.stringify(r) + '\n');
            },
            onFailure: (taskId, e) => io.err.write(`\nrevloop agent: ${taskId}: ${e.message} (not stored; rerun to retry)\n`),
          });
          progress.finish();
          failures += res.failed;
          if (res.status === 'interrupted') interrupted = true;
          io.err.write(
            `${sim}agent ${runId}: ${res.status}; ${res.done} new rollouts (${res.solved} solved), ${res.present} already stored${res.failed ? `, ${res.failed} failed` : ''} in ${res.seconds.toFixed(1)} s → ${storePath}\n`,
          );
        } finally {
          store.runStore.releaseLock(runId);
        }
      }
    } finally {
      process.off('SIGINT', onSigint);
      store.close();
    }
    return interrupted ? 130 : failures ? 1 : 0;
  } finally {
    await model.close?.();
  }
}
