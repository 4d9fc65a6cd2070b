// One rollout per task under a harness (docs/harness.md §5.2): build the context from the steps so far,
// generate one turn, extract the action, execute it in the task's world, stop when the goal
// predicate holds (checked after every step, before finish), when finish() is called, or at the
// step limit. Records follow the reference's rollout JSONL, plus the raw model outputs. The loop
// is the revise package's kernel (runLoop): the ledger is its policy, the world its verifier.
import { runLoop, stopAfterRevisions, stopOnSuccess, stopWhen } from '@revloop/revise';
import type { TurnResult } from './generator.ts';
import { actionToolName } from '../../envs/toolshed/parse.ts';
import { DEFAULT_SEED } from '../../envs/toolshed/seeding.ts';
import {
  errorGloss,
  generateAgentTasks,
  isSolved,
  step as execute,
  systemPrompt,
  taskWorld,
  type Task,
} from '../../envs/toolshed/index.ts';
import { FailureLedger } from '../../remedy/ledger.ts';
import { extractAction, parseErrorBreakdown, repeatStats, type RepeatStats } from './actions.ts';
import type { AgentHarness, AgentHarnessName } from '../../remedy/agent-harness.ts';
import type { TurnGenerator } from './generator.ts';

/** A rollout's settings: step limit, tokens per turn, temperature and seed (the study's: `STUDY_SETTINGS`). */
export interface RolloutSettings {
  maxSteps: number;
  maxNewTokens: number;
  temperature: number;
  seed: number;
}

type StopReason = 'solved' | 'finish_called' | 'step_limit';

/**
 * One rollout as the reference's rollout JSONL records it (steps, observations, stop reason, solved, repetition counts), plus the raw
 * model outputs.
 */
export interface RolloutRecord extends RepeatStats {
  task_id: string;
  task_index: number;
  template: string;
  harness: AgentHarnessName;
  model: string;
  simulated: boolean;
  env: 'toolshed';
  solved: boolean;
  n_steps: number;
  stop_reason: StopReason;
  /** null when the backend does not report token counts. */
  gen_tokens: number | null;
  prompt_tokens: number | null;
  n_banned_masked: number | null;
  seconds: number;
  actions: string[];
  ok: boolean[];
  error_types: Array<string | null>;
  observations: string[];
  tools: Array<string | null>;
  /** The raw generations the actions were extracted from. */
  raw_outputs: string[];
  /** stop_reason == step_limit and ≥ 2 canonical repeats among failed actions. */
  stuck: boolean;
  ok_call_rate: number | null;
  prompt_tokens_per_step: number | null;
  truncated_rate: number;
  prose_rate: number;
  temperature: number;
  seed: number;
  max_steps: number;
  max_new_tokens: number;
  model_params: number | null;
}

const RENDER = { verbosity: 'standard', echoAction: false } as const;

function sumOrNull(xs: ReadonlyArray<number | null>): number | null {
  return xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, b) => a + b, 0);
}

/**
 * One agent rollout of a ToolShed task under a harness (docs/harness.md §5.2): generate a turn, execute its action, repeat until the goal
 * holds, `finish()` is called or the step limit.
 */
