// `revloop agent`: ToolShed agent rollouts under harness variants (verbatim, +instr, drop,
// abstract, decoder ban). Parses flags into app/agent.ts's typed options; see docs/agent.md.
import type { Command } from 'commander';
import { fitText, outputWidth } from '../terminal.ts';
import { simulatedPrefix } from '../../core/simulated.ts';
import { STUDY_SETTINGS } from '../../studies/agent/defaults.ts';
import { addModelOptions, modelOptionsFromFlags, wholeNumber, type ModelFlags } from '../flags.ts';
import { jsonOption, modelOption, noProgressOption, runOption, storeOption } from '../options.ts';
import { redactLocation } from '../../store/store.ts';
import { lineProgress } from '../progress.ts';
import { interruptedExitCode, interruptible } from '../signals.ts';

interface AgentFlags extends ModelFlags {
  model?: string;
  harness?: string;
  tasks?: string;
  maxSteps?: string;
  maxNewTokens?: string;
  store: string;
  run?: string;
  json?: boolean;
  progress?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('agent')
    .summary('agent rollouts on ToolShed tasks under harness variants (verbatim, +instr, drop, abstract, +ban)')
    .description(
      'Runs one rollout per ToolShed agent task (generate_agent_tasks, seed\n' +
        `${STUDY_SETTINGS.seed}) under each harness and stores success, repeat rates, loops and\n` +
        'token counts; repeating the command resumes by task. The +ban harnesses\n' +
        'need a backend that can ban token sequences: gguf:<path> (in process) or\n' +
        `vllm:<url>#<model> (bad_words). Settings of record: ${STUDY_SETTINGS.nTasks} tasks, ${STUDY_SETTINGS.maxSteps} steps,\n` +
        `${STUDY_SETTINGS.maxNewTokens} new tokens, greedy. \`revloop analyze --store DB\` shows the tables.\n` +
        'See docs/agent.md.',
    )
    .addOption(modelOption({ what: 'the agent model (the +ban harnesses need one that can ban: gguf:, vllm:, sim:)' }))
    .option('--harness <names>', 'verbatim | verbatim+instr | drop | abstract | verbatim+ban | abstract+ban (comma-separated for several)')
    .option('--tasks <N>', 'number of agent tasks', String(STUDY_SETTINGS.nTasks))
    .option('--max-steps <n>', 'steps per rollout', String(STUDY_SETTINGS.maxSteps))
    .option('--max-new-tokens <n>', 'tokens per model turn', String(STUDY_SETTINGS.maxNewTokens))
    .addOption(storeOption())
    .addOption(runOption('run id (default: agent-toolshed-<label>-<harness>-t<temp>-s<seed>)'))
    .addOption(jsonOption('print each finished rollout as one JSON line on stdout'))
    .addOption(noProgressOption());
  addModelOptions(cmd).action(async (flags: AgentFlags) => {
    process.exitCode = await agentAction(flags);
  });
}

async function agentAction(flags: AgentFlags): Promise<number> {
  const { UsageError } = await import('../../core/errors.ts');
  if (!flags.model)
    throw new UsageError('--model <spec> is required, e.g. --model gguf:./models/qwen2.5-0.5b-instruct-f16.gguf', { option: '--model' });
  const { getAgentHarness } = await import('../../remedy/agent-harness.ts');
  const harnesses = (flags.harness ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
    .map(getAgentHarness);
  const { agentCommand } = await import('../../app/agent.ts');
  const err = process.stderr;
  let progress: ReturnType<typeof lineProgress> | undefined;
  let solved = 0;
  let done = 0;
  let prefix = '';
  const outcome = await interruptible(err, 'after the current rollout', (signal) =>
    agentCommand(
      {
        model: flags.model!,
        modelOptions: modelOptionsFromFlags(flags),
        harnesses,
        tasks: wholeNumber('--tasks', flags.tasks, { min: 1 }),
        maxSteps: wholeNumber('--max-steps', flags.maxSteps, { min: 1 }),
        maxNewTokens: wholeNumber('--max-new-tokens', flags.maxNewTokens, { min: 1 }),
        store: flags.store,
        runId: flags.run,
        signal,
      },
      {
        onRunStart: (s) => {
          prefix = simulatedPrefix(s.simulated);
          solved = done = 0;
          progress = lineProgress(flags.progress === false ? null : err, `agent ${s.harness}`, { simulated: s.simulated });
        },
        onRollout: (r, d, total) => {
          done++;
          if (r.solved) solved++;
          progress?.update(d, total, `success ${((100 * solved) / done).toFixed(0)}%`);
          if (flags.json) process.stdout.write(JSON.stringify(r) + '\n');
        },
        onFailure: (taskId, e) => err.write(`\nrevloop agent: ${taskId}: ${e.message} (not stored; rerun to retry)\n`),
        onRunEnd: (res) => {
          progress?.finish();
          err.write(
            fitText(
              `${prefix}agent ${res.runId}: ${res.status}; ${res.done} new rollouts (${res.solved} solved), ${res.present} already stored${res.failed ? `, ${res.failed} failed` : ''} in ${res.seconds.toFixed(1)} s → ${redactLocation(flags.store)}`,
              outputWidth(false, process.stderr),
            ) + '\n',
          );
        },
      },
    ),
  ).finally(() => progress?.finish());
  const interrupted = outcome.runs.some((r) => r.status === 'interrupted');
  const failures = outcome.runs.reduce((n, r) => n + r.failed, 0);
  return interrupted ? interruptedExitCode() : failures ? 1 : 0;
}