export async function runToolShedRollout(
  task: Task,
  taskIndex: number,
  harness: AgentHarness,
  gen: TurnGenerator,
  settings: RolloutSettings,
  modelParams: number | null = null,
): Promise<RolloutRecord> {
  const t0 = performance.now();
  const world = taskWorld(task);
  const system = systemPrompt({ demo: true });
  // The remedy layer's agent side: the ledger builds each turn's context and ban list.
  const ledger = new FailureLedger({
    feedback: harness.messages.feedback,
    negativeInstruction: harness.messages.negativeInstruction,
    ban: harness.ban,
    gloss: errorGloss,
    toolOf: actionToolName,
  });
  const steps = ledger.transcript;
  const raw: string[] = [];
  const genTokens: Array<number | null> = [];
  const promptTokens: Array<number | null> = [];
  const masked: Array<number | null> = [];
  const turns: TurnResult[] = [];
  type Step = { finish: boolean };
  const loop = () =>
    runLoop<Step>({
      // One step is one generation: the turn generator with the ban of the ledger's failed actions.
      model: {
        label: gen.model.label,
        capabilities: { ban: harness.ban },
        generate: async (messages, o) => {
          const turn = await gen.turn(messages, {
            maxNewTokens: settings.maxNewTokens,
            temperature: settings.temperature,
            seed: settings.seed,
            banned: o.bannedSequences ?? [],
            newlineStops: true,
          });
          turns.push(turn);
          return { text: turn.text, attempts: [] };
        },
      },
      policy: ledger.loopPolicy(system, task.goal, { maxTokens: settings.maxNewTokens }),
      verifier: {
        // The action is extracted from the raw turn (not the stripped draft), executed, and recorded in the ledger.
        verify: (_draft, index) => {
          const turn = turns[index];
          raw.push(turn.text);
          genTokens.push(turn.genTokens);
          promptTokens.push(turn.promptTokens);
          masked.push(harness.ban ? turn.nBannedMasked : 0);
          const action = extractAction(turn.text);
          const outcome = execute(world, action, RENDER);
          ledger.record({
            action,
            observation: outcome.observation,
            ok: outcome.ok,
            errorType: outcome.errorType,
            tool: actionToolName(action),
          });
          return { ok: isSolved(task, world), state: { finish: outcome.info.finish === true }, violations: [], measure: 0 };
        },
        feedback: () => '',
      },
      // The goal first (checked after every step, before finish), then finish(), then the step limit.
      stopWhen: [stopOnSuccess(), stopWhen<Step>('finish_called', (_s, r) => r.state.finish), stopAfterRevisions(settings.maxSteps - 1)],
    });
  // A step limit of 0 allows no step.
  const end =
    settings.maxSteps < 1 ? ({ status: 'stopped', reason: 'revisions', detail: '', when: 'generation' } as const) : (await loop()).end;
  // A turn that could not be generated, or a step that threw, ends the rollout as it always did: with the error.
  if (end.status === 'incomplete') throw new Error(`task ${task.task_id}: ${end.message}`);
  const stop: StopReason | null =
    end.status === 'stopped' ? (end.reason === 'success' ? 'solved' : end.reason === 'finish_called' ? 'finish_called' : null) : null;
  const solved = stop === 'solved';
  const stats = repeatStats(steps);
  const actions = steps.map((s) => s.action);
  const errorTypes = steps.map((s) => s.errorType ?? null);
  const { truncated, prose } = parseErrorBreakdown(actions, errorTypes);
  const nActions = Math.max(actions.length, 1);
  const prompt = sumOrNull(promptTokens);
  const stopReason = stop ?? 'step_limit';
  return {
    task_id: task.task_id,
    task_index: taskIndex,
    template: task.payload.template,
    harness: harness.name,
    model: gen.model.label,
    simulated: gen.model.capabilities.simulated,
    env: 'toolshed',
    solved,
    n_steps: steps.length,
    stop_reason: stopReason,
    gen_tokens: sumOrNull(genTokens),
    prompt_tokens: prompt,
    n_banned_masked: sumOrNull(masked),
    seconds: (performance.now() - t0) / 1000,
    actions,
    ok: steps.map((s) => s.ok),
    error_types: errorTypes,
    observations: steps.map((s) => s.observation),
    tools: steps.map((s) => s.tool ?? null),
    raw_outputs: raw,
    ...stats,
    stuck: stopReason === 'step_limit' && stats.n_canonical_repeats >= 2,
    ok_call_rate: steps.length ? steps.filter((s) => s.ok).length / steps.length : null,
    prompt_tokens_per_step: prompt !== null && steps.length ? prompt / steps.length : null,
    truncated_rate: truncated / nActions,
    prose_rate: prose / nActions,
    temperature: settings.temperature,
    seed: settings.seed,
    max_steps: settings.maxSteps,
    max_new_tokens: settings.maxNewTokens,
    model_params: modelParams,
  };
}

/** The agent study's task list: `generate_agent_tasks(n, seed)`, by default the reference's seed (ids agent-0000 …). */
export function agentTasks(n: number, seed = DEFAULT_SEED): Task[] {
  return generateAgentTasks(n, seed);
}
